#include "app/commands/cli_recording.h"

#include "app/commands/browser_open.h"
#include "app/commands/child_profilers.h"
#include "app/commands/cli_output.h"
#include "app/commands/push_session.h"
#include "app/commands/record_flush.h"
#include "app/commands/record_interrupts.h"
#include "app/commands/recording_output.h"
#include "core/control/control_server.h"
#include "core/native/native_stack_source.h"
#include "core/pipeline/pipeline_recording.h"
#include "core/snapshot/snapshot_format.h"
#include "core/tach/recording_copy.h"
#include "core/util/utf8.h"
#include "tui/live_view.h"

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <unistd.h>

namespace gilscope::cli {

namespace {

std::string replaceAll(std::string s, const std::string& from, const std::string& to) {
    for (size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
    return s;
}

void sleepMs(int ms) {
    timespec ts{ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, nullptr); // a signal cuts it short, which is what we want
}

void printRealtimeStats(const SamplerStats& s, bool tty) {
    const auto hz = [](double us) { return us > 0 ? 1e6 / us : 0.0; };
    std::fprintf(
        messages(),
        "Real-time sampling stats: Mean: %.1fHz (%.2f\u00b5s) Min: %.1fHz (%.2f\u00b5s) "
        "Max: %.1fHz (%.2f\u00b5s) Last 1s: %.1fHz Samples: %llu Errors: %.2f%% Missed: %.2f%%%s",
        hz(s.meanIntervalUs), s.meanIntervalUs, hz(s.maxIntervalUs), s.maxIntervalUs,
        hz(s.minIntervalUs), s.minIntervalUs, s.achievedRateLastSecond,
        static_cast<unsigned long long>(s.okTicks + s.errors), s.errorPct, s.missedPct,
        tty ? "\x1b[K\r" : "\n");
    std::fflush(messages());
}

void printSummary(const RecordingSummary& s, uint64_t missed) {
    FILE* out = messages();
    std::fprintf(out, "Captured %llu samples in %.2f seconds\n",
                 static_cast<unsigned long long>(s.ticks), s.durationSec);
    std::fprintf(out, "Sample rate: %.2f samples/sec\n", s.sampleRate);
    std::fprintf(out, "Error rate: %.2f%%\n", s.errorRatePct);
    if (missed > 0) {
        const unsigned long long expected = s.ticks + missed;
        std::fprintf(out, "Warning: missed %llu samples from the expected total of %llu (%.2f%%)\n",
                     static_cast<unsigned long long>(missed), expected, s.missedPct);
    }
    if (const std::string torn = describeTornReads(s.torn); !torn.empty())
        std::fprintf(out, "%s\n", torn.c_str());
    if (const std::string warn = tornReadsWarning(s.torn); !warn.empty())
        std::fprintf(out, "%s\n", warn.c_str());
    if (s.waits.unknown > 0)
        std::fprintf(
            out,
            "Wait reasons: %llu of %llu off-CPU thread reads (%.2f%%) are \"unknown\": the "
            "kernel could not tell (a thread that exited, or /proc that could not be "
            "read)\n",
            static_cast<unsigned long long>(s.waits.unknown),
            static_cast<unsigned long long>(s.waits.asked),
            100.0 * double(s.waits.unknown) / double(s.waits.asked));
}

// --realtime-stats, at the end: which checks found reads torn (diagnosis).
void printTornReasons(const std::vector<TornReason>& reasons) {
    for (const TornReason& r : reasons)
        std::fprintf(messages(), "  torn: %llu x %s\n", static_cast<unsigned long long>(r.count),
                     escapeForDisplay(r.why).c_str());
}

// One command-line recording, in the order it happens: prepare() makes what it records
// into and how it is steered (each part may refuse, and then nothing is recorded), run()
// samples until the recording ends, keep() reports it and writes the output.
class CliRecording {
public:
    CliRecording(StackSource& source, const RecordOptions& options, const RecordHooks& hooks)
        : source_(source), options_(options), hooks_(hooks),
          destination_(outputPath(options, source.pid())) {}

    Status prepare();
    void run();
    RecordResult keep();

private:
    Status makeSinks();
    Status openControlSocket();
    void waitForEnd();
    void reportEnd();
    int writeOutput(); // and open it in the browser when asked; the exit code

    StackSource& source_;
    const RecordOptions& options_;
    const RecordHooks& hooks_;
    const std::filesystem::path destination_;
    RecordResult result_;
    // The sinks, in the order the samples reach them: the file, the push, --live's model,
    // and a private .bin copy beside every local output but a .bin itself (if writing the
    // output fails at the end, a full disk, the samples, which can never be taken again,
    // are kept).
    std::unique_ptr<RecordingOutput> output_; // none with --push alone
    std::unique_ptr<PushSession> pushing_;
    std::optional<ProfileModel> liveModel_;
    std::optional<RecordingCopy> copy_;
    std::optional<InterruptGuard> interrupts_;
    std::unique_ptr<PipelineRecording> built_; // after the sinks: it stops first
    std::unique_ptr<control::ControlServer> control_;
    std::optional<tui::LiveView> live_;
    std::optional<ChildProfilers> children_;
};

Status CliRecording::makeSinks() {
    if (options_.localOutput) {
        auto made = createRecordingOutput(options_, destination_, source_);
        if (!made) return made.error();
        output_ = std::move(*made);
        if (output_->toStdout()) sendMessagesToStderr();
    }
    if (options_.push.enabled()) {
        auto made = PushSession::create(options_, source_);
        if (!made) return made.error();
        pushing_ = std::move(*made);
    }
    // --live: the view reads an analysis model of its own, as the window does.
    if (options_.live) {
        if (auto terminal = tui::LiveView::canRun(); !terminal) return terminal.error();
        liveModel_.emplace();
    }
    if (output_ && options_.format != OutputFormat::Binary) copy_.emplace();
    return {};
}

Status CliRecording::prepare() {
    if (Status sinks = makeSinks(); !sinks) return sinks;
    std::vector<SampleSink*> sinks;
    if (output_) sinks.push_back(&output_->sink());
    if (pushing_) sinks.push_back(&pushing_->sink());
    if (liveModel_) sinks.push_back(&*liveModel_);
    if (copy_) sinks.push_back(&*copy_);
    interrupts_.emplace();
    SamplerOptions sampler;
    sampler.intervalUs = options_.intervalUs;
    sampler.durationSec = options_.durationSec;
    sampler.read = options_.readOptions();
    sampler.realtimePriority = options_.realtimePriority;
    sampler.countersEveryMs = kCountersEveryMs;
    sampler.startEnabled = !options_.startDisabled;
    auto built = PipelineRecording::build(
        StackPipeline::over(source_,
                            {options_.blocking, options_.nativeStacks, options_.nativeStacksAll},
                            options_.intervalUs),
        sinks, sampler);
    if (!built) return built.error();
    built_ = std::move(*built);
    // --control: taken before the first tick, so a refused path records nothing.
    return openControlSocket();
}

Status CliRecording::openControlSocket() {
    if (options_.control.empty()) return {};
    Recording& recording = built_->recording();
    auto made = control::ControlServer::start(
        options_.control,
        {[&recording](bool on) { recording.setEnabled(on); },
         [&recording] { return recording.enabled(); }, [&recording] { recording.requestStop(); },
         [&recording](std::string text) { recording.mark(std::move(text)); },
         [pid = source_.pid(),
          door = source_.process()](std::string_view which) -> Result<std::string> {
             if (!which.empty() && which != std::to_string(pid))
                 return makeError(ErrorKind::BadArguments,
                                  "this recording is of process " + std::to_string(pid));
             if (!door)
                 return makeError(ErrorKind::BadArguments, "this recording reads no live process");
             return snapshotLine(door);
         },
         [this, &recording]() -> Result<std::string> {
             if (!output_)
                 return makeError(ErrorKind::BadArguments, "there is no output file (--push only)");
             auto n = flushOutput(recording, *output_, copy_ ? &*copy_ : nullptr, options_,
                                  destination_, source_);
             if (!n) return n.error();
             return "samples=" + std::to_string(*n);
         }});
    if (!made) return made.error();
    control_ = std::move(*made);
    return {};
}

void CliRecording::run() {
    Recording& recording = built_->recording();
    recording.start();
    if (liveModel_) {
        live_.emplace(*liveModel_,
                      tui::LiveFacts{"PID " + std::to_string(source_.pid()),
                                     static_cast<int>(recordedMode(options_.readOptions())),
                                     source_.pythonVersion().minor, source_.freeThreaded()});
        live_->start();
    }
    if (pushing_) pushing_->start();
    if (options_.subprocesses)
        children_.emplace(hooks_.subprocessRoot ? hooks_.subprocessRoot : source_.pid(),
                          source_.pid(), options_);
    if (hooks_.afterStart) {
        // A held target (`run`) is released only once the first tick was taken, so the
        // recording starts before the target's first line even when the sampler thread
        // is slow to be scheduled.
        recording.waitForFirstTick();
        hooks_.afterStart();
    }
    waitForEnd();
    result_.reason = recording.finish();
    // Before the output is written: a flush in flight ends first, and none comes after
    // to replace the whole output with a part.
    control_.reset();
    if (live_) { // an end of its own stays on the screen until `q`; then the terminal is ours
        if (!live_->quitRequested())
            live_->setFinished(escapeForDisplay(recording.end().describe()));
        while (!live_->quitRequested() && interrupts_->count() == 0)
            sleepMs(50);
        live_->stop();
        if (const std::string why = live_->failure(); !why.empty())
            std::fprintf(stderr, "gilscope: %s\n", why.c_str());
    }
    result_.interrupted = interrupts_->count() > 0;
}

void CliRecording::waitForEnd() {
    Recording& recording = built_->recording();
    const bool tty = isatty(fileno(messages()));
    int ticksSincePrint = 0;
    while (recording.running()) {
        sleepMs(50);
        if (interrupts_->count() > 0) recording.requestStop();
        if (live_) {
            live_->publishStats(recording.stats());
            if (live_->quitRequested()) recording.requestStop();
        }
        if (hooks_.targetGone && hooks_.targetGone()) recording.targetGone();
        if (options_.realtimeStats && ++ticksSincePrint >= 20) {
            ticksSincePrint = 0;
            printRealtimeStats(recording.stats(), tty);
        }
    }
    if (options_.realtimeStats && tty) std::fprintf(messages(), "\n");
}

void CliRecording::reportEnd() {
    const Recording& recording = built_->recording();
    const RecordingEnd end = recording.end();
    if (!end.failure.empty()) std::fprintf(stderr, "gilscope: %s\n", end.failure.c_str());
    if (result_.reason == StopReason::TargetExited)
        std::fprintf(stderr, "gilscope: %s; recording stopped\n",
                     escapeForDisplay(end.describe()).c_str());
    printSummary(recording.summary(), recording.stats().missed);
    if (const uint64_t paused = recording.stats().paused; paused > 0) // --control disable
        std::fprintf(messages(), "Sampling was off for %.2f s of it (--control)\n",
                     double(paused) * double(options_.intervalUs) / 1e6);
    if (options_.realtimeStats) printTornReasons(source_.tornReasons());
    if (const auto* nativeStacks = built_->pipeline().nativeStacks())
        std::fprintf(messages(), "%s\n", native::describePairing(nativeStacks->pairing()).c_str());
}

RecordResult CliRecording::keep() {
    reportEnd();
    // A second Ctrl-C cuts the last pushes short (what is left stays queued on disk).
    if (pushing_) pushing_->finish([&] { return interrupts_->count() > 1; });
    const bool anything = built_->recording().recordedAnything();
    if (!output_) {
        if (!anything)
            result_.exitCode = fail(makeError(ErrorKind::NoSamples, "no samples were recorded"));
        return result_;
    }
    // Nothing to keep: an existing file at the destination must not be replaced by an
    // empty recording.
    if (!anything) {
        output_->discard();
        result_.exitCode =
            fail(makeError(ErrorKind::NoSamples, "no samples were recorded; " +
                                                     escapeForDisplay(destination_.string()) +
                                                     " was not written"));
        return result_;
    }
    result_.exitCode = writeOutput();
    return result_;
}

int CliRecording::writeOutput() {
    if (copy_) copy_->finalize();
    const Status written = output_->write(interrupts_->abortToken());
    if (!written) {
        result_.aborted = written.error().kind == ErrorKind::Cancelled;
        if (result_.aborted) {
            std::fprintf(stderr, "gilscope: aborted; %s was not written\n",
                         escapeForDisplay(destination_.string()).c_str());
            return 130; // the user threw the recording away: nothing is kept
        }
        Error e = written.error();
        if (copy_) {
            std::string flag = std::string("--") + formatName(options_.format);
            if (options_.format == OutputFormat::DiffFlamegraph) // its baseline, shell-quoted
                flag += " '" + replaceAll(options_.baseline, "'", "'\\''") + "'";
            e.message += "\ngilscope: " +
                         rescueNote(copy_->rescue(destination_), flag.c_str(), destination_);
        }
        return fail(e);
    }
    if (const std::string said = output_->writtenMessage(); !said.empty())
        std::fprintf(messages(), "%s\n", said.c_str());
    std::fflush(messages());
    int code = 0;
    if (result_.reason == StopReason::SinkFailed)
        code = fail(makeError(built_->recording().failureKind(),
                              "the recording stopped early because of the error "
                              "above; what was recorded until then was written"));
    if (options_.browser && opensAsPage(options_.format)) {
        if (output_->toStdout()) return code; // a page sent down a pipe has no file to open
        const int opened = openFileInBrowser(
            QString::fromStdString(pageToOpen(options_.format, destination_).string()));
        return code != 0 ? code : opened;
    }
    if (options_.browser) {
        const int before = interrupts_->count(); // a further Ctrl-C stops the wait
        const int opened = openInFirefoxProfiler(QString::fromStdString(destination_.string()), {},
                                                 [&] { return interrupts_->count() > before; });
        return code != 0 ? code : opened;
    }
    return code;
}

} // namespace

RecordResult recordToOutput(StackSource& source, const RecordOptions& options,
                            const RecordHooks& hooks) {
    CliRecording recording(source, options, hooks);
    if (Status ready = recording.prepare(); !ready) {
        if (hooks.afterStart) hooks.afterStart(); // never leave a gated target hanging
        RecordResult refused;
        refused.exitCode = fail(ready.error());
        return refused;
    }
    recording.run();
    return recording.keep();
}

} // namespace gilscope::cli
