// A target's memory made up in the test: mapped regions at chosen addresses, with hooks
// to change them between reads (a frame chain torn mid-walk) and to make reads fail from
// some point on (a chain truncated halfway). Only for what a real process cannot be made
// to produce on demand; everything else is tested against real interpreters.
#pragma once

#include "core/remote/remote_memory.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <stdexcept>
#include <vector>

namespace gilscope::test {

class FakeMemory final : public remote::ProcessMemory {
public:
    // Maps `size` zero bytes at addr (regions must not overlap).
    uint8_t* map(uint64_t addr, size_t size) {
        auto& r = regions_[addr];
        r.assign(size, 0);
        return r.data();
    }
    void unmap(uint64_t addr) { regions_.erase(addr); }

    template <typename T>
    void put(uint64_t addr, T value) {
        uint8_t* p = find(addr, sizeof value);
        if (!p) throw std::logic_error("FakeMemory::put outside any region");
        std::memcpy(p, &value, sizeof value);
    }
    void putBytes(uint64_t addr, const void* data, size_t n) {
        uint8_t* p = find(addr, n);
        if (!p) throw std::logic_error("FakeMemory::putBytes outside any region");
        std::memcpy(p, data, n);
    }

    // Called before each read (a readMany counts once) with the first address asked for.
    std::function<void(uint64_t addr)> beforeRead;
    // Calls after this many fail as if every page had gone (EFAULT).
    size_t failAfterCalls = SIZE_MAX;
    size_t calls() const { return calls_; }

    size_t readPartial(uint64_t addr, void* dst, size_t len) override {
        if (!enter(addr)) return 0;
        const size_t n = copy(addr, dst, len);
        lastErrno_ = n == len ? 0 : EFAULT;
        return n;
    }

    size_t readMany(std::span<const iovec> local, std::span<const iovec> remote) override {
        if (local.empty()) return 0;
        if (remote.size() > remote::kMaxReadRanges || local.size() > remote::kMaxReadRanges) {
            lastErrno_ = EINVAL; // as process_vm_readv past IOV_MAX
            return 0;
        }
        if (!enter(reinterpret_cast<uint64_t>(remote[0].iov_base))) return 0;
        // Local buffers are filled in order, as process_vm_readv does; the tests plan
        // matching local and remote ranges.
        size_t done = 0;
        for (size_t i = 0; i < remote.size() && i < local.size(); ++i) {
            const size_t len = remote[i].iov_len;
            if (local[i].iov_len != len ||
                copy(reinterpret_cast<uint64_t>(remote[i].iov_base), local[i].iov_base, len) != len)
                break;
            ++done;
        }
        lastErrno_ = done == remote.size() ? 0 : EFAULT;
        return done;
    }

private:
    bool enter(uint64_t addr) {
        if (beforeRead) beforeRead(addr);
        if (++calls_ > failAfterCalls) {
            lastErrno_ = EFAULT;
            return false;
        }
        return true;
    }
    uint8_t* find(uint64_t addr, size_t len) {
        auto it = regions_.upper_bound(addr);
        if (it == regions_.begin()) return nullptr;
        --it;
        if (addr - it->first + len > it->second.size()) return nullptr;
        return it->second.data() + (addr - it->first);
    }
    // Copies what is mapped from addr on, stopping at the end of its region.
    size_t copy(uint64_t addr, void* dst, size_t len) {
        auto it = regions_.upper_bound(addr);
        if (it == regions_.begin()) return 0;
        --it;
        const uint64_t off = addr - it->first;
        if (off >= it->second.size()) return 0;
        const size_t n = std::min<size_t>(len, it->second.size() - off);
        std::memcpy(dst, it->second.data() + off, n);
        return n;
    }

    std::map<uint64_t, std::vector<uint8_t>> regions_;
    size_t calls_ = 0;
};

} // namespace gilscope::test
