#include "app/commands/heatmap_output.h"
#include "core/util/guarded_thread.h"

#include "core/analysis/profile_model.h"
#include "core/heatmap/heatmap_writer.h"
#include "core/util/atomic_folder.h"
#include "core/util/utf8.h"

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>

namespace gilscope::cli {

namespace {

namespace fs = std::filesystem;

const char* modeName(int mode) {
    switch (static_cast<ProfilingMode>(mode)) {
    case ProfilingMode::Wall:
        return "wall";
    case ProfilingMode::Cpu:
        return "cpu";
    case ProfilingMode::Gil:
        return "gil";
    case ProfilingMode::All:
        return "all";
    case ProfilingMode::Exception:
        return "exception";
    case ProfilingMode::Unknown:
        break;
    }
    return "";
}

class HeatmapOutput final : public RecordingOutput {
public:
    HeatmapOutput(AtomicFolder folder, const RecordingFacts& facts)
        : folder_(std::move(folder)), facts_(facts), sources_(facts.process) {
        if (facts.process)
            prefetch_ = std::jthread(guardedThreadBody(
                "the heatmap's source prefetch", [this](std::stop_token stop) { run(stop); }));
    }
    ~HeatmapOutput() override { stopPrefetch(); }

    SampleSink& sink() override { return model_; }
    Status write(const CancelToken& cancel) override {
        stopPrefetch();
        if (cancel.cancelled())
            return makeError(ErrorKind::Cancelled, "aborted; no output written");
        auto snapshot = model_.query({}, &cancel);
        if (!snapshot) return snapshot.error();
        const ProfileSnapshot& s = **snapshot;
        heatmap::HeatmapSummary summary;
        summary.target = facts_.target;
        summary.samples = s.matchedSamples;
        summary.intervalUs = s.intervalUs ? s.intervalUs : facts_.intervalUs;
        summary.durationSec = s.lastUs > s.originUs ? double(s.lastUs - s.originUs) / 1e6 : 0;
        summary.mode = modeName(facts_.mode.value_or(s.recordedMode));
        auto written = heatmap::writeHeatmap(s, sources_, summary, folder_, &cancel);
        if (!written) return written.error();
        files_ = *written;
        return folder_.commit();
    }
    std::string writtenMessage() const override {
        const std::string dir = escapeForDisplay(folder_.destination().string());
        return "Heatmap output written to " + dir + "/\n  - Index: " + dir + "/index.html\n  - " +
               std::to_string(files_) + " source file" + (files_ == 1 ? "" : "s") + " analyzed";
    }
    void discard() override {
        stopPrefetch();
        folder_.discard();
    }
    bool toStdout() const override { return false; }

private:
    // Once a second, the files the recording names that were not read yet. The query
    // copies under the model's producer lock, which the sampler never waits for.
    void run(std::stop_token stop) {
        std::set<std::string> seen;
        std::mutex m;
        std::condition_variable_any wake;
        while (!stop.stop_requested()) {
            if (auto snapshot = model_.query({}))
                for (const FunctionInfo& f : (*snapshot)->functions)
                    if (seen.insert(f.file).second) sources_.fetch(f.file);
            std::unique_lock lock(m);
            wake.wait_for(lock, stop, std::chrono::seconds(1), [] { return false; });
        }
    }
    void stopPrefetch() {
        if (prefetch_.joinable()) {
            prefetch_.request_stop();
            prefetch_.join();
        }
    }

    AtomicFolder folder_;
    RecordingFacts facts_;
    ProfileModel model_;
    heatmap::SourceCache sources_;
    size_t files_ = 0;
    std::jthread prefetch_; // last: stopped before the members it reads go
};

} // namespace

fs::path heatmapFolder(const std::string& output, int pid) {
    if (output.empty()) return "heatmap_" + std::to_string(pid);
    fs::path p(output);
    if (p.extension() == ".html") p.replace_extension();
    return p;
}

Result<std::unique_ptr<RecordingOutput>> createHeatmapOutput(const fs::path& destination,
                                                             const RecordingFacts& facts) {
    auto folder = AtomicFolder::create(destination, heatmap::isHeatmapEntry);
    if (!folder) return folder.error();
    return std::unique_ptr<RecordingOutput>(
        std::make_unique<HeatmapOutput>(std::move(*folder), facts));
}

} // namespace gilscope::cli
