#include "core/native/native_unwinder.h"

#include "core/native/unwind_memo.h"
#include "core/remote/proc_files.h"
#include "core/remote/thread_state_probe.h"
#include "core/target/attached_process.h"

#include <elfutils/libdwfl.h>
#include <libelf.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

namespace gilscope::native {

namespace {

// The unwinder whose target's files find_elf opens, for the calls into libdwfl on this
// thread (TargetScope).
thread_local const NativeUnwinder* tUnwinder = nullptr;

// A library as the target maps it, through its door (core/target/process_maps): the
// mapping itself, or the file in the target's root as the target may read it, so that a
// target in a container or chroot gets its own libc's CFI and symbols. Never this
// machine's file of the same name: for a name we cannot open, libdwfl gets nothing.
// The file is read as needed (ELF_C_READ: pread), never mapped as libdwfl would map it: a
// target that truncates its own file while gilscope reads it would end gilscope with SIGBUS.
int findTargetElf(Dwfl_Module* mod, void** userdata, const char* name, Dwarf_Addr base,
                  char** fileName, Elf** elf) {
    if (tUnwinder && name && name[0] == '/') {
        const target::AttachedProcess& door = *tUnwinder->process();
        if (auto maps = door.maps())
            for (const target::MapEntry& m : *maps) {
                if (m.path != name) continue;
                auto fd = target::openMappedFile(door, m);
                if (!fd) return -1;
                Elf* read = elf_begin(fd->get(), ELF_C_READ, nullptr);
                if (!read) return -1;
                *elf = read;
                *fileName = ::strdup(name);
                return fd->release();
            }
        return -1;
    }
    return dwfl_linux_proc_find_elf(mod, userdata, name, base, fileName, elf);
}

// Separate debug information only by build id, in this machine's debug directories
// (/usr/lib/debug/.build-id/): a name the target's file gives (its .gnu_debuglink, which
// may be absolute or climb with "..") would have gilscope open any host file, a FIFO that
// never answers, or /dev/zero, whose checksum never ends.
const Dwfl_Callbacks kProcCallbacks = {
    findTargetElf, dwfl_build_id_find_debuginfo,
    nullptr, // section_address: not for a live process
    nullptr, // debuginfo_path: the standard one (/usr/lib/debug)
};

int64_t nowMs() {
    using namespace std::chrono;
    return duration_cast<milliseconds>(steady_clock::now().time_since_epoch()).count();
}

// The file mappings (range, offset, inode, path): a change means a library was loaded or
// unloaded since.
std::string mappedFiles(const target::AttachedProcess& door) {
    std::string out;
    if (auto maps = door.maps())
        for (const target::MapEntry& m : *maps)
            if (m.inode != 0)
                out += std::to_string(m.start) + '-' + std::to_string(m.end) + ' ' +
                       std::to_string(m.offset) + ' ' + std::to_string(m.inode) + ' ' + m.path +
                       '\n';
    return out;
}

std::string dwflError() {
    const char* msg = dwfl_errmsg(-1);
    return msg ? msg : "unknown libdwfl error";
}

} // namespace

std::optional<Registers> Registers::fromSyscallFile(std::string_view text) {
    Registers r;
    if (!remote::ThreadStateProbe::parseStackAndPc(text, r.regs[kSp], r.regs[kPc]))
        return std::nullopt;
    r.known = 1u << kSp | 1u << kPc;
    return r;
}

NativeUnwinder::TargetScope::TargetScope(const NativeUnwinder& unwinder) : previous_(tUnwinder) {
    tUnwinder = &unwinder;
}
NativeUnwinder::TargetScope::~TargetScope() {
    tUnwinder = previous_;
}

// libdwfl's view of "a thread": the unwind in progress (registers and memory supplied by
// the caller), never a ptrace attach of its own.
struct DwflThreadHooks {
    static pid_t nextThread(Dwfl*, void*, void**) { return 0; } // threads come by id only
    static bool getThread(Dwfl*, pid_t, void* dwflArg, void** threadArg) {
        *threadArg = dwflArg;
        return true;
    }
    static bool memoryRead(Dwfl*, Dwarf_Addr addr, Dwarf_Word* result, void* dwflArg) {
        auto* self = static_cast<NativeUnwinder*>(dwflArg);
        if (!self->memory_) return false;
        const bool ok = self->memory_->readValue(addr, *result);
        self->memo_->read(addr, ok, *result);
        return ok;
    }
    static bool setInitialRegisters(Dwfl_Thread* thread, void* threadArg) {
        auto* self = static_cast<NativeUnwinder*>(threadArg);
        const Registers& r = *self->regs_;
        for (unsigned i = 0; i < Registers::kCount; ++i) {
            const Dwarf_Word value = r.regs[i];
            if (((r.known & Registers::kUnwindFrom) >> i & 1) &&
                !dwfl_thread_state_registers(thread, i, 1, &value))
                return false;
        }
        dwfl_thread_state_register_pc(thread, self->regs_->regs[Registers::kPc]);
        return true;
    }
    static int onFrame(Dwfl_Frame* state, void* arg) {
        auto* self = static_cast<NativeUnwinder*>(arg);
        self->memo_->frameStarts(); // before dwfl_frame_pc, which may read the next frame
        UnwindMemo::Frame f;
        Dwarf_Addr pc = 0;
        bool activation = false;
        if (!dwfl_frame_pc(state, &pc, &activation)) return DWARF_CB_ABORT;
        f.frame.pc = pc;
        f.frame.activation = activation;
        Dwarf_Word sp = 0;
        if (dwfl_frame_reg(state, Registers::kSp, &sp) == 0) f.frame.sp = sp;
        // The registers, only where the last unwind passed by: nowhere else can it resume.
        f.withRegs = self->memo_->mayResumeAt(f.frame);
        for (unsigned i = 0; f.withRegs && i < Registers::kCount; ++i) {
            Dwarf_Word value = 0;
            if (dwfl_frame_reg(state, i, &value) != 0) continue; // undefined here
            f.regs[i] = value;
            f.known |= 1u << i;
        }
        if (self->memo_->reached(f, *self->memory_, *self->frames_)) return DWARF_CB_ABORT;
        return self->frames_->size() >= NativeUnwinder::kMaxFrames ? DWARF_CB_ABORT : DWARF_CB_OK;
    }
};

namespace {
const Dwfl_Thread_Callbacks kThreadCallbacks = {
    DwflThreadHooks::nextThread,
    DwflThreadHooks::getThread,
    DwflThreadHooks::memoryRead,
    DwflThreadHooks::setInitialRegisters,
    nullptr, // detach: nothing was attached
    nullptr, // thread_detach
};
} // namespace

Result<std::unique_ptr<NativeUnwinder>> NativeUnwinder::open(int pid) {
    auto door = target::AttachedProcess::open(pid);
    if (!door) return door.error();
    return open(std::move(*door));
}

Result<std::unique_ptr<NativeUnwinder>>
NativeUnwinder::open(std::shared_ptr<const target::AttachedProcess> door) {
    std::unique_ptr<NativeUnwinder> u(new NativeUnwinder(std::move(door)));
    if (!u->attach()) return makeError(ErrorKind::Internal, u->why_);
    return u;
}

NativeUnwinder::NativeUnwinder(std::shared_ptr<const target::AttachedProcess> door)
    : door_(std::move(door)), pid_(door_->pid()), memo_(std::make_unique<UnwindMemo>()) {
}

uint64_t NativeUnwinder::framesReused() const {
    return memo_->framesReused();
}

void NativeUnwinder::forgetUnwinds() {
    memo_->clear();
}

NativeUnwinder::~NativeUnwinder() {
    if (dwfl_) dwfl_end(dwfl_);
}

bool NativeUnwinder::attach() {
    TargetScope target(*this);
    memo_->clear(); // a new module list: a pc may mean other code now
    if (dwfl_) dwfl_end(dwfl_);
    dwfl_ = dwfl_begin(&kProcCallbacks);
    if (!dwfl_) {
        why_ = "libdwfl: " + dwflError();
        return false;
    }
    dwfl_report_begin(dwfl_);
    // The module list from the maps read through the door (libdwfl would open
    // /proc/PID/maps by number itself).
    auto maps = door_->proc().read("maps");
    int rc = ESRCH;
    if (maps) {
        if (FILE* file = ::fmemopen(maps->data(), maps->size(), "r")) {
            rc = dwfl_linux_proc_maps_report(dwfl_, file);
            std::fclose(file);
        } else {
            rc = errno;
        }
    }
    if (dwfl_report_end(dwfl_, nullptr, nullptr) != 0 || rc != 0) {
        why_ = "cannot read the modules of process " + std::to_string(pid_) + ": " +
               (rc > 0 ? std::strerror(rc) : dwflError());
        return false;
    }
    if (!dwfl_attach_state(dwfl_, nullptr, pid_, &kThreadCallbacks, this)) {
        why_ = "libdwfl cannot unwind process " + std::to_string(pid_) + ": " + dwflError();
        return false;
    }
    lastRefreshMs_ = nowMs();
    mappedFiles_ = mappedFiles(*door_);
    return true;
}

bool NativeUnwinder::refreshModules() {
    if (nowMs() - lastRefreshMs_ < kRefreshCheckMs) return false;
    lastRefreshMs_ = nowMs();
    if (mappedFiles(*door_) == mappedFiles_) return false; // the same libraries where they were
    return attach();
}

bool NativeUnwinder::unwind(int tid, const Registers& regs, remote::ProcessMemory& memory,
                            std::vector<NativeFrame>& out) {
    TargetScope target(*this);
    if (!dwfl_addrmodule(dwfl_, regs.regs[Registers::kPc])) refreshModules();
    unwindOnce(tid, regs, memory, out);
    // An unwind that stopped early may have run into a library loaded since the module list
    // was read (`run` attaches before the script imports anything; its pc may even fall in
    // a stale module's range): when the mapped files changed, read the list and unwind
    // again, once.
    if (!why_.empty() && !out.empty() && refreshModules()) unwindOnce(tid, regs, memory, out);
    if (out.empty()) {
        if (why_.empty()) why_ = "no frame";
        return false;
    }
    return true;
}

void NativeUnwinder::unwindOnce(int tid, const Registers& regs, remote::ProcessMemory& memory,
                                std::vector<NativeFrame>& out) {
    out.clear();
    why_.clear();
    regs_ = &regs;
    memory_ = &memory;
    frames_ = &out;
    memo_->begin(tid);
    const int rc = dwfl_getthread_frames(dwfl_, tid, DwflThreadHooks::onFrame, this);
    // Where unwinding stopped; a resumed unwind stopped where the last one did.
    if (!memo_->resumed() && rc != 0 && out.size() < kMaxFrames) why_ = dwflError();
    why_ = memo_->end(why_);
    regs_ = nullptr;
    memory_ = nullptr;
    frames_ = nullptr;
}

} // namespace gilscope::native
