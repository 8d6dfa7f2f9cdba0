#include "app/commands/html_output.h"

#include "core/html/flame_recorder.h"
#include "core/util/utf8.h"

namespace gilscope::cli {

namespace {

namespace fs = std::filesystem;

class HtmlOutput final : public RecordingOutput {
public:
    HtmlOutput(fs::path dest, AtomicFile file, html::FlameRecorderOptions options)
        : dest_(std::move(dest)), file_(std::move(file)), diff_(options.baseline != nullptr),
          recorder_(std::move(options)) {}
    SampleSink& sink() override { return recorder_; }
    Status write(const CancelToken& cancel) override {
        return recorder_.writeTo(std::move(file_), &cancel);
    }
    std::string writtenMessage() const override { // CPython's words
        return std::string(diff_ ? "Differential flamegraph" : "Flamegraph") +
               " saved to: " + escapeForDisplay(dest_.string());
    }
    void discard() override { file_.discard(); }
    bool toStdout() const override { return stdout_; }

private:
    fs::path dest_;
    AtomicFile file_;
    bool stdout_ = file_.isStdout();
    bool diff_;
    html::FlameRecorder recorder_;
};

} // namespace

Result<std::unique_ptr<RecordingOutput>> createHtmlOutput(const OutputOptions& options,
                                                          const RecordingFacts& facts,
                                                          const fs::path& destination) {
    html::FlameRecorderOptions r;
    r.target = facts.target;
    r.mode = facts.mode;
    r.transforms = options.transforms;
    if (options.format == OutputFormat::DiffFlamegraph) {
        auto baseline = html::loadBaseline(options.baseline, facts.mode, facts.captureFeatures);
        if (!baseline) return baseline.error();
        r.baseline = std::move(*baseline);
        r.baselinePath = options.baseline;
    }
    auto file = AtomicFile::create(destination);
    if (!file) return file.error();
    return std::unique_ptr<RecordingOutput>(
        std::make_unique<HtmlOutput>(destination, std::move(file.value()), std::move(r)));
}

} // namespace gilscope::cli
