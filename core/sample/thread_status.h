#pragma once

#include <cstdint>

namespace gilscope {

// Exactly CPython 3.15's THREAD_STATUS_* values (Modules/_remote_debugging), so status
// bytes round-trip through the .bin format unchanged.
namespace ThreadStatus {
inline constexpr uint32_t HasGil = 1u << 0;
inline constexpr uint32_t OnCpu = 1u << 1;
inline constexpr uint32_t Unknown = 1u << 2;
inline constexpr uint32_t GilRequested = 1u << 3;
inline constexpr uint32_t HasException = 1u << 4;
inline constexpr uint32_t MainThread = 1u << 5;
} // namespace ThreadStatus

// CPython's profiling modes (_remote_debugging.h), stored in the .bin config word.
enum class ProfilingMode : int { Unknown = -1, Wall = 0, Cpu = 1, Gil = 2, All = 3, Exception = 4 };

// Whether a thread with these status bits is sampled in `mode`: CPython's
// skip_non_matching_threads rule (Modules/_remote_debugging/threads.c). Wall and All
// sample every thread.
inline bool threadMatchesMode(ProfilingMode mode, uint32_t status) {
    switch (mode) {
    case ProfilingMode::Cpu:
        return (status & ThreadStatus::OnCpu) != 0;
    case ProfilingMode::Gil:
        return (status & ThreadStatus::HasGil) != 0;
    case ProfilingMode::Exception:
        return (status & ThreadStatus::HasException) != 0;
    default:
        return true;
    }
}

// Capture-feature bits of the .bin config word (binary_collector.py CAPTURE_FEATURES).
namespace CaptureFeature {
inline constexpr uint32_t AllThreads = 1u << 0;
inline constexpr uint32_t Native = 1u << 1;
inline constexpr uint32_t Gc = 1u << 2;
inline constexpr uint32_t Opcodes = 1u << 3;
inline constexpr uint32_t Blocking = 1u << 4;
} // namespace CaptureFeature

} // namespace gilscope
