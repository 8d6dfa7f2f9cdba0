#pragma once

#include "core/common/error.h"
#include "core/sample/sample_sink.h"
#include "core/tach/byte_window.h"
#include "core/tach/tach_info.h"
#include "core/tach/tach_tables.h"
#include "core/util/cancel.h"

#include <cstdint>
#include <unordered_map>
#include <utility>
#include <vector>

namespace gilscope::tach {

// Decodes the sample-record stream and rebuilds each (thread, interpreter)'s stack the
// way CPython's reader does, delivering one SampleBatch per full/suffix/pop-push
// record and one per same-status run inside a run-length record. Errors use CPython's
// wording and are reported where CPython's reader reports them.
class RecordReplayer {
public:
    RecordReplayer(ByteWindow& stream, const TachInfo& info, const TachTables& tables,
                   FrameRegistry& registry, std::vector<FrameId>& frameCache);

    Result<uint64_t> run(SampleSink& sink, const ProgressCallback& progress,
                         const CancelToken* cancel, TachRecordStats& stats);

    // Timestamps per batch never exceed this (CPython's writer emits at most ~8192 per
    // run-length record); longer same-status runs in hand-made files are split so
    // memory stays bounded.
    static constexpr size_t kMaxBatchTimestamps = 65536;

private:
    struct ThreadState {
        uint64_t threadId = 0;
        uint32_t interpreterId = 0;
        uint64_t prevTimestamp = 0;
        std::vector<uint32_t> stack; // file frame indices, leaf first
    };

    Result<ThreadState*> threadFor(uint64_t threadId, uint32_t interpreterId);
    Status replayRepeat(ThreadState& ts, TachRecordStats& stats, uint64_t& replayed,
                        const ProgressCallback& progress);
    Status replayStackRecord(uint8_t encoding, ThreadState& ts, TachRecordStats& stats);
    Status decodeFull(ThreadState& ts);
    Status decodeSuffix(ThreadState& ts);
    Status decodePopPush(ThreadState& ts);
    Status readFrameIndices(std::vector<uint32_t>& stack, size_t count);
    Status emit(const ThreadState& ts, uint8_t status);
    Status resolveStack(const ThreadState& ts);

    bool readVarint(uint64_t& out);
    bool readVarint32(uint32_t& out);
    uint64_t remaining() const { return info_.sampleDataBytes - stream_.consumed(); }

    ByteWindow& stream_;
    const TachInfo& info_;
    const TachTables& tables_;
    FrameRegistry& registry_;
    std::vector<FrameId>& frameCache_;
    SampleSink* sink_ = nullptr;
    Status streamError_; // an I/O or zstd error met while reading a varint

    std::vector<ThreadState> threads_;
    struct ThreadKeyHash {
        size_t operator()(const std::pair<uint64_t, uint32_t>& k) const noexcept {
            return std::hash<uint64_t>()(k.first * 0x9e3779b97f4a7c15ull ^ k.second);
        }
    };
    std::unordered_map<std::pair<uint64_t, uint32_t>, size_t, ThreadKeyHash> threadIndex_;
    std::vector<FrameId> frames_; // resolved stack of a batch
    std::vector<uint64_t> timestamps_;
    // A frame's wait reason when it is a wait leaf (WaitReason + 1), 0 when it is not,
    // -1 not looked at yet: the status byte has no room for it, the frames keep it.
    IdVector<FrameId, int8_t> waitOfFrame_;
};

} // namespace gilscope::tach
