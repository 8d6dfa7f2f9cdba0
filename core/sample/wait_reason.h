#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace gilscope {

// Why a thread that is off CPU is not running, from the system call the kernel says it
// is blocked in (/proc/PID/task/TID/syscall). A GIL wait is not here: it comes from the
// interpreter's own state (ThreadStatus::GilRequested) and is told first.
enum class WaitReason : uint8_t {
    None = 0,  // on CPU, waiting for the GIL, or the state was not probed
    Lock,      // futex: a lock, a condition, a queue, Event.wait, join
    IoRead,    // read, recv... on a file descriptor
    IoWrite,   // write, send...
    Poll,      // poll, select, epoll_wait: waiting for readiness (an event loop's idle)
    Sleep,     // nanosleep, clock_nanosleep, a select/poll with no descriptors
    ChildWait, // wait4, waitid
    Connect,   // connect
    Accept,    // accept, accept4
    Other,     // another system call
    Unknown,   // off CPU, but the kernel's record could not be read or parsed
};
inline constexpr int kWaitReasonCount = int(WaitReason::Unknown) + 1;

// The reason rides in the status word above CPython's THREAD_STATUS bits (bits 8-11),
// which CPython's .bin keeps in one byte: a .bin loses it and nothing else changes.
namespace WaitReasonBits {
inline constexpr uint32_t Shift = 8;
inline constexpr uint32_t Mask = 0xFu << Shift;
} // namespace WaitReasonBits

inline WaitReason waitReasonOf(uint32_t status) {
    const uint32_t v = (status & WaitReasonBits::Mask) >> WaitReasonBits::Shift;
    return v < uint32_t(kWaitReasonCount) ? WaitReason(v) : WaitReason::Unknown;
}
inline uint32_t withWaitReason(uint32_t status, WaitReason r) {
    return (status & ~WaitReasonBits::Mask) | (uint32_t(r) << WaitReasonBits::Shift);
}

// "lock", "io-read", ... (CLI, pprof labels, JSON).
std::string_view waitReasonName(WaitReason r);
// "Lock wait", "I/O read", ... (the window).
std::string_view waitReasonLabel(WaitReason r);

// The wait leaf pseudo-frame's name for a reason ("<lock wait>", "<sleep>"), with the fd's
// kind and peer for I/O ("<read TCP 10.0.0.5:5432>"; "<read>" when `target` is empty) and
// the call's name, else its number, for another call. waitReasonOfFrame reads it back.
std::string waitFrameName(WaitReason reason, std::string_view callName, long nr,
                          std::string_view target);

// The reason a wait leaf pseudo-frame names ("<lock wait>", "<read TCP 10.0.0.5:5432>",
// "<sleep>", see remote::WaitFrames), with its file "~"; nullopt for any other frame. A
// replayed .bin (which keeps frames, not the status word's reason) gets its reasons back
// from these.
std::optional<WaitReason> waitReasonOfFrame(std::string_view filename, std::string_view funcname);
// What such a frame says the thread waits on, without its brackets ("read TCP
// 10.0.0.5:5432"): `dump`'s "waiting:" and the timeline's hover. Empty for any other frame.
std::string_view waitLabelOfFrame(std::string_view filename, std::string_view funcname);

// The families the views colour and filter by: I/O read, write, connect and accept are
// one "I/O"; child waits and other system calls are "other".
enum class WaitKind : uint8_t { None, Lock, Io, Poll, Sleep, Other };
WaitKind waitKindOf(WaitReason r);

// One byte for a sample's state where a store keeps one per sample (the analysis model):
// CPython's bits 0-4 as they are, and the wait's kind in bits 5-7 in place of MainThread
// (bit 5), which belongs to the thread, not to the sample. expandStatus gives a status
// word with the same bits 0-4 and a reason of the same kind.
uint8_t compactStatus(uint32_t status);
uint32_t expandStatus(uint8_t compact);

} // namespace gilscope
