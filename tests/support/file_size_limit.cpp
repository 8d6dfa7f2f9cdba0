#include "tests/support/file_size_limit.h"

#include <csignal>

namespace gilscope::test {

FileSizeLimit::FileSizeLimit(uint64_t bytes) {
    if (::getrlimit(RLIMIT_FSIZE, &saved_) != 0) return;
    savedHandler_ = std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = static_cast<rlim_t>(bytes);
    active_ = ::setrlimit(RLIMIT_FSIZE, &limit) == 0;
}

FileSizeLimit::~FileSizeLimit() {
    if (active_) ::setrlimit(RLIMIT_FSIZE, &saved_);
    if (savedHandler_ != SIG_ERR) std::signal(SIGXFSZ, savedHandler_);
}

} // namespace gilscope::test
