#include "core/remote/page_cache.h"

#include <cstring>

namespace gilscope::remote {

const PageCache::Page* PageCache::page(uint64_t pageAddr) {
    for (size_t i = 0; i < used_; ++i)
        if (pages_[i].addr == pageAddr) return &pages_[i];
    size_t slot = used_;
    if (used_ < kMaxPages) {
        if (pages_.size() <= used_) pages_.emplace_back();
        ++used_;
    } else {
        slot = next_;
        next_ = (next_ + 1) % kMaxPages;
    }
    Page& p = pages_[slot];
    p.addr = pageAddr;
    p.valid = inner_.readPartial(pageAddr, p.bytes.data(), kPage);
    lastErrno_ = inner_.lastErrno();
    return &p;
}

size_t PageCache::readPartial(uint64_t addr, void* dst, size_t len) {
    size_t done = 0;
    while (done < len) {
        const uint64_t at = addr + done;
        if (at < addr) break; // wrapped past the top of the address space
        const uint64_t base = at & ~(kPage - 1);
        const Page* p = page(base);
        const size_t offset = at - base;
        if (p->valid <= offset) break;
        const size_t n = std::min(len - done, p->valid - offset);
        std::memcpy(static_cast<uint8_t*>(dst) + done, p->bytes.data() + offset, n);
        done += n;
        if (p->valid < kPage) break; // the mapping ends in this page
    }
    return done;
}

size_t PageCache::readMany(std::span<const iovec> local, std::span<const iovec> remote) {
    size_t done = 0;
    for (; done < remote.size() && done < local.size(); ++done) {
        const auto addr = reinterpret_cast<uint64_t>(remote[done].iov_base);
        if (readPartial(addr, local[done].iov_base, remote[done].iov_len) != remote[done].iov_len)
            break;
    }
    return done;
}

} // namespace gilscope::remote
