#include "core/html/flame_recorder.h"

#include "core/html/flame_data.h"
#include "core/html/flame_page.h"
#include "core/util/python_version.h"

#include <algorithm>

namespace gilscope::html {

namespace {

std::string threadLabel(const ProfileThread& t) {
    std::string label = t.name.empty() ? "thread" : t.name;
    label += " (" + std::to_string(t.threadId) + (t.mainThread ? ", main)" : ")");
    return label;
}

} // namespace

Result<std::shared_ptr<const ProfileFile>> loadBaseline(const std::string& path,
                                                        std::optional<int> currentMode,
                                                        std::optional<int> currentFeatures) {
    auto loaded = loadProfileFile(path);
    if (!loaded) {
        Error e = loaded.error();
        e.message = "--diff-flamegraph: cannot read the baseline " + path + ": " + e.message;
        return e;
    }
    auto why = incomparableReason(loaded->info.mode, currentMode, StateFilter::All);
    if (!why) why = incomparableFeatures(loaded->info.captureFeatures, currentFeatures);
    if (why)
        return makeError(ErrorKind::BadArguments,
                         "--diff-flamegraph: cannot compare with the baseline " + path + ": " +
                             *why);
    return std::shared_ptr<const ProfileFile>(std::make_shared<ProfileFile>(std::move(*loaded)));
}

FlameRecorder::FlameRecorder(FlameRecorderOptions options) : options_(std::move(options)) {
}

void FlameRecorder::begin(const FrameRegistry& registry, const RecordingInfo& info) {
    info_ = info;
    model_.begin(registry, info);
}

void FlameRecorder::finish(const RecordingSummary& summary) {
    summary_ = summary;
    model_.finish(summary);
}

Result<std::string> FlameRecorder::page(const CancelToken* cancel) const {
    // The page shows the stacks as the transforms reshape them, on every tree.
    auto reshaped = [&](Result<std::shared_ptr<const ProfileSnapshot>> snap)
        -> Result<std::shared_ptr<const ProfileSnapshot>> {
        if (!snap) return snap.error();
        auto out = applyTransforms(*snap, options_.transforms, cancel);
        if (!out) return makeError(ErrorKind::Cancelled, "cancelled");
        return *out;
    };
    auto all = reshaped(model_.query({}, cancel));
    if (!all) return all.error();
    const ProfileSnapshot& s = **all;

    std::vector<FlameView> views{{"All threads", 0, *all}};
    const bool diff = options_.baseline != nullptr;
    if (!diff && s.threads.size() > 1) { // a comparison is of the whole recordings
        std::vector<const ProfileThread*> busiest;
        for (const ProfileThread& t : s.threads)
            busiest.push_back(&t);
        std::stable_sort(busiest.begin(), busiest.end(),
                         [](auto* a, auto* b) { return a->samples > b->samples; });
        if (busiest.size() > options_.maxThreadViews) busiest.resize(options_.maxThreadViews);
        for (const ProfileThread* t : busiest) {
            ProfileFilter one;
            one.threads = {t->threadId};
            auto snap = reshaped(model_.query(one, cancel));
            if (!snap) return snap.error();
            views.push_back({threadLabel(*t), t->threadId, *snap});
        }
    }

    FlameFacts facts;
    facts.title = diff ? "Differential flame graph" : "Flame graph";
    // A shared page says which view it shows.
    if (!options_.transforms.empty())
        facts.title += " (" + transformsLabel(options_.transforms) + ")";
    facts.target = !options_.target.empty() ? options_.target : "pid " + std::to_string(info_.pid);
    if (info_.pythonMajor)
        facts.python = PythonVersion{info_.pythonMajor, info_.pythonMinor, info_.pythonMicro}.str();
    const int mode = options_.mode.value_or(info_.mode);
    facts.mode = profilingModeName(mode >= 0 ? std::optional<int>(mode) : std::nullopt);
    facts.intervalUs = info_.sampleIntervalUs;
    facts.durationSec = summary_.durationSec > 0 ? summary_.durationSec
                                                 : (s.lastUs - s.originUs + s.intervalUs) / 1e6;
    facts.sampleRate = summary_.sampleRate;
    facts.samples = s.matchedSamples;
    facts.threads = s.threads.size();

    std::optional<FlameComparison> comparison;
    if (diff) {
        auto base = reshaped(options_.baseline->model->query({}, cancel));
        if (!base) return base.error();
        comparison = FlameComparison{options_.baselinePath, *base};
    }
    const std::string json = flameGraphJson(facts, views, comparison ? &*comparison : nullptr);
    return flameGraphPage(facts.title + " \u2013 " + facts.target, json);
}

Status FlameRecorder::writeTo(AtomicFile file, const CancelToken* cancel) const {
    auto text = page(cancel);
    if (!text) {
        file.discard();
        return text.error();
    }
    if (cancel && cancel->cancelled()) {
        file.discard();
        return makeError(ErrorKind::Cancelled, "aborted; no output written");
    }
    if (auto s = file.write(*text, cancel); !s) {
        file.discard();
        return s;
    }
    return file.commit();
}

} // namespace gilscope::html
