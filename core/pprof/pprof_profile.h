#pragma once

#include "core/common/error.h"
#include "core/pprof/thread_state.h"
#include "core/sample/frame_registry.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace gilscope::pprof {

// What the header of a pprof profile says besides its samples.
struct ProfileHeader {
    bool wall = true;       // sample type wall/nanoseconds, else cpu/nanoseconds
    int64_t periodNs = 0;   // one sample stands for this long
    int64_t timeNanos = 0;  // wall-clock start (Unix ns); 0: unknown
    int64_t durationNs = 0; // how long the profile covers
    // At most this many pprof samples (0: no bound): past it, threads are merged (no
    // thread_id / thread_name labels) and only stacks and states stay apart.
    size_t maxSamples = 0;
    // Free text for the profile's comment field: pprof has no counters, so the process's
    // memory, threads and CPU over the profile ride here (counterComments).
    std::vector<std::string> comments;
};

// One pprof profile's samples, aggregated as they arrive: each distinct (stack, thread,
// state) is one pprof sample with its count. It copies what it needs of the frames
// (names, files, lines) into its own string, function and location tables when it first
// sees a stack, so it can be encoded on another thread, long after, with no access to
// the producer's FrameRegistry.
class PprofProfile {
public:
    // traceIds: whether trace_id labels are kept (a push leaves them out: engines index
    // every label but span_id as a series, and a trace is found by its span).
    explicit PprofProfile(bool traceIds = true);

    // Interns a stack (leaf first); frames are read from `registry` on first sight.
    uint32_t internStack(std::span<const FrameId> frames, const FrameRegistry& registry);
    // Whether a <GC> frame is on the stack.
    bool stackHasGc(uint32_t stack) const { return stacks_[stack].gc; }
    void add(uint32_t stack, uint64_t threadId, ThreadState state, uint64_t count);

    // The kernel's name of a thread, written as its samples' thread_name label.
    void setThreadName(uint64_t threadId, std::string_view name);

    uint64_t totalSamples() const { return total_; }
    // Distinct label values past kMaxLabelValues of their key, folded into "other".
    uint64_t foldedLabelValues() const { return foldedLabelValues_; }
    bool empty() const { return total_ == 0; }

    // The serialized perftools.profiles.Profile message (not compressed).
    Result<std::string> encode(const ProfileHeader& header) const;

private:
    struct Stack {
        std::vector<FrameId> frames;     // the producer's ids, to tell stacks apart
        std::vector<uint64_t> locations; // location ids, leaf first
        uint32_t nextSameHash = UINT32_MAX;
        bool gc = false;
        int64_t waitTarget = 0; // its wait leaf's peer ("TCP 10.0.0.5:5432"), string index
        // Its --label-from labels (key, value; string indexes): pprof labels, not frames.
        std::vector<std::pair<int64_t, int64_t>> labels;
    };
    // A label frame's (key, value) string indexes; false for any other frame. At most
    // kMaxLabelValues distinct values per key, then "other" (foldedLabelValues counts them).
    bool labelOf(FrameId frame, const FrameRegistry& registry, std::pair<int64_t, int64_t>& out);
    static constexpr size_t kMaxLabelValues = 256;
    // span_id and trace_id name one span each (isPerRequestIdLabel): engines keep them
    // with the sample, so far more are kept, only to bound the profile's size.
    static constexpr size_t kMaxIdValues = 1 << 16;
    bool traceIds_ = true;
    std::unordered_map<std::string, std::unordered_map<std::string, int64_t>> labelValues_;
    std::unordered_map<std::string, int64_t> labelKeys_;
    uint64_t foldedLabelValues_ = 0;
    // The wait_target label of a stack whose leaf is an I/O wait with a peer
    // (--wait-reasons); at most kMaxWaitTargets distinct, then "other".
    int64_t waitTargetOf(FrameId leaf, const FrameRegistry& registry);
    static constexpr size_t kMaxWaitTargets = 64;
    std::unordered_map<std::string, int64_t> waitTargets_;
    int64_t waitTargetKey_ = 0; // "wait_target", interned with the first one
    struct SampleKey {
        uint64_t threadId;
        uint32_t stack;
        ThreadState state;
        bool operator==(const SampleKey&) const = default;
    };
    struct SampleKeyHash {
        size_t operator()(const SampleKey& k) const noexcept;
    };
    struct FunctionKey {
        int64_t name, file, startLine;
        bool operator==(const FunctionKey&) const = default;
    };
    struct FunctionKeyHash {
        size_t operator()(const FunctionKey& k) const noexcept;
    };
    struct Function {
        int64_t name, file, startLine;
    };
    struct Location {
        uint64_t function;
        int64_t line;
    };

    int64_t internString(std::string_view s);
    int64_t registryString(const FrameRegistry& registry, StringId id);
    uint64_t locationOf(FrameId id, const FrameRegistry& registry, bool& gc);

    int64_t stateNames_[kThreadStateCount] = {}; // ThreadState -> string index
    std::vector<std::string> strings_;           // the string table; [0] is ""
    std::unordered_map<std::string, int64_t> stringIds_;
    IdVector<StringId, int64_t> fromRegistryString_; // string index + 1 (0: not yet)
    std::vector<Function> functions_;                // id = index + 1
    std::unordered_map<FunctionKey, uint64_t, FunctionKeyHash> functionIds_;
    std::vector<Location> locations_;                    // id = index + 1
    std::unordered_map<uint64_t, uint64_t> locationIds_; // (function << 32 | line) -> id
    IdVector<FrameId, uint64_t> fromFrame_;              // location id (0: not yet)
    IdVector<FrameId, uint8_t> frameIsGc_;               // a <GC> frame
    // A stack's 64-bit hash -> its first stack with that hash (the rest chain through
    // nextSameHash): one pass over the frames per sample, then integer lookups.
    std::unordered_map<uint64_t, uint32_t> stackByHash_;
    std::vector<Stack> stacks_;
    std::unordered_map<SampleKey, uint64_t, SampleKeyHash> counts_;
    std::unordered_map<uint64_t, int64_t> threadNames_; // thread id -> string index
    uint64_t total_ = 0;
};

} // namespace gilscope::pprof
