#pragma once

#include "core/common/error.h"
#include "core/sample/process_counters.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gilscope {

// A `.bin` recording's thread names, beside it in "FILE.bin.names.json": CPython's format
// has no place for them, and gilscope writes `.bin` files byte for byte as CPython does.
// The same file says whether the target was free-threaded (python3.13t, no GIL) and on how
// many CPUs it could run, which
// CPython's header has no field for either; nor for C frames (--native-stacks), nor for
// the user's marks (the control socket's `mark`), nor the process's counters (memory,
// threads, CPU).
// The side file names the recording it belongs to (size, start time, sample count), so
// one left beside a `.bin` that was since replaced is ignored.
struct BinIdentity {
    uint64_t fileSize = 0;
    uint64_t startTimeUs = 0;
    uint64_t sampleCount = 0;
    bool operator==(const BinIdentity&) const = default;
};

using ThreadNameMap = std::map<uint64_t, std::string>;
// A named instant: its time in the samples' clock (µs) and its text.
using Marker = std::pair<uint64_t, std::string>;

// Whether a side file was found beside a `.bin`, and used.
enum class SideFileState { Absent, Read, Ignored };

// What the side file keeps.
struct BinSideFacts {
    ThreadNameMap names;
    bool freeThreaded = false;
    uint32_t cpus = 0;         // the CPUs the target could run on (0: not known)
    bool nativeFrames = false; // it holds C frames (--native-stacks)
    std::vector<Marker> markers;
    std::vector<ProcessCounters> counters; // in time order, at most CounterSeries::kMaxReadings
    // How reading it went (readBinSideFile); writing ignores these.
    SideFileState state = SideFileState::Absent;
    std::string ignoredWhy; // SideFileState::Ignored: why
    bool empty() const {
        return names.empty() && !freeThreaded && cpus == 0 && !nativeFrames && markers.empty() &&
               counters.empty();
    }
};

inline constexpr size_t kMaxNamesFileBytes = 4 << 20;
inline constexpr size_t kMaxNamedThreads = 1 << 15;
// Marks kept beside a file, and their longest text: within kMaxNamesFileBytes together.
inline constexpr size_t kMaxSideMarkers = 4096;
inline constexpr size_t kMaxMarkerText = 256;

std::filesystem::path threadNamesPath(const std::filesystem::path& bin);

// Writes the side file of `bin` through AtomicFile (nothing when facts is empty).
Status writeBinSideFile(const std::filesystem::path& bin, const BinIdentity& identity,
                        const BinSideFacts& facts);

// The side file of `bin`: empty when there is none, or it is not one, too large, or
// belongs to another recording (its state says which). Bounded: at most
// kMaxNamesFileBytes are read; a value of the wrong type is skipped, never thrown.
BinSideFacts readBinSideFile(const std::filesystem::path& bin, const BinIdentity& identity);

// One line for `info` and the window: what the side file gave, or what is missing and why.
std::string describeSideFile(const std::filesystem::path& bin, const BinSideFacts& facts);

// Copies the side file of `from` (if any) to beside `to`, a byte-identical copy of it.
Status copyThreadNames(const std::filesystem::path& from, const std::filesystem::path& to);

} // namespace gilscope
