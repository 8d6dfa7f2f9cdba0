#include "core/tach/tach_writer.h"

#include "core/tach/tach_writer_impl.h"
#include "core/tach/thread_names_file.h"

#include "core/tach/file_io.h"
#include "core/tach/record_stream.h"
#include "core/tach/tach_format.h"
#include "core/tach/varint.h"
#include "core/util/atomic_file.h"

#include <algorithm>
#include <cstring>
#include <unordered_map>
#include <utility>

namespace gilscope {

using namespace tach;

uint32_t TachWriter::Impl::internString(StringId id) {
    uint32_t& index = stringIndex.cover(id, kUnmapped);
    if (index == kUnmapped) {
        index = static_cast<uint32_t>(fileStrings.size());
        fileStrings.push_back(id);
    }
    return index;
}

uint32_t TachWriter::Impl::internFrame(FrameId id) {
    if (frameIndex.cover(id, kUnmapped) == kUnmapped) {
        const FrameInfo& f = registry->frame(id);
        internString(f.filename); // CPython's order: filename, funcname, then the frame
        internString(f.funcname);
        frameIndex[id] = static_cast<uint32_t>(fileFrames.size());
        fileFrames.push_back(id);
    }
    return frameIndex[id];
}

ThreadEntry& TachWriter::Impl::thread(uint64_t threadId, uint32_t interpreterId) {
    const auto key = std::make_pair(threadId, interpreterId);
    if (auto it = threadIndex.find(key); it != threadIndex.end()) return threads[it->second];
    threadIndex.emplace(key, threads.size());
    ThreadEntry& t = threads.emplace_back();
    t.threadId = threadId;
    t.interpreterId = interpreterId;
    t.prevTimestamp = options.startTimeUs.value_or(info.startTimeUs);
    return t;
}

uint8_t* TachWriter::Impl::reserve(size_t size) {
    auto p = out->reserve(size);
    if (!p) {
        fail(p.error());
        return nullptr;
    }
    return *p;
}

static size_t putRecordHeader(uint8_t* p, uint64_t threadId, uint32_t interpreterId,
                              Encoding encoding) {
    storeLe<uint64_t>(p, threadId);
    storeLe<uint32_t>(p + 8, interpreterId);
    p[12] = static_cast<uint8_t>(encoding);
    return kRecordHeaderSize;
}

void TachWriter::Impl::flushPending(ThreadEntry& t) {
    if (t.pendingCount == 0) return;
    const size_t size = kRecordHeaderSize + kMaxVarintSize + t.pending.size();
    uint8_t* p = reserve(size);
    if (!p) return;
    size_t n = putRecordHeader(p, t.threadId, t.interpreterId, Encoding::Repeat);
    n += encodeVarint(t.pendingCount, p + n);
    std::memcpy(p + n, t.pending.data(), t.pending.size());
    n += t.pending.size();
    out->commit(n);
    stats.bytesWritten += n;
    ++stats.repeatRecords;
    stats.repeatSamples += t.pendingCount;
    stats.framesSaved += uint64_t{t.pendingCount} * t.prevStack.size();
    t.pending.clear();
    t.pendingCount = 0;
}

void TachWriter::Impl::writeStackRecord(ThreadEntry& t, uint8_t status, uint64_t delta) {
    const size_t prevDepth = t.prevStack.size(), depth = current.size();
    size_t shared = 0; // common bottom (outermost) frames
    while (shared < prevDepth && shared < depth &&
           t.prevStack[prevDepth - 1 - shared] == current[depth - 1 - shared])
        ++shared;
    const size_t pop = prevDepth - shared, push = depth - shared;
    Encoding encoding;
    if (shared == 0)
        encoding = Encoding::Full;
    else if (pop == 0 && push > 0)
        encoding = Encoding::Suffix;
    else if (shared < depth / 2)
        encoding = Encoding::Full;
    else
        encoding = Encoding::PopPush;

    const size_t newFrames = encoding == Encoding::Full ? depth : push;
    uint8_t* p = reserve(kRecordHeaderSize + 4 * kMaxVarintSize + 1 + newFrames * 5);
    if (!p) return;
    size_t n = putRecordHeader(p, t.threadId, t.interpreterId, encoding);
    n += encodeVarint(delta, p + n);
    p[n++] = status;
    switch (encoding) {
    case Encoding::Full:
        n += encodeVarint(depth, p + n);
        ++stats.fullRecords;
        stats.totalFramesWritten += depth;
        break;
    case Encoding::Suffix:
        n += encodeVarint(shared, p + n);
        n += encodeVarint(push, p + n);
        ++stats.suffixRecords;
        stats.totalFramesWritten += push;
        stats.framesSaved += shared;
        break;
    default:
        n += encodeVarint(pop, p + n);
        n += encodeVarint(push, p + n);
        ++stats.popPushRecords;
        stats.totalFramesWritten += push;
        stats.framesSaved += shared;
        break;
    }
    for (size_t i = 0; i < newFrames; ++i)
        n += encodeVarint(current[i], p + n);
    out->commit(n);
    stats.bytesWritten += n;
    t.prevStack = current;
}

void TachWriter::Impl::sample(ThreadEntry& t, uint8_t status, uint64_t timestampUs,
                              bool stackKnownSame) {
    const uint64_t delta = timestampUs - t.prevTimestamp; // wraps like CPython's u64
    if (stackKnownSame || current == t.prevStack) {
        if (t.pending.size() + kMaxVarintSize + 1 > kRleBufferSize) flushPending(t);
        uint8_t entry[kMaxVarintSize + 1];
        size_t n = encodeVarint(delta, entry);
        entry[n++] = status;
        t.pending.insert(t.pending.end(), entry, entry + n);
        ++t.pendingCount;
    } else {
        flushPending(t);
        writeStackRecord(t, status, delta);
    }
    t.prevTimestamp = timestampUs;
    ++stats.totalSamples;
}

TachWriter::TachWriter(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {
}
TachWriter::~TachWriter() = default;

Result<std::unique_ptr<TachWriter>> TachWriter::create(const std::filesystem::path& destination,
                                                       TachWriterOptions options) {
    auto file = AtomicFile::create(destination, {.needsSeek = true}); // the header is patched last
    if (!file) return file.error();
    return create(std::move(file.value()), std::move(options));
}

Result<std::unique_ptr<TachWriter>> TachWriter::create(AtomicFile file, TachWriterOptions options) {
    auto impl = std::make_unique<Impl>();
    impl->options = std::move(options);
    impl->out.emplace(std::move(file), impl->options.compression == TachCompression::Zstd);
    const uint8_t placeholder[kHeaderSize] = {}; // patched by finalize()
    if (auto s = impl->out->writeRaw(placeholder, sizeof placeholder); !s) return s.error();
    return std::unique_ptr<TachWriter>(new TachWriter(std::move(impl)));
}

void TachWriter::begin(const FrameRegistry& registry, const RecordingInfo& info) {
    impl_->registry = &registry;
    impl_->info = info;
}

void TachWriter::addBatch(const SampleBatch& batch) {
    Impl& w = *impl_;
    if (w.error) return;
    if (w.finalized)
        return w.fail(makeError(ErrorKind::Internal, "TachWriter: addBatch() after finalize()"));
    if (!w.registry)
        return w.fail(makeError(ErrorKind::Internal, "TachWriter: addBatch() before begin()"));
    if (batch.timestampsUs.empty()) return;
    ThreadEntry& t = w.thread(batch.threadId, batch.interpreterId);
    const size_t depth = std::min(batch.frames.size(), kMaxStackDepth);
    w.current.resize(depth);
    for (size_t i = 0; i < depth; ++i)
        w.current[i] = w.internFrame(batch.frames[i]);
    const auto status = static_cast<uint8_t>(batch.status & 0xFF);
    // Later timestamps of a batch share its stack: they are run-length entries.
    for (size_t i = 0; i < batch.timestampsUs.size() && !w.error; ++i)
        w.sample(t, status, batch.timestampsUs[i], i > 0);
}

void TachWriter::nameThread(uint64_t threadId, const std::string& name) {
    auto& names = impl_->threadNames;
    if (names.size() < kMaxNamedThreads || names.count(threadId)) names[threadId] = name;
}

void TachWriter::addMarker(uint64_t timestampUs, const std::string& text) {
    auto& markers = impl_->markers;
    if (markers.size() >= kMaxSideMarkers) return;
    size_t cut = std::min(text.size(), kMaxMarkerText);
    while (cut < text.size() && cut > 0 && (uint8_t(text[cut]) & 0xC0) == 0x80)
        --cut; // not inside a UTF-8 sequence
    markers.emplace_back(timestampUs, text.substr(0, cut));
}

void TachWriter::addCounters(const ProcessCounters& reading) {
    impl_->counters.add(reading);
}

void TachWriter::finish(const RecordingSummary& summary) {
    if (summary.durationSec != 0 || summary.sampleRate != 0 || summary.hasErrorRate ||
        summary.hasMissed)
        impl_->summary = summary;
}

bool TachWriter::failed() const {
    return impl_->error.has_value();
}
Error TachWriter::sinkError() const {
    return impl_->error.value_or(Error{});
}

uint64_t TachWriter::totalSamples() const {
    return impl_->stats.totalSamples;
}
const TachRecordStats& TachWriter::stats() const {
    return impl_->stats;
}

} // namespace gilscope
