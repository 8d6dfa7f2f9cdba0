#pragma once

#include "core/remote/remote_memory.h"

#include <array>
#include <cstdint>
#include <vector>

namespace gilscope::remote {

// Reads another ProcessMemory a whole page at a time and serves later reads in that page
// from the copy. Meant for memory that does not change while it is read: the stack of a
// stopped thread, or of one blocked in the kernel. An unwind reads a few words per frame,
// upward; one syscall per 4 KiB instead of one per word (a 60-frame stack: ~5 instead of
// ~300, which at 1 kHz left a stopped target almost no time to run).
class PageCache final : public ProcessMemory {
public:
    static constexpr uint64_t kPage = 4096;
    static constexpr size_t kMaxPages = 64; // a 256 KiB stack; past that, round robin

    explicit PageCache(ProcessMemory& inner) : inner_(inner) {}
    // Forgets every page: the memory may have changed since.
    void clear() { used_ = 0; }

    size_t readPartial(uint64_t addr, void* dst, size_t len) override;
    size_t readMany(std::span<const iovec> local, std::span<const iovec> remote) override;

private:
    struct Page {
        uint64_t addr = 0;
        size_t valid = 0; // bytes read from its start (short: the page ends the mapping)
        std::array<uint8_t, kPage> bytes;
    };
    const Page* page(uint64_t pageAddr);

    ProcessMemory& inner_;
    std::vector<Page> pages_;
    size_t used_ = 0, next_ = 0;
};

} // namespace gilscope::remote
