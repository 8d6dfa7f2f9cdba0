#include "core/remote/task_runs.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_set>

namespace gilscope::remote {

namespace {

const size_t kPageSize = size_t(::sysconf(_SC_PAGESIZE));

// A switch record without sample_id_all: its header alone.
constexpr uint16_t kSwitchRecordSize = sizeof(perf_event_header);
static_assert(kSwitchRecordSize == sizeof(uint64_t));

} // namespace

struct KernelTaskRuns::Thread {
    UniqueFd fd;                                // the perf event
    const perf_event_mmap_page* page = nullptr; // the event's page; nullptr: schedstat
    size_t mapped = 0;                          // the page, and the switch ring after it
    Thread() = default;
    Thread(const Thread&) = delete;
    Thread& operator=(const Thread&) = delete;
    ~Thread() {
        if (page) ::munmap(const_cast<perf_event_mmap_page*>(page), mapped);
    }
};

KernelTaskRuns::KernelTaskRuns(const target::ProcDir& proc, bool perf, bool switches)
    : perf_(perf), switches_(perf && switches), schedstat_(proc, "schedstat"),
      taskDir_(proc.openAt("task", O_RDONLY | O_DIRECTORY)) {
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
    std::erase_if(threads_, [&](const auto& entry) { return !now.contains(entry.first); });
    next_ = 0;
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
    while (perf_) {
        perf_event_attr attr{};
        attr.size = sizeof attr;
        attr.type = PERF_TYPE_SOFTWARE;
        attr.config = PERF_COUNT_SW_DUMMY;
        attr.exclude_kernel = 1;
        attr.exclude_hv = 1;
        attr.context_switch = switches_;
        UniqueFd fd(
            int(::syscall(SYS_perf_event_open, &attr, pid_t(tid), -1, -1, PERF_FLAG_FD_CLOEXEC)));
        if (!fd) {
            if (errno == ESRCH) break; // gone
            if (switches_ && errno == EINVAL) {
                switches_ = false; // a kernel before 4.3: the page alone
                continue;
            }
            perf_ = false; // refused (paranoid, seccomp, no perf): schedstat from now on
            break;
        }
        // Mapped read-only, the ring is one the kernel overwrites: it never waits for us.
        // Past the user's locked-memory allowance for perf (perf_event_mlock_kb) the ring
        // is refused: then the page alone, and this thread is probed.
        size_t size = switches_ ? 2 * kPageSize : kPageSize;
        void* page = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd.get(), 0);
        if (page == MAP_FAILED && size > kPageSize) {
            size = kPageSize;
            page = ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd.get(), 0);
        }
        if (page == MAP_FAILED) break;
        t->fd = std::move(fd);
        t->page = static_cast<const perf_event_mmap_page*>(page);
        t->mapped = size;
        break;
    }
    return t; // no page: its arrivals come from schedstat
}

KernelTaskRuns::Thread* KernelTaskRuns::find(uint64_t tid) {
    // StillProcess asks for the threads in the order of their ids, tick after tick: the
    // one after the last asked is usually the one.
    if (next_ < threads_.size() && threads_[next_].first == tid)
        return threads_[next_++].second.get();
    auto it = std::lower_bound(threads_.begin(), threads_.end(), tid,
                               [](const auto& entry, uint64_t v) { return entry.first < v; });
    if (it == threads_.end() || it->first != tid) it = threads_.emplace(it, tid, open(tid));
    next_ = size_t(it - threads_.begin()) + 1;
    return it->second.get();
}

void KernelTaskRuns::forget(uint64_t tid) {
    std::erase_if(threads_, [&](const auto& entry) { return entry.first == tid; });
    next_ = 0;
}

bool KernelTaskRuns::onCpuNow(uint64_t tid, bool& onCpu) {
    const Thread* t = find(tid);
    if (!t->page || t->mapped <= kPageSize) return false;
    const perf_event_mmap_page& page = *t->page;
    // Kernels before 4.1 leave data_offset/size 0: the ring then starts at the next page.
    const uint64_t offset = page.data_offset ? page.data_offset : kPageSize;
    const uint64_t size = page.data_size ? page.data_size : t->mapped - kPageSize;
    if (offset + size > t->mapped || size < kSwitchRecordSize || (size & (size - 1)) != 0)
        return false;
    const auto* ring = reinterpret_cast<const char*>(t->page) + offset;
    for (int i = 0; i < 100; ++i) {
        const uint64_t head = __atomic_load_n(&page.data_head, __ATOMIC_ACQUIRE);
        if (head < kSwitchRecordSize) return false; // no switch yet
        // Records are 8-byte aligned: the header is loaded whole, with acquire, so that
        // the second look at data_head below comes after it.
        const auto* at =
            reinterpret_cast<const uint64_t*>(ring + ((head - kSwitchRecordSize) & (size - 1)));
        const uint64_t word = __atomic_load_n(at, __ATOMIC_ACQUIRE);
        perf_event_header last;
        std::memcpy(&last, &word, sizeof last);
        // A record written meanwhile may have overwritten the one read: read again.
        if (__atomic_load_n(&page.data_head, __ATOMIC_RELAXED) != head) continue;
        if (last.type != PERF_RECORD_SWITCH || last.size != kSwitchRecordSize) return false;
        onCpu = !(last.misc & PERF_RECORD_MISC_SWITCH_OUT) ||
                (last.misc & PERF_RECORD_MISC_SWITCH_OUT_PREEMPT);
        return true;
    }
    return false;
}

bool KernelTaskRuns::arrivals(uint64_t tid, uint64_t& out) {
    Thread& t = *find(tid);
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
        forget(tid); // gone
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
