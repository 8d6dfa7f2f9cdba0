#include "core/native/perf_thread_events.h"

#include <algorithm>
#include <asm/perf_regs.h>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace gilscope::native {

namespace {

// The registers asked for, in the kernel's (ascending bit) order; DS-GS are not valid on
// x86-64.
constexpr uint64_t kRegMask = (1ull << PERF_REG_X86_AX) | (1ull << PERF_REG_X86_BX) |
                              (1ull << PERF_REG_X86_CX) | (1ull << PERF_REG_X86_DX) |
                              (1ull << PERF_REG_X86_SI) | (1ull << PERF_REG_X86_DI) |
                              (1ull << PERF_REG_X86_BP) | (1ull << PERF_REG_X86_SP) |
                              (1ull << PERF_REG_X86_IP) | (0xffull << PERF_REG_X86_R8);
constexpr size_t kRegCount = 17;
constexpr size_t kDataPages = 16; // 64 KiB: a few samples of 8 KiB; drained every tick

// Perf's order (ax bx cx dx si di bp sp ip r8-r15) into DWARF's.
Registers toDwarf(const uint64_t* r) {
    Registers out;
    out.regs = {r[0],  r[3],  r[2],  r[1],  r[4],  r[5],  r[6],  r[7], r[9],
                r[10], r[11], r[12], r[13], r[14], r[15], r[16], r[8]};
    return out;
}

int paranoidLevel() {
    std::ifstream in("/proc/sys/kernel/perf_event_paranoid");
    int level = 2;
    in >> level;
    return level;
}

perf_event_attr attrFor(uint32_t type, uint64_t config, uint64_t period) {
    perf_event_attr a{};
    a.size = sizeof a;
    a.type = type;
    a.config = config;
    a.sample_period = period;
    a.sample_type =
        PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    a.sample_regs_user = kRegMask;
    a.sample_stack_user = PerfThreadEvents::kStackBytes;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.use_clockid = 1;
    a.clockid = CLOCK_MONOTONIC;
    return a;
}

int perfOpen(perf_event_attr& a, int tid) {
    return static_cast<int>(::syscall(SYS_perf_event_open, &a, tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

} // namespace

struct PerfThreadEvents::Thread {
    int clockFd = -1, switchFd = -1;
    void* ring = MAP_FAILED;
    size_t ringBytes = 0;
    PerfSample latest;
    bool ever = false;
    bool lastWasSample = false; // the last record read, for the switch-out that follows
    ~Thread() {
        if (ring != MAP_FAILED) ::munmap(ring, ringBytes);
        if (switchFd >= 0) ::close(switchFd);
        if (clockFd >= 0) ::close(clockFd);
    }
    // Copies `len` bytes at ring offset `pos` (wrapping) into dst.
    void copyOut(uint64_t pos, void* dst, size_t len) const {
        const auto* meta = static_cast<const perf_event_mmap_page*>(ring);
        const auto* data = static_cast<const uint8_t*>(ring) + meta->data_offset;
        const uint64_t size = meta->data_size;
        const size_t at = size_t(pos % size), first = std::min<size_t>(len, size - at);
        std::memcpy(dst, data + at, first);
        if (first < len) std::memcpy(static_cast<uint8_t*>(dst) + first, data, len - first);
    }
    // Reads every record the kernel wrote since the last call, keeping the newest sample.
    void drain() {
        auto* meta = static_cast<perf_event_mmap_page*>(ring);
        const uint64_t head = __atomic_load_n(&meta->data_head, __ATOMIC_ACQUIRE);
        uint64_t tail = meta->data_tail;
        uint64_t newestAt = UINT64_MAX;
        bool stopped = latest.stoppedSince; // no record: as it was
        while (tail + sizeof(perf_event_header) <= head) {
            perf_event_header h;
            copyOut(tail, &h, sizeof h);
            if (h.size < sizeof h || tail + h.size > head) break; // torn: the kernel's bug
            if (h.type == PERF_RECORD_SAMPLE) newestAt = tail;
            // At a switch out the kernel writes the switch sample, then the switch record.
            // Anything else since (a switch in, a later sample, lost records) means it ran.
            stopped = h.type == PERF_RECORD_SWITCH && (h.misc & PERF_RECORD_MISC_SWITCH_OUT) &&
                      lastWasSample;
            lastWasSample = h.type == PERF_RECORD_SAMPLE;
            tail += h.size;
        }
        if (newestAt != UINT64_MAX) parse(newestAt);
        latest.stoppedSince = ever && stopped;
        __atomic_store_n(&meta->data_tail, tail, __ATOMIC_RELEASE);
    }
    // PERF_RECORD_SAMPLE: header, pid tid, time, abi, regs[17], size, stack[size], dyn_size.
    void parse(uint64_t at) {
        perf_event_header h;
        copyOut(at, &h, sizeof h);
        const size_t fixed = sizeof h + 8 + 8 + 8 + kRegCount * 8 + 8;
        if (h.size < fixed) return;
        // The fields are read straight from the ring, the stack into the sample's own
        // buffer: one copy of it, no record-sized temporary.
        struct {
            uint64_t pidTid, time, abi, regs[kRegCount], size;
        } head;
        static_assert(sizeof head == fixed - sizeof h);
        copyOut(at + sizeof h, &head, sizeof head);
        if (head.abi != PERF_SAMPLE_REGS_ABI_64) return; // no user registers (a kernel thread)
        if (fixed + head.size + 8 > h.size) return;
        uint64_t dyn = 0;
        copyOut(at + fixed + head.size, &dyn, 8);
        dyn = std::min(dyn, head.size);
        latest.timeNs = head.time;
        latest.regs = toDwarf(head.regs);
        latest.stackAddr = head.regs[7];
        latest.stack.resize(dyn);
        copyOut(at + fixed, latest.stack.data(), dyn);
        ever = true;
    }
};

Result<std::unique_ptr<PerfThreadEvents>> PerfThreadEvents::open(int pid, uint64_t periodNs) {
    std::unique_ptr<PerfThreadEvents> e(new PerfThreadEvents(std::max<uint64_t>(periodNs, 10000)));
    perf_event_attr probe = attrFor(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 1000000);
    const int fd = perfOpen(probe, pid);
    if (fd < 0) {
        const int err = errno;
        std::string why = "--native-stacks: the kernel refuses perf events on process " +
                          std::to_string(pid) + " (" + std::strerror(err) + ")";
        if (err == EACCES || err == EPERM)
            why += ". kernel.perf_event_paranoid is " + std::to_string(paranoidLevel()) +
                   ": run gilscope as root or with CAP_PERFMON (and CAP_SYS_PTRACE), or set "
                   "it to 2 or less for your own processes (sysctl "
                   "kernel.perf_event_paranoid=2); or read native stacks with --blocking, "
                   "which stops the target for each sample";
        else if (err == ENOSYS || err == ENOENT)
            why += ": this kernel (or container) has no perf events; use --blocking";
        return makeError(
            err == EACCES || err == EPERM ? ErrorKind::PermissionDenied : ErrorKind::Internal, why);
    }
    ::close(fd);
    // A switch happens in the kernel, so an event that excludes the kernel never records
    // one: the switch event needs kernel events allowed (root, CAP_PERFMON, or
    // perf_event_paranoid <= 1). Its sample still holds only the user registers and stack.
    perf_event_attr sw = attrFor(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 1);
    sw.exclude_kernel = 0;
    if (const int swFd = perfOpen(sw, pid); swFd >= 0) {
        ::close(swFd);
        e->switchSamples_ = true;
    }
    return e;
}

PerfThreadEvents::PerfThreadEvents(uint64_t periodNs) : periodNs_(periodNs) {
}
PerfThreadEvents::~PerfThreadEvents() = default;

bool PerfThreadEvents::openThread(int tid, Thread& t) {
    perf_event_attr clock = attrFor(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, periodNs_);
    perf_event_attr sw = attrFor(PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 1);
    t.clockFd = perfOpen(clock, tid);
    if (t.clockFd < 0) {
        why_ = "perf event on thread " + std::to_string(tid) + ": " + std::strerror(errno);
        return false;
    }
    t.ringBytes = size_t(1 + kDataPages) * size_t(::sysconf(_SC_PAGESIZE));
    t.ring = ::mmap(nullptr, t.ringBytes, PROT_READ | PROT_WRITE, MAP_SHARED, t.clockFd, 0);
    if (t.ring == MAP_FAILED) {
        why_ = "perf ring buffer of thread " + std::to_string(tid) + ": " + std::strerror(errno) +
               " (perf_event_mlock_kb bounds it without root)";
        return false;
    }
    if (!switchSamples_) return true;
    sw.exclude_kernel = 0;
    sw.context_switch = 1; // the switch records, into the same buffer
    t.switchFd = perfOpen(sw, tid);
    if (t.switchFd < 0 || ::ioctl(t.switchFd, PERF_EVENT_IOC_SET_OUTPUT, t.clockFd) != 0) {
        why_ = "perf switch event on thread " + std::to_string(tid) + ": " + std::strerror(errno);
        return false;
    }
    return true;
}

bool PerfThreadEvents::track(int tid) {
    if (threads_.count(tid)) return true;
    auto t = std::make_unique<Thread>();
    if (!openThread(tid, *t)) return false;
    threads_.emplace(tid, std::move(t));
    return true;
}

const PerfSample* PerfThreadEvents::newest(int tid) {
    auto it = threads_.find(tid);
    if (it == threads_.end()) return nullptr;
    Thread& t = *it->second;
    t.drain();
    return t.ever ? &t.latest : nullptr;
}

void PerfThreadEvents::retain(const std::vector<int>& alive) {
    for (auto it = threads_.begin(); it != threads_.end();)
        if (std::find(alive.begin(), alive.end(), it->first) == alive.end())
            it = threads_.erase(it);
        else
            ++it;
}

} // namespace gilscope::native
