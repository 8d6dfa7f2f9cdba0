#include "core/remote/task_runs.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_set>

namespace gilscope::remote {

struct KernelTaskRuns::Thread {
    UniqueFd fd;                                // the perf event
    const perf_event_mmap_page* page = nullptr; // the event's page; nullptr: schedstat
    Thread() = default;
    Thread(const Thread&) = delete;
    Thread& operator=(const Thread&) = delete;
    ~Thread() {
        if (page)
            ::munmap(const_cast<perf_event_mmap_page*>(page), size_t(::sysconf(_SC_PAGESIZE)));
    }
};

KernelTaskRuns::KernelTaskRuns(int pid, bool perf)
    : perf_(perf), schedstat_(pid, "schedstat"),
      taskDir_(::open(("/proc/" + std::to_string(pid) + "/task").c_str(),
                      O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
}

KernelTaskRuns::~KernelTaskRuns() = default;

bool KernelTaskRuns::list(std::vector<uint64_t>& tids) {
    tids.clear();
    if (!taskDir_ || ::lseek(taskDir_.get(), 0, SEEK_SET) != 0) return false;
    alignas(8) char buf[8192];
    for (;;) {
        const long n = ::syscall(SYS_getdents64, taskDir_.get(), buf, sizeof buf);
        if (n < 0) return false;
        if (n == 0) break;
        for (long off = 0; off < n;) {
            const auto* d = reinterpret_cast<const dirent64*>(buf + off);
            if (d->d_reclen == 0) return false;
            char* end = nullptr;
            const unsigned long long tid = std::strtoull(d->d_name, &end, 10);
            if (end != d->d_name && *end == '\0' && tid > 0) tids.push_back(tid);
            off += d->d_reclen;
        }
    }
    // The events and files of threads that are gone are closed.
    const std::unordered_set<uint64_t> now(tids.begin(), tids.end());
    std::erase_if(threads_, [&](const auto& kv) { return !now.contains(kv.first); });
    schedstat_.endSample();
    return !tids.empty();
}

int64_t KernelTaskRuns::count() {
    // A task directory's link count is 2 plus its threads (proc_task_getattr).
    struct stat st {};
    if (!taskDir_ || ::fstat(taskDir_.get(), &st) != 0 || st.st_nlink < 3) return -1;
    return int64_t(st.st_nlink) - 2;
}

bool KernelTaskRuns::parseSchedstat(const char* text, uint64_t& arrivals) {
    char* end = nullptr;
    const uint64_t runtime = std::strtoull(text, &end, 10);
    if (end == text) return false;
    const char* wait = end;
    std::strtoull(wait, &end, 10);
    if (end == wait) return false;
    const char* count = end;
    arrivals = std::strtoull(count, &end, 10);
    // A kernel without CONFIG_SCHED_INFO prints zeros: nothing can be told from them.
    return end != count && !(arrivals == 0 && runtime != 0);
}

std::unique_ptr<KernelTaskRuns::Thread> KernelTaskRuns::open(uint64_t tid) {
    auto t = std::make_unique<Thread>();
    if (perf_) {
        perf_event_attr attr{};
        attr.size = sizeof attr;
        attr.type = PERF_TYPE_SOFTWARE;
        attr.config = PERF_COUNT_SW_DUMMY;
        attr.exclude_kernel = 1;
        attr.exclude_hv = 1;
        UniqueFd fd(
            int(::syscall(SYS_perf_event_open, &attr, pid_t(tid), -1, -1, PERF_FLAG_FD_CLOEXEC)));
        if (fd) {
            void* page = ::mmap(nullptr, size_t(::sysconf(_SC_PAGESIZE)), PROT_READ, MAP_SHARED,
                                fd.get(), 0);
            if (page != MAP_FAILED) {
                t->fd = std::move(fd);
                t->page = static_cast<const perf_event_mmap_page*>(page);
                return t;
            }
        } else if (errno != ESRCH) {
            perf_ = false; // refused (paranoid, seccomp, no perf): schedstat from now on
        }
    }
    return t; // no page: its arrivals come from schedstat
}

bool KernelTaskRuns::arrivals(uint64_t tid, uint64_t& out) {
    auto it = threads_.find(tid);
    if (it == threads_.end()) {
        auto t = open(tid);
        if (!t) return false;
        it = threads_.emplace(tid, std::move(t)).first;
    }
    Thread& t = *it->second;
    if (t.page) {
        // The page's seqlock: odd while the kernel rewrites it, and moved by two each time
        // the thread is put on a CPU.
        for (int i = 0; i < 100; ++i) {
            const uint32_t lock = __atomic_load_n(&t.page->lock, __ATOMIC_ACQUIRE);
            if ((lock & 1) == 0) {
                out = lock;
                return true;
            }
        }
        return false;
    }
    char buf[96];
    if (schedstat_.readHead(tid, buf, sizeof buf) < 0) {
        threads_.erase(it); // gone
        return false;
    }
    return parseSchedstat(buf, out);
}

size_t KernelTaskRuns::perfThreads() const {
    size_t n = 0;
    for (const auto& [tid, t] : threads_)
        n += t->page != nullptr;
    return n;
}

} // namespace gilscope::remote
