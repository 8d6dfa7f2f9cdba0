#include "core/pstats/pstats_collector.h"

#include "core/pstats/marshal_writer.h"
#include "core/util/atomic_file.h"

namespace gilscope::pstats {

namespace {

// profiling.sampling's filter_internal_frames(): the profiler's own bootstrap frames.
bool isInternal(const std::string& file) {
    constexpr std::string_view suffix = "_sync_coordinator.py";
    return file.size() >= suffix.size() &&
           file.compare(file.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void writeKey(MarshalWriter& m, const PstatsCollector::Key& k) {
    m.tuple(3);
    m.str(k.file);
    m.integer(k.line);
    m.str(k.func);
}

} // namespace

size_t PstatsCollector::KeyHash::operator()(const Key& k) const noexcept {
    const size_t h = std::hash<std::string>()(k.file) * 31 + std::hash<std::string>()(k.func);
    return h * 131 + std::hash<int64_t>()(k.line);
}

void PstatsCollector::begin(const FrameRegistry& registry, const RecordingInfo& info) {
    registry_ = &registry;
    if (info.sampleIntervalUs) intervalUs_ = info.sampleIntervalUs;
    // Only 3.15's pstats knows the sampled marker; older ones fail on it (3.12: "cannot
    // unpack non-iterable bool object"), so the target's own Python decides.
    sampledMarker_ = info.pythonMajor > 3 || (info.pythonMajor == 3 && info.pythonMinor >= 15);
}

size_t PstatsCollector::indexOf(FrameId frame) {
    if (frameIndex_.contains(frame) && frameIndex_[frame]) return frameIndex_[frame] - 1;
    const FrameInfo& f = registry_->frame(frame);
    // extract_lineno(): a frame without a location counts as line 0.
    Key key{registry_->string(f.filename), f.line < 0 ? 0 : f.line, registry_->string(f.funcname)};
    auto [it, inserted] = index_.try_emplace(key, entries_.size());
    if (inserted) {
        entries_.push_back(Entry{std::move(key), 0, 0, {}});
        seenMark_.push_back(0);
    }
    frameIndex_.cover(frame, 0) = it->second + 1;
    return it->second;
}

void PstatsCollector::addBatch(const SampleBatch& batch) {
    if (!registry_) return;
    const uint64_t weight = batch.timestampsUs.size();
    seen_.clear();
    for (FrameId id : batch.frames)
        if (!isInternal(registry_->string(registry_->frame(id).filename)))
            seen_.push_back(indexOf(id));
    if (seen_.empty()) return;
    ++stackNo_;
    for (size_t idx : seen_)
        if (seenMark_[idx] != stackNo_) { // a recursive function counts once per stack
            seenMark_[idx] = stackNo_;
            entries_[idx].cumulative += weight;
        }
    entries_[seen_[0]].direct += weight;
    for (size_t i = 1; i < seen_.size(); ++i) {
        auto& callers = entries_[seen_[i - 1]].callers;
        bool found = false;
        for (auto& [caller, count] : callers)
            if (caller == seen_[i]) {
                count += weight;
                found = true;
                break;
            }
        if (!found) callers.emplace_back(seen_[i], weight);
    }
}

Status PstatsCollector::writeTo(const std::filesystem::path& path) const {
    auto file = AtomicFile::create(path);
    if (!file) return file.error();
    return writeTo(std::move(*file));
}

Status PstatsCollector::writeTo(AtomicFile file) const {
    // create_stats() + _dump_stats(): {key: (cc, nc, tt, ct, {caller: count})}, then,
    // for a 3.15 target, the ("__sampled__",): True marker that makes 3.15's pstats load
    // it as SampledStats.
    MarshalWriter m;
    m.beginDict();
    const double interval = intervalSec();
    for (const Entry& e : entries_) {
        writeKey(m, e.key);
        m.tuple(5);
        m.integer(static_cast<int64_t>(e.direct));
        m.integer(static_cast<int64_t>(e.cumulative));
        m.real(static_cast<double>(e.direct) * interval);
        m.real(static_cast<double>(e.cumulative) * interval);
        m.beginDict();
        for (const auto& [caller, count] : e.callers) {
            writeKey(m, entries_[caller].key);
            m.integer(static_cast<int64_t>(count));
        }
        m.endDict();
    }
    if (sampledMarker_) {
        m.tuple(1);
        m.str("__sampled__");
        m.boolean(true);
    }
    m.endDict();

    if (Status s = file.write(m.bytes()); !s) return s;
    return file.commit();
}

} // namespace gilscope::pstats
