#pragma once

#include "core/sample/frame_registry.h"
#include "core/sample/torn_reads.h"

#include <cstdint>
#include <span>
#include <string>

namespace gilscope {

// One thread's stack, seen at one or more consecutive instants with the same status.
// The live sampler sends one timestamp per batch; .bin replay batches run-length
// records exactly as CPython's reader does, because the Gecko marker state machine
// runs once per batch.
struct SampleBatch {
    uint64_t threadId = 0; // native thread id (OS TID)
    uint32_t interpreterId = 0;
    uint32_t status = 0;                    // ThreadStatus bits
    std::span<const FrameId> frames;        // leaf (innermost) first
    std::span<const uint64_t> timestampsUs; // monotonic µs, non-empty
};

// What a sink knows about the recording before the first sample.
struct RecordingInfo {
    int pid = 0; // target pid (0 for replay of a file)
    uint64_t sampleIntervalUs = 1000;
    uint64_t startTimeUs = 0; // monotonic µs when recording started
    int mode = -1;            // ProfilingMode, -1 unknown
    int captureFeatures = -1; // CaptureFeature bits, -1 unknown
    uint8_t pythonMajor = 0, pythonMinor = 0, pythonMicro = 0;
    // No GIL: the GIL bits say attached and suspended (thread_status.h); false if unknown.
    bool freeThreaded = false;
    uint32_t cpus = 0; // the CPUs the target may run on (its affinity); 0 when unknown
};

// Figures a sampler reports at the end (CPython's TACHSTAT block carries these).
struct RecordingSummary {
    double durationSec = 0;
    double sampleRate = 0; // achieved samples/s
    double errorRatePct = 0;
    double missedPct = 0;
    uint64_t ticks = 0;         // sampling ticks attempted, as CPython counts samples
    uint64_t threadSamples = 0; // thread stacks recorded
    TornReads torn;             // live recordings: how torn thread reads ended
    WaitTally waits;            // live recordings: wait reasons asked, and unknown
    bool hasErrorRate = false;
    bool hasMissed = false;
};

} // namespace gilscope
