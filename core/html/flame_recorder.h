#pragma once

// The HTML flame graph output: a SampleSink that feeds an analysis model (the one
// `report` and the window use) and remembers what the page's header says, then writes
// the page whole through an AtomicFile. With a baseline it writes the differential page.

#include "core/analysis/call_transforms.h"
#include "core/analysis/profile_diff.h"
#include "core/analysis/profile_model.h"
#include "core/common/error.h"
#include "core/sample/sample_sink.h"
#include "core/util/atomic_file.h"
#include "core/util/cancel.h"

#include <memory>
#include <optional>
#include <string>

namespace gilscope::html {

struct FlameRecorderOptions {
    std::string target;      // what was recorded ("PID 123", a file); empty: "pid N"
    std::optional<int> mode; // ProfilingMode of the recording, for the header
    // --diff-flamegraph: the baseline, loaded and checked before recording starts.
    std::shared_ptr<const ProfileFile> baseline;
    std::string baselinePath;
    size_t maxThreadViews = 32; // busiest threads with a tree of their own
    TransformStack transforms;  // --merge, --focus, ...: on every tree, the baseline's too
};

// Loads a baseline for --diff-flamegraph and refuses one that cannot be compared with the
// current recording: another mode, or other threads or frames (as CPython refuses them).
// `currentFeatures`: CaptureFeature bits (nullopt: unknown).
Result<std::shared_ptr<const ProfileFile>> loadBaseline(const std::string& path,
                                                        std::optional<int> currentMode,
                                                        std::optional<int> currentFeatures);

class FlameRecorder final : public SampleSink {
public:
    explicit FlameRecorder(FlameRecorderOptions options);

    void begin(const FrameRegistry& registry, const RecordingInfo& info) override;
    void addBatch(const SampleBatch& batch) override { model_.addBatch(batch); }
    void nameThread(uint64_t threadId, const std::string& name) override {
        model_.nameThread(threadId, name);
    }
    void finish(const RecordingSummary& summary) override;

    // The page, from what was recorded. Fails on a spill read error or when cancelled.
    Result<std::string> page(const CancelToken* cancel = nullptr) const;
    Status writeTo(AtomicFile file, const CancelToken* cancel = nullptr) const;

private:
    FlameRecorderOptions options_;
    ProfileModel model_;
    RecordingInfo info_;
    RecordingSummary summary_;
};

} // namespace gilscope::html
