#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace gilscope {

// The optional 56-byte "TACHSTAT" block CPython writes after the frame table.
struct TachProfileStats {
    double durationSec = 0;
    double sampleRate = 0;
    std::optional<double> errorRatePct; // absent unless its presence bit is set
    std::optional<double> missedPct;
};

// What a .bin file says about itself: CPython's BinaryReader.get_info().
struct TachInfo {
    uint32_t version = 1;
    uint8_t pythonMajor = 0, pythonMinor = 0, pythonMicro = 0;
    uint64_t startTimeUs = 0;
    uint64_t sampleIntervalUs = 0;
    uint64_t sampleCount = 0; // thread-samples the header declares
    uint32_t threadCount = 0; // distinct (thread id, interpreter id) pairs
    uint32_t stringCount = 0;
    uint32_t frameCount = 0;
    uint32_t compression = 0;           // 0 none, 1 zstd
    std::optional<int> mode;            // ProfilingMode; nullopt = unknown
    std::optional<int> captureFeatures; // CaptureFeature bits; nullopt = unknown
    std::optional<TachProfileStats> stats;
    // Not in CPython's header, which has no field for it: gilscope's side file beside the
    // `.bin` (thread_names_file.h) says the target was free-threaded (python3.13t, no GIL).
    bool freeThreaded = false;
    // The same side file says the recording has C frames (--native-stacks): only then is a
    // frame without a line whose file is no Python source taken as a C function. CPython's
    // own recordings can hold such frames (a torn read), which stay Python's there.
    bool nativeFrames = false;
    // What that side file gave, or why there is none (describeSideFile): a `.bin` copied
    // without it loses names, marks and counters, and says so.
    std::string sideFile;

    // Layout facts, for `info` and tests.
    bool byteSwapped = false; // written on a machine of the other endianness
    uint64_t fileSize = 0;
    uint64_t stringTableOffset = 0;
    uint64_t frameTableOffset = 0;
    uint64_t sampleDataBytes = 0; // decompressed record-stream size
};

// Record statistics, counted the way CPython's reader/writer get_stats() count them.
struct TachRecordStats {
    uint64_t repeatRecords = 0;
    uint64_t repeatSamples = 0;
    uint64_t fullRecords = 0;
    uint64_t suffixRecords = 0;
    uint64_t popPushRecords = 0;
    uint64_t totalSamples = 0;
    uint64_t stackReconstructions = 0; // reader only
    uint64_t totalFramesWritten = 0;   // writer only
    uint64_t framesSaved = 0;          // writer only
    uint64_t bytesWritten = 0;         // writer only: record bytes before compression

    uint64_t totalRecords() const {
        return repeatRecords + fullRecords + suffixRecords + popPushRecords;
    }
    double frameCompressionPct() const {
        const uint64_t potential = totalFramesWritten + framesSaved;
        return potential ? static_cast<double>(framesSaved) / static_cast<double>(potential) * 100.0
                         : 0.0;
    }
};

} // namespace gilscope
