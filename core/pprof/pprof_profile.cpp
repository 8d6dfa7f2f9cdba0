#include "core/pprof/pprof_profile.h"

#include "core/pprof/profile.pb.h"
#include "core/sample/sample_label.h"
#include "core/sample/wait_reason.h"
#include "core/util/utf8.h"

#include <algorithm>

namespace gilscope::pprof {

namespace {

// The strings every profile names, interned first so their indexes are fixed.
enum FixedString : int64_t {
    kSamples = 1,
    kCount,
    kCpu,
    kWall,
    kNanoseconds,
    kThreadId,
    kThreadName,
    kThreadState,
    kPython,
};

// Multiply and fold: every input bit reaches the low bits the buckets are chosen by.
uint64_t mix(uint64_t h, uint64_t v) {
    h = (h ^ v) * 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 29);
}

// Two 32-bit ids per step: half the dependent multiplies of one per frame.
uint64_t stackHash(std::span<const FrameId> frames) {
    uint64_t h = frames.size();
    size_t i = 0;
    for (; i + 1 < frames.size(); i += 2)
        h = mix(h, uint64_t{frames[i].value()} << 32 | frames[i + 1].value());
    if (i < frames.size()) h = mix(h, frames[i].value());
    return h;
}

} // namespace

size_t PprofProfile::SampleKeyHash::operator()(const SampleKey& k) const noexcept {
    uint64_t h = mix(mix(1469598103934665603ull, k.threadId), k.stack);
    return static_cast<size_t>(mix(h, static_cast<uint64_t>(k.state)));
}

size_t PprofProfile::FunctionKeyHash::operator()(const FunctionKey& k) const noexcept {
    uint64_t h = mix(1469598103934665603ull, static_cast<uint64_t>(k.name));
    h = mix(h, static_cast<uint64_t>(k.file));
    return static_cast<size_t>(mix(h, static_cast<uint64_t>(k.startLine)));
}

PprofProfile::PprofProfile(bool traceIds) : traceIds_(traceIds) {
    for (std::string_view s : {"", "samples", "count", "cpu", "wall", "nanoseconds", "thread_id",
                               "thread_name", "thread_state", "python"})
        internString(s);
    // "cpu" is a sample type too: each state keeps the index it got.
    for (int s = 1; s < kThreadStateCount; ++s)
        stateNames_[s] = internString(threadStateName(static_cast<ThreadState>(s)));
}

int64_t PprofProfile::internString(std::string_view s) {
    auto it = stringIds_.find(std::string(s));
    if (it != stringIds_.end()) return it->second;
    const auto id = static_cast<int64_t>(strings_.size());
    strings_.emplace_back(s);
    stringIds_.emplace(strings_.back(), id);
    return id;
}

int64_t PprofProfile::registryString(const FrameRegistry& registry, StringId id) {
    int64_t& cached = fromRegistryString_.cover(id, 0);
    // Engines take UTF-8 only (Pyroscope refuses a profile otherwise).
    if (cached == 0) cached = internString(sanitizeUtf8(registry.string(id))) + 1;
    return cached - 1;
}

uint64_t PprofProfile::locationOf(FrameId id, const FrameRegistry& registry, bool& gc) {
    if (fromFrame_.cover(id, 0) != 0) {
        gc = gc || frameIsGc_[id];
        return fromFrame_[id];
    }
    const FrameInfo& frame = registry.frame(id);
    // start_line is co_firstlineno where the reader knew it; 0 (unknown) from a .bin.
    const FunctionKey key{registryString(registry, frame.funcname),
                          registryString(registry, frame.filename),
                          std::max<int64_t>(frame.firstLine, 0)};
    auto [fn, newFunction] = functionIds_.try_emplace(key, functions_.size() + 1);
    if (newFunction) functions_.push_back({key.name, key.file, key.startLine});
    // One location per function line: frames that differ only in column or opcode share it.
    const int64_t line = std::max<int64_t>(frame.line, 0);
    const uint64_t locationKey = (fn->second << 32) | static_cast<uint32_t>(line);
    auto [loc, newLocation] = locationIds_.try_emplace(locationKey, locations_.size() + 1);
    if (newLocation) locations_.push_back({fn->second, line});
    fromFrame_[id] = loc->second;
    frameIsGc_.cover(id, 0) = registry.string(frame.funcname) == "<GC>";
    gc = gc || frameIsGc_[id];
    return loc->second;
}

uint32_t PprofProfile::internStack(std::span<const FrameId> frames, const FrameRegistry& registry) {
    const auto index = static_cast<uint32_t>(stacks_.size());
    auto [first, added] = stackByHash_.try_emplace(stackHash(frames), index);
    uint32_t last = UINT32_MAX; // the end of the chain of stacks with this hash
    if (!added) {
        for (uint32_t at = first->second; at != UINT32_MAX; at = stacks_[at].nextSameHash) {
            const std::vector<FrameId>& known = stacks_[at].frames;
            if (std::equal(known.begin(), known.end(), frames.begin(), frames.end())) return at;
            last = at;
        }
    }
    Stack stack;
    stack.frames.assign(frames.begin(), frames.end());
    stack.locations.reserve(frames.size());
    std::pair<int64_t, int64_t> label;
    for (FrameId id : frames) {
        if (!registry.has(id)) continue;
        if (labelOf(id, registry, label)) {
            if (label.first != 0) stack.labels.push_back(label);
        } else
            stack.locations.push_back(locationOf(id, registry, stack.gc));
    }
    if (!frames.empty() && registry.has(frames.front()))
        stack.waitTarget = waitTargetOf(frames.front(), registry);
    stacks_.push_back(std::move(stack));
    if (last != UINT32_MAX) stacks_[last].nextSameHash = index;
    return index;
}

int64_t PprofProfile::waitTargetOf(FrameId leaf, const FrameRegistry& registry) {
    const FrameInfo& f = registry.frame(leaf);
    const std::string_view name = registry.string(f.funcname);
    const auto reason = waitReasonOfFrame(registry.string(f.filename), name);
    if (!reason || waitKindOf(*reason) != WaitKind::Io) return 0;
    const size_t space = name.find(' ');
    if (space == std::string_view::npos) return 0; // "<read>": no peer known
    std::string target(name.substr(space + 1, name.size() - space - 2));
    if (waitTargetKey_ == 0) waitTargetKey_ = internString("wait_target");
    if (auto it = waitTargets_.find(target); it != waitTargets_.end()) return it->second;
    // Bounded cardinality: engines index every label value.
    if (waitTargets_.size() >= kMaxWaitTargets) target = "other";
    return waitTargets_.try_emplace(target, internString(target)).first->second;
}

bool PprofProfile::labelOf(FrameId frame, const FrameRegistry& registry,
                           std::pair<int64_t, int64_t>& out) {
    const FrameInfo& f = registry.frame(frame);
    const auto label = labelOfFrame(registry.string(f.filename), registry.string(f.funcname));
    if (!label) return false;
    const std::string key(label->key);
    if (!traceIds_ && key == kTraceIdLabel) { // not a location either
        out = {0, 0};
        return true;
    }
    auto k = labelKeys_.find(key);
    if (k == labelKeys_.end()) k = labelKeys_.emplace(key, internString(key)).first;
    auto& values = labelValues_[key];
    std::string value(label->value);
    auto v = values.find(value);
    if (v == values.end()) {
        // Bounded cardinality: engines index every label value.
        if (values.size() >= (isPerRequestIdLabel(key) ? kMaxIdValues : kMaxLabelValues)) {
            ++foldedLabelValues_;
            value = "other";
            v = values.find(value);
        }
        if (v == values.end()) v = values.emplace(value, internString(value)).first;
    }
    out = {k->second, v->second};
    return true;
}

void PprofProfile::add(uint32_t stack, uint64_t threadId, ThreadState state, uint64_t count) {
    counts_[SampleKey{threadId, stack, state}] += count;
    total_ += count;
}

void PprofProfile::setThreadName(uint64_t threadId, std::string_view name) {
    threadNames_[threadId] = internString(sanitizeUtf8(name));
}

Result<std::string> PprofProfile::encode(const ProfileHeader& header) const {
    perftools::profiles::Profile p;
    auto* strings = p.mutable_string_table();
    strings->Reserve(static_cast<int>(strings_.size() + threadNames_.size()));
    for (const std::string& s : strings_)
        strings->Add(std::string(s));
    // Thread ids are string labels: Pyroscope keeps only those.
    std::unordered_map<uint64_t, int64_t> threadIdStrings;
    auto threadIdString = [&](uint64_t tid) {
        auto [it, added] = threadIdStrings.try_emplace(tid, strings->size());
        if (added) strings->Add(std::to_string(tid));
        return it->second;
    };

    const int64_t timeType = header.wall ? kWall : kCpu;
    auto* counted = p.add_sample_type();
    counted->set_type(kSamples);
    counted->set_unit(kCount);
    auto* timed = p.add_sample_type();
    timed->set_type(timeType);
    timed->set_unit(kNanoseconds);
    p.mutable_period_type()->set_type(timeType);
    p.mutable_period_type()->set_unit(kNanoseconds);
    p.set_period(header.periodNs);
    p.set_time_nanos(header.timeNanos);
    p.set_duration_nanos(header.durationNs);
    for (const std::string& c : header.comments) {
        p.add_comment(strings->size());
        strings->Add(std::string(c));
    }

    p.mutable_function()->Reserve(static_cast<int>(functions_.size()));
    for (size_t i = 0; i < functions_.size(); ++i) {
        auto* f = p.add_function();
        f->set_id(i + 1);
        // No system_name: Python has no mangled names, and go tool pprof would "demangle"
        // one like <module> or <lambda> into an empty name (it strips <...> as C++
        // template parameters).
        f->set_name(functions_[i].name);
        f->set_filename(functions_[i].file);
        f->set_start_line(functions_[i].startLine);
    }
    // One mapping that says its functions are known, so no tool tries to symbolize them.
    auto* mapping = p.add_mapping();
    mapping->set_id(1);
    mapping->set_filename(kPython);
    mapping->set_has_functions(true);
    mapping->set_has_filenames(true);
    mapping->set_has_line_numbers(true);
    p.mutable_location()->Reserve(static_cast<int>(locations_.size()));
    for (size_t i = 0; i < locations_.size(); ++i) {
        auto* l = p.add_location();
        l->set_id(i + 1);
        l->set_mapping_id(1);
        auto* line = l->add_line();
        line->set_function_id(locations_[i].function);
        line->set_line(locations_[i].line);
    }

    // Samples in a stable order (thread, stack, state), so equal input gives equal bytes.
    std::vector<std::pair<SampleKey, uint64_t>> samples(counts_.begin(), counts_.end());
    std::sort(samples.begin(), samples.end(), [](const auto& a, const auto& b) {
        const SampleKey &x = a.first, &y = b.first;
        if (x.threadId != y.threadId) return x.threadId < y.threadId;
        if (x.stack != y.stack) return x.stack < y.stack;
        return x.state < y.state;
    });
    // Over the receiver's bound on samples (Pyroscope's default is 16,000): the threads
    // are merged, keeping stacks and states, rather than the profile being refused.
    constexpr uint64_t kMergedThreads = UINT64_MAX;
    if (header.maxSamples > 0 && samples.size() > header.maxSamples) {
        for (auto& sample : samples)
            sample.first.threadId = kMergedThreads;
        std::sort(samples.begin(), samples.end(), [](const auto& a, const auto& b) {
            const SampleKey &x = a.first, &y = b.first;
            return x.stack != y.stack ? x.stack < y.stack : x.state < y.state;
        });
        size_t kept = 0;
        for (size_t i = 0; i < samples.size(); ++i) {
            if (kept > 0 && samples[kept - 1].first == samples[i].first)
                samples[kept - 1].second += samples[i].second;
            else
                samples[kept++] = samples[i];
        }
        samples.resize(kept);
    }
    p.mutable_sample()->Reserve(static_cast<int>(samples.size()));
    for (const auto& [key, count] : samples) {
        auto* s = p.add_sample();
        const Stack& stack = stacks_[key.stack];
        s->mutable_location_id()->Add(stack.locations.begin(), stack.locations.end());
        s->add_value(static_cast<int64_t>(count));
        s->add_value(static_cast<int64_t>(count) * header.periodNs);
        if (key.threadId != kMergedThreads) {
            auto* id = s->add_label();
            id->set_key(kThreadId);
            id->set_str(threadIdString(key.threadId));
        }
        if (auto name = threadNames_.find(key.threadId); name != threadNames_.end()) {
            auto* l = s->add_label();
            l->set_key(kThreadName);
            l->set_str(name->second);
        }
        if (key.state != ThreadState::Unknown) {
            auto* l = s->add_label();
            l->set_key(kThreadState);
            l->set_str(stateNames_[static_cast<int>(key.state)]);
        }
        if (stack.waitTarget != 0) {
            auto* l = s->add_label();
            l->set_key(waitTargetKey_);
            l->set_str(stack.waitTarget);
        }
        for (const auto& [labelKey, labelValue] : stack.labels) {
            auto* l = s->add_label();
            l->set_key(labelKey);
            l->set_str(labelValue);
        }
    }
    std::string out;
    if (!p.SerializeToString(&out))
        return makeError(ErrorKind::Internal, "cannot encode the pprof profile");
    return out;
}

} // namespace gilscope::pprof
