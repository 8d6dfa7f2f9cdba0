#include "core/tach/record_replayer.h"

#include "core/sample/wait_reason.h"
#include "core/tach/file_io.h"
#include "core/tach/tach_format.h"
#include "core/tach/varint.h"

#include <algorithm>
#include <cstring>

namespace gilscope::tach {
namespace {

constexpr uint64_t kProgressInterval = 1000; // CPython's PROGRESS_CALLBACK_INTERVAL
constexpr FrameId kUnresolved{UINT32_MAX};
constexpr uint64_t kCancelCheckRecords = 4096;
const char* const kBadVarint = "Invalid or incomplete varint in binary data";

// Moves stack[from, from+count) to stack[to, to+count) and makes the stack
// to+count deep; the caller then fills stack[0, to) with the new frames.
void moveBottomFrames(std::vector<uint32_t>& stack, size_t from, size_t to, size_t count) {
    const size_t depth = to + count;
    if (depth > stack.size()) stack.resize(depth);
    if (count > 0) std::memmove(stack.data() + to, stack.data() + from, count * sizeof(uint32_t));
    stack.resize(depth);
}

} // namespace

RecordReplayer::RecordReplayer(ByteWindow& stream, const TachInfo& info, const TachTables& tables,
                               FrameRegistry& registry, std::vector<FrameId>& frameCache)
    : stream_(stream), info_(info), tables_(tables), registry_(registry), frameCache_(frameCache) {
}

bool RecordReplayer::readVarint(uint64_t& out) {
    auto avail = stream_.ensure(kMaxVarintSize);
    if (!avail) {
        streamError_ = avail.error();
        return false;
    }
    const size_t n = decodeVarint(stream_.data(), stream_.data() + *avail, out);
    stream_.consume(n);
    return n != 0;
}

bool RecordReplayer::readVarint32(uint32_t& out) {
    auto avail = stream_.ensure(kMaxVarintSize);
    if (!avail) {
        streamError_ = avail.error();
        return false;
    }
    const size_t n = decodeVarint32(stream_.data(), stream_.data() + *avail, out);
    stream_.consume(n);
    return n != 0;
}

Result<RecordReplayer::ThreadState*> RecordReplayer::threadFor(uint64_t threadId,
                                                               uint32_t interpreterId) {
    const auto key = std::make_pair(threadId, interpreterId);
    if (auto it = threadIndex_.find(key); it != threadIndex_.end()) return &threads_[it->second];
    if (threads_.size() >= info_.threadCount) {
        return corrupt(format(
            "Invalid thread count: sample data contains more unique threads than declared in "
            "header (declared %u, found at least %zu)",
            info_.threadCount, threads_.size() + 1));
    }
    threadIndex_.emplace(key, threads_.size());
    ThreadState& ts = threads_.emplace_back();
    ts.threadId = threadId;
    ts.interpreterId = interpreterId;
    ts.prevTimestamp = info_.startTimeUs;
    return &ts;
}

Status RecordReplayer::resolveStack(const ThreadState& ts) {
    frames_.clear();
    for (uint32_t index : ts.stack) {
        if (index >= tables_.frames.size())
            return corrupt(format("Invalid frame index: %u", index));
        FrameId& id = frameCache_[index];
        if (id == kUnresolved) {
            const StoredFrame& f = tables_.frames[index];
            if (f.filename >= tables_.strings.size() || f.funcname >= tables_.strings.size())
                return corrupt("Invalid string index in frame");
            FrameInfo info;
            info.filename = tables_.strings[f.filename];
            info.funcname = tables_.strings[f.funcname];
            info.line = f.line;
            info.endLine = f.endLine;
            info.column = f.column;
            info.endColumn = f.endColumn;
            info.opcode = f.opcode;
            info.native =
                info_.nativeFrames && looksLikeNativeFrame(registry_.string(info.filename),
                                                           registry_.string(info.funcname), f.line);
            id = registry_.internFrame(info);
        }
        frames_.push_back(id);
    }
    return {};
}

Status RecordReplayer::emit(const ThreadState& ts, uint8_t status) {
    if (auto s = resolveStack(ts); !s) return s;
    SampleBatch batch;
    batch.threadId = ts.threadId;
    batch.interpreterId = ts.interpreterId;
    batch.status = status;
    if (!frames_.empty()) {
        const FrameId leaf = frames_.front();
        if (waitOfFrame_.cover(leaf, -1) < 0) {
            const FrameInfo& f = registry_.frame(leaf);
            const auto reason =
                waitReasonOfFrame(registry_.string(f.filename), registry_.string(f.funcname));
            waitOfFrame_[leaf] = reason ? int8_t(int(*reason) + 1) : 0;
        }
        if (waitOfFrame_[leaf] > 0)
            batch.status = withWaitReason(status, WaitReason(waitOfFrame_[leaf] - 1));
    }
    batch.frames = frames_;
    batch.timestampsUs = timestamps_;
    sink_->addBatch(batch);
    return {};
}

Status RecordReplayer::readFrameIndices(std::vector<uint32_t>& stack, size_t count) {
    for (size_t i = 0; i < count; ++i) {
        if (!readVarint32(stack[i]))
            return streamError_.ok() ? Status(corrupt(kBadVarint)) : streamError_;
    }
    return {};
}

Status RecordReplayer::decodeFull(ThreadState& ts) {
    uint32_t depth = 0;
    if (!readVarint32(depth)) return streamError_.ok() ? Status(corrupt(kBadVarint)) : streamError_;
    if (depth > kMaxStackDepth)
        return corrupt(format("Stack depth %u exceeds capacity %zu", depth, kMaxStackDepth));
    ts.stack.resize(depth);
    return readFrameIndices(ts.stack, depth);
}

Status RecordReplayer::decodeSuffix(ThreadState& ts) {
    uint32_t shared = 0, added = 0;
    if (!readVarint32(shared) || !readVarint32(added))
        return streamError_.ok() ? Status(corrupt(kBadVarint)) : streamError_;
    if (shared > ts.stack.size())
        return corrupt(
            format("Shared count %u exceeds current stack depth %zu", shared, ts.stack.size()));
    const size_t finalDepth = size_t{shared} + added;
    if (finalDepth > kMaxStackDepth)
        return corrupt(
            format("Final stack depth %zu exceeds capacity %zu", finalDepth, kMaxStackDepth));
    // Keep the bottom `shared` frames, make room for the new ones at the top (index 0).
    moveBottomFrames(ts.stack, ts.stack.size() - shared, added, shared);
    return readFrameIndices(ts.stack, added);
}

Status RecordReplayer::decodePopPush(ThreadState& ts) {
    uint32_t pop = 0, push = 0;
    if (!readVarint32(pop) || !readVarint32(push))
        return streamError_.ok() ? Status(corrupt(kBadVarint)) : streamError_;
    const size_t keep = ts.stack.size() > pop ? ts.stack.size() - pop : 0;
    const size_t finalDepth = keep + push;
    if (finalDepth > kMaxStackDepth)
        return corrupt(
            format("Final stack depth %zu exceeds capacity %zu", finalDepth, kMaxStackDepth));
    moveBottomFrames(ts.stack, pop, push, keep);
    return readFrameIndices(ts.stack, push);
}

Status RecordReplayer::replayStackRecord(uint8_t encoding, ThreadState& ts,
                                         TachRecordStats& stats) {
    uint64_t delta = 0;
    if (!readVarint(delta))
        return streamError_.ok() ? Status(corrupt("Malformed varint in sample data"))
                                 : streamError_;
    auto avail = stream_.ensure(1);
    if (!avail) return avail.error();
    if (*avail < 1) return corrupt("Unexpected end of sample data");
    const uint8_t status = stream_.data()[0];
    stream_.consume(1);
    ts.prevTimestamp += delta;

    Status decoded;
    switch (static_cast<Encoding>(encoding)) {
    case Encoding::Full:
        decoded = decodeFull(ts);
        break;
    case Encoding::Suffix:
        decoded = decodeSuffix(ts);
        break;
    default:
        decoded = decodePopPush(ts);
        break;
    }
    if (!decoded) return decoded;
    if (encoding == static_cast<uint8_t>(Encoding::Full))
        ++stats.fullRecords;
    else if (encoding == static_cast<uint8_t>(Encoding::Suffix))
        ++stats.suffixRecords;
    else
        ++stats.popPushRecords;
    ++stats.stackReconstructions;

    timestamps_.assign(1, ts.prevTimestamp);
    if (auto s = emit(ts, status); !s) return s;
    ++stats.totalSamples;
    return {};
}

Status RecordReplayer::replayRepeat(ThreadState& ts, TachRecordStats& stats, uint64_t& replayed,
                                    const ProgressCallback& progress) {
    uint32_t count = 0;
    if (!readVarint32(count))
        return streamError_.ok() ? Status(corrupt("Malformed varint for RLE count")) : streamError_;
    // Each entry needs at least a one-byte delta and a status byte.
    const uint64_t maxPossible = remaining() / 2;
    if (count > maxPossible)
        return corrupt(format("Invalid RLE count %u exceeds maximum possible %zu", count,
                              static_cast<size_t>(maxPossible)));
    ++stats.repeatRecords;
    stats.repeatSamples += count;

    timestamps_.clear();
    uint8_t batchStatus = 0;
    for (uint32_t i = 0; i < count; ++i) {
        uint64_t delta = 0;
        if (!readVarint(delta))
            return streamError_.ok() ? Status(corrupt("Malformed varint in RLE sample data"))
                                     : streamError_;
        auto avail = stream_.ensure(1);
        if (!avail) return avail.error();
        if (*avail < 1) return corrupt("Unexpected end of sample data in RLE");
        const uint8_t status = stream_.data()[0];
        stream_.consume(1);
        ts.prevTimestamp += delta;
        const bool statusChanged = i > 0 && status != batchStatus;
        if ((statusChanged || timestamps_.size() == kMaxBatchTimestamps) && !timestamps_.empty()) {
            if (auto s = emit(ts, batchStatus); !s) return s;
            timestamps_.clear();
        }
        batchStatus = status;
        timestamps_.push_back(ts.prevTimestamp);
    }
    if (!timestamps_.empty()) {
        if (auto s = emit(ts, batchStatus); !s) return s;
    }
    replayed += count;
    stats.totalSamples += count;
    if (progress && replayed % kProgressInterval < count) progress(replayed, info_.sampleCount);
    return {};
}

Result<uint64_t> RecordReplayer::run(SampleSink& sink, const ProgressCallback& progress,
                                     const CancelToken* cancel, TachRecordStats& stats) {
    sink_ = &sink;
    frameCache_.assign(tables_.frames.size(), kUnresolved);
    uint64_t replayed = 0;
    uint64_t records = 0;
    if (progress) progress(0, info_.sampleCount);

    while (stream_.consumed() < info_.sampleDataBytes) {
        if (cancel && ++records % kCancelCheckRecords == 0 && cancel->cancelled())
            return makeError(ErrorKind::Cancelled, "replay cancelled");
        const uint64_t left = remaining();
        auto avail = stream_.ensure(kRecordHeaderSize);
        if (!avail) return avail.error();
        if (left < kRecordHeaderSize || *avail < kRecordHeaderSize)
            return corrupt(
                format("Truncated sample data: %zu trailing bytes", static_cast<size_t>(left)));
        const uint8_t* h = stream_.data();
        const uint64_t threadId = loadInt<uint64_t>(h, info_.byteSwapped);
        const uint32_t interpreterId = loadInt<uint32_t>(h + 8, info_.byteSwapped);
        const uint8_t encoding = h[12];
        stream_.consume(kRecordHeaderSize);

        auto ts = threadFor(threadId, interpreterId);
        if (!ts) return ts.error();
        if (encoding == static_cast<uint8_t>(Encoding::Repeat)) {
            if (auto s = replayRepeat(**ts, stats, replayed, progress); !s) return s.error();
        } else if (encoding <= static_cast<uint8_t>(Encoding::PopPush)) {
            if (auto s = replayStackRecord(encoding, **ts, stats); !s) return s.error();
            ++replayed;
        } else {
            return corrupt(format("Unknown stack encoding: %u", encoding));
        }
        if (progress && replayed % kProgressInterval == 0) progress(replayed, info_.sampleCount);
    }
    if (progress) progress(replayed, info_.sampleCount);
    if (replayed != info_.sampleCount) {
        return corrupt(
            format("Sample count mismatch: header declares %llu samples but replay decoded %llu",
                   static_cast<unsigned long long>(info_.sampleCount),
                   static_cast<unsigned long long>(replayed)));
    }
    return replayed;
}

} // namespace gilscope::tach
