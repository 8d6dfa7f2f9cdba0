#pragma once

#include <csignal>
#include <cstdint>
#include <sys/resource.h>

namespace gilscope::test {

// A real write error on demand, without root or a full disk: while it lives, writes
// that would grow a file of this process beyond `bytes` fail with EFBIG (SIGXFSZ is
// ignored meanwhile, so the process survives). Restores both on destruction.
class FileSizeLimit {
public:
    explicit FileSizeLimit(uint64_t bytes);
    ~FileSizeLimit();
    FileSizeLimit(const FileSizeLimit&) = delete;
    FileSizeLimit& operator=(const FileSizeLimit&) = delete;

    bool active() const { return active_; }

private:
    rlimit saved_{};
    void (*savedHandler_)(int) = SIG_ERR;
    bool active_ = false;
};

} // namespace gilscope::test
