#pragma once

#include "core/common/error.h"
#include "core/target/pid_fd.h"
#include "core/target/proc_dir.h"
#include "core/target/process_maps.h"
#include "core/target/target_files.h"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>

namespace gilscope::target {

// The one door to a target process, opened once at attach and held to the end. Everything
// gilscope does to a target goes through it:
// - the process itself (a pidfd): whether it is still the one attached to, so a pid that
//   a new process got after the target ended is never read;
// - its /proc directory, opened once: every /proc file of the target is read relative to it;
// - its files, as the target itself may read them (TargetFiles);
// - its memory is read by pid (process_vm_readv takes no pidfd): a reader either brings
//   back the process's identity mark in the same call as its other ranges
//   (remote::RemoteMemory does, made from the door), or checks stillAttached() after its
//   reads and drops them when the process has ended meanwhile.
// Shared (std::shared_ptr) by the reader, the watchers and the views that show sources;
// every member is safe to use from any thread.
// 16 bytes only this process has: the kernel's random bytes for it (auxv's AT_RANDOM), at
// the address its auxv gives, read at attach. A process that got the pid later has other
// bytes there (or nothing mapped), so a process_vm_readv that returns them with its other
// ranges read this process, without asking the pidfd after every read.
struct IdentityMark {
    uint64_t addr = 0;
    std::array<uint8_t, 16> bytes{};
};

class AttachedProcess {
public:
    static Result<std::shared_ptr<AttachedProcess>> open(int pid);

    int pid() const { return proc_.pid(); }
    const ProcDir& proc() const { return proc_; }
    const TargetFiles& files() const { return files_; }
    // False once the attached process has ended (its pid may then name another one).
    bool stillAttached() const { return !pidFd_.exited(); }
    // Its memory mappings, now; nullopt once it has ended.
    std::optional<std::vector<MapEntry>> maps() const;
    // When it started, in seconds since the epoch (from its stat), as read at attach.
    std::optional<double> startTime() const { return startTime_; }
    // How many CPUs it may run on (its affinity, from its status), now; 0 if unknown.
    uint32_t allowedCpus() const;
    // Its arguments (cmdline), now: what the process says they are; empty if unknown.
    std::vector<std::string> commandLine() const;
    // Its identity mark; nullopt when its auxv or the bytes could not be read.
    const std::optional<IdentityMark>& identityMark() const { return mark_; }

    AttachedProcess(PidFd pidFd, ProcDir proc, TargetFiles files);

private:
    PidFd pidFd_;
    ProcDir proc_;
    TargetFiles files_;
    std::optional<double> startTime_;
    std::optional<IdentityMark> mark_;
};

} // namespace gilscope::target
