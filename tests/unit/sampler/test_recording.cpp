// The one recording life both front ends share (core/sampler/recording.h): the first
// tick before a held target goes on, how the recording ended and what it says of it.
// Scripted sources on a fake clock, so every case ends in no real time.
#include "core/pipeline/pipeline_recording.h"
#include "core/sampler/recording.h"
#include "scripted_stack_source.h"

#include <QTest>

#include <thread>

using namespace gilscope;
using namespace gilscope::test;

namespace {

constexpr uint64_t kStart = 1000000;

// A source whose target "exits" after `ticks` reads, saying why as a reader does.
class EndingSource final : public StackSource {
public:
    EndingSource(FakeClock& clock, uint64_t ticks, std::string why)
        : inner_(&clock, nullptr,
                 [ticks](uint64_t n) {
                     return n >= ticks ? ReadOutcome::ProcessEnded : ReadOutcome::Ok;
                 }),
          why_(std::move(why)) {}
    ReadOutcome read(std::vector<ThreadStack>& out, size_t& count) override {
        return inner_.read(out, count);
    }
    FrameRegistry& registry() override { return inner_.registry(); }
    int pid() const override { return inner_.pid(); }
    PythonVersion pythonVersion() const override { return inner_.pythonVersion(); }
    std::string why() const override { return why_; }

private:
    ScriptedStackSource inner_;
    std::string why_;
};

// finish() asks the sampler to stop: a test of how a recording ends on its own waits for
// that end first (on the fake clock it comes at once).
void waitUntilItEnds(const Recording& recording) {
    while (recording.running())
        std::this_thread::yield();
}

} // namespace

class TestRecording : public QObject {
    Q_OBJECT
private slots:
    void firstTickComesBeforeTheHeldTargetGoes() {
        // Real clock: the sampler thread takes its first tick on its own schedule.
        ScriptedStackSource source(nullptr, nullptr, nullptr);
        RecordingSink sink;
        Recording recording(source, sink, SamplerOptions{1000, 0, {}});
        QVERIFY(!recording.started());
        recording.start();
        recording.waitForFirstTick();
        QVERIFY(recording.firstTickTaken());
        QVERIFY(source.reads() >= 1);
        QVERIFY(recording.running());
        recording.requestStop();
        QCOMPARE(recording.finish(), StopReason::Requested);
        QVERIFY(!recording.running());
        QVERIFY(recording.recordedAnything());
        QCOMPARE(recording.end().describe(), std::string()); // a plain stop says nothing
        QCOMPARE(sink.finishes, 1);
        QCOMPARE(recording.finish(), StopReason::Requested); // idempotent
        QCOMPARE(sink.finishes, 1);
    }

    void theReaderSaysWhyTheTargetEnded() {
        FakeClock clock(kStart);
        EndingSource source(clock, 5, "process 4242 replaced its program (exec of /bin/sh)");
        RecordingSink sink;
        Recording recording(source, sink, SamplerOptions{1000, 0, {}}, clock);
        recording.start();
        waitUntilItEnds(recording);
        QCOMPARE(recording.finish(), StopReason::TargetExited);
        QCOMPARE(recording.end().describe(),
                 std::string("process 4242 replaced its program (exec of /bin/sh)"));
        QCOMPARE(recording.summary().threadSamples, uint64_t(5));
    }

    void aTargetSeenGoneByTheFrontEndCountsAsExited() {
        // `run` reaps its child before the reader notices: the reader's words are then
        // not the reason, the child's exit is.
        ScriptedStackSource source(nullptr, nullptr, nullptr);
        RecordingSink sink;
        Recording recording(source, sink, SamplerOptions{1000, 0, {}});
        recording.start();
        recording.waitForFirstTick();
        recording.targetGone();
        QCOMPARE(recording.finish(), StopReason::TargetExited);
        QCOMPARE(recording.end().describe(), std::string("the target process exited"));
    }

    void theDeadlineIsNamed() {
        FakeClock clock(kStart);
        ScriptedStackSource source(&clock, nullptr, nullptr);
        RecordingSink sink;
        Recording recording(source, sink, SamplerOptions{1000, 0.01, {}}, clock);
        recording.start();
        waitUntilItEnds(recording);
        QCOMPARE(recording.finish(), StopReason::Duration);
        QCOMPARE(recording.end().describe(), std::string("the chosen duration was reached"));
    }

    void aFailingSinkIsTheReason() {
        class Failing final : public SampleSink {
        public:
            void addBatch(const SampleBatch&) override { ++batches; }
            bool failed() const override { return batches >= 3; }
            Error sinkError() const override {
                return makeError(ErrorKind::DiskFull, "spill disk full");
            }
            int batches = 0;
        } sink;
        FakeClock clock(kStart);
        ScriptedStackSource source(&clock, nullptr, nullptr);
        Recording recording(source, sink, SamplerOptions{1000, 0, {}}, clock);
        recording.start();
        waitUntilItEnds(recording); // the failure ends it on the sampler thread
        recording.targetGone();     // a failure outranks a target seen gone at the same time
        QCOMPARE(recording.finish(), StopReason::SinkFailed);
        QCOMPARE(recording.end().describe(), std::string("recording stopped: spill disk full"));
        QCOMPARE(recording.failureKind(), ErrorKind::DiskFull);
    }

    void nothingRecordedIsSaid() {
        FakeClock clock(kStart);
        EndingSource source(clock, 0, {});
        RecordingSink sink;
        Recording recording(source, sink, SamplerOptions{1000, 0, {}}, clock);
        recording.start();
        recording.waitForFirstTick(); // an ended sampler counts: a held target must not hang
        waitUntilItEnds(recording);
        QCOMPARE(recording.finish(), StopReason::TargetExited);
        QVERIFY(!recording.recordedAnything());
    }

    void anUnstartedRecordingFinishesQuietly() {
        ScriptedStackSource source(nullptr, nullptr, nullptr);
        RecordingSink sink;
        Recording recording(source, sink, SamplerOptions{1000, 0, {}});
        recording.waitForFirstTick(); // returns: nothing to wait for
        QCOMPARE(recording.finish(), StopReason::NotStopped);
        QVERIFY(!recording.running());
        QCOMPARE(source.reads(), uint64_t(0));
    }

    // What every front end builds (core/pipeline/pipeline_recording.h): the readers'
    // failure is the build's, and the samples reach each sink, in the order given.
    void aBuiltRecordingFeedsEverySink() {
        auto refused = PipelineRecording::build(
            makeError(ErrorKind::PermissionDenied, "perf events refused"), {}, {});
        QVERIFY(!refused);
        QCOMPARE(refused.error().kind, ErrorKind::PermissionDenied);
        QCOMPARE(refused.error().message, std::string("perf events refused"));

        FakeClock clock(kStart);
        EndingSource source(clock, 5, "it exited");
        RecordingSink first, second;
        QVERIFY(!PipelineRecording::build(StackPipeline::over(source, {}, 1000), {}, {}));
        auto built = PipelineRecording::build(StackPipeline::over(source, {}, 1000),
                                              {&first, &second}, SamplerOptions{1000, 0, {}});
        QVERIFY2(built, built ? "" : built.error().message.c_str());
        QCOMPARE(&(*built)->reader(), static_cast<StackSource*>(&source)); // the reader alone
        Recording& recording = (*built)->recording();
        recording.start();
        waitUntilItEnds(recording); // the source ends after five reads
        QCOMPARE(recording.finish(), StopReason::TargetExited);
        QCOMPARE(first.finishes, 1);
        QCOMPARE(second.finishes, 1);
        QVERIFY(!first.timestamps.empty());
        QCOMPARE(first.timestamps, second.timestamps);
    }
};

QTEST_APPLESS_MAIN(TestRecording)
#include "test_recording.moc"
