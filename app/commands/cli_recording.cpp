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
#include "core/pipeline/stack_pipeline.h"
#include "core/sample/tee_sink.h"
#include "core/sampler/recording.h"
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

} // namespace

RecordResult recordToOutput(StackSource& source, const RecordOptions& options,
                            const RecordHooks& hooks) {
    RecordResult result;
    const auto destination = outputPath(options, source.pid());
    std::unique_ptr<RecordingOutput> output; // none with --push alone
    if (options.localOutput) {
        auto made = createRecordingOutput(options, destination, source);
        if (!made) {
            if (hooks.afterStart) hooks.afterStart(); // never leave a gated target hanging
            result.exitCode = fail(made.error());
            return result;
        }
        output = std::move(*made);
        if (output->toStdout()) sendMessagesToStderr();
    }
    std::unique_ptr<PushSession> pushing;
    if (options.push.enabled()) {
        auto made = PushSession::create(options, source);
        if (!made) {
            if (hooks.afterStart) hooks.afterStart();
            result.exitCode = fail(made.error());
            return result;
        }
        pushing = std::move(*made);
    }
    TeeSink both; // the file, the push and the live view, from one recording
    if (output) both.add(&output->sink());
    if (pushing) both.add(&pushing->sink());
    // --live: the view reads an analysis model of its own, as the window does.
    std::optional<ProfileModel> liveModel;
    if (options.live) {
        if (auto terminal = tui::LiveView::canRun(); !terminal) {
            if (hooks.afterStart) hooks.afterStart();
            result.exitCode = fail(terminal.error());
            return result;
        }
        both.add(&liveModel.emplace());
    }

    auto pipeline = StackPipeline::over(
        source, {options.blocking, options.nativeStacks, options.nativeStacksAll},
        options.intervalUs);
    if (!pipeline) {
        if (hooks.afterStart) hooks.afterStart();
        result.exitCode = fail(pipeline.error());
        return result;
    }
    StackSource& reader = pipeline->reader();
    native::NativeStackSourceBase* nativeStacks = pipeline->nativeStacks();

    InterruptGuard interrupts;
    SamplerOptions samplerOptions;
    samplerOptions.intervalUs = options.intervalUs;
    samplerOptions.durationSec = options.durationSec;
    samplerOptions.read = options.readOptions();
    samplerOptions.realtimePriority = options.realtimePriority;
    samplerOptions.countersEveryMs = kCountersEveryMs;
    // A private .bin copy beside every local output but a .bin itself: if writing the
    // output fails at the end (full disk), the samples, which can never be taken again,
    // are kept.
    std::optional<RecordingCopy> copy;
    if (output && options.format != OutputFormat::Binary) both.add(&copy.emplace());
    samplerOptions.startEnabled = !options.startDisabled;
    Recording recording(reader, both, samplerOptions);
    // --control: taken before the first tick, so a refused path records nothing.
    std::unique_ptr<control::ControlServer> controlSocket;
    if (!options.control.empty()) {
        auto made = control::ControlServer::start(
            options.control,
            {[&recording](bool on) { recording.setEnabled(on); },
             [&recording] { return recording.enabled(); },
             [&recording] { recording.requestStop(); },
             [&recording](std::string text) { recording.mark(std::move(text)); },
             [pid = source.pid(),
              door = source.process()](std::string_view which) -> Result<std::string> {
                 if (!which.empty() && which != std::to_string(pid))
                     return makeError(ErrorKind::BadArguments,
                                      "this recording is of process " + std::to_string(pid));
                 if (!door)
                     return makeError(ErrorKind::BadArguments,
                                      "this recording reads no live process");
                 return snapshotLine(door);
             },
             [&]() -> Result<std::string> {
                 if (!output)
                     return makeError(ErrorKind::BadArguments,
                                      "there is no output file (--push only)");
                 auto n = flushOutput(recording, *output, copy ? &*copy : nullptr, options,
                                      destination, source);
                 if (!n) return n.error();
                 return "samples=" + std::to_string(*n);
             }});
        if (!made) {
            if (hooks.afterStart) hooks.afterStart();
            result.exitCode = fail(made.error());
            return result;
        }
        controlSocket = std::move(*made);
    }
    recording.start();
    std::optional<tui::LiveView> live;
    if (liveModel) {
        live.emplace(*liveModel,
                     tui::LiveFacts{"PID " + std::to_string(source.pid()),
                                    static_cast<int>(recordedMode(samplerOptions.read)),
                                    source.pythonVersion().minor, source.freeThreaded()});
        live->start();
    }
    if (pushing) pushing->start();
    std::optional<ChildProfilers> children;
    if (options.subprocesses)
        children.emplace(hooks.subprocessRoot ? hooks.subprocessRoot : source.pid(), source.pid(),
                         options);
    if (hooks.afterStart) {
        // A held target (`run`) is released only once the first tick was taken, so the
        // recording starts before the target's first line even when the sampler thread
        // is slow to be scheduled.
        recording.waitForFirstTick();
        hooks.afterStart();
    }

    const bool tty = isatty(fileno(messages()));
    int ticksSincePrint = 0;
    while (recording.running()) {
        sleepMs(50);
        if (interrupts.count() > 0) recording.requestStop();
        if (live) {
            live->publishStats(recording.stats());
            if (live->quitRequested()) recording.requestStop();
        }
        if (hooks.targetGone && hooks.targetGone()) recording.targetGone();
        if (options.realtimeStats && ++ticksSincePrint >= 20) {
            ticksSincePrint = 0;
            printRealtimeStats(recording.stats(), tty);
        }
    }
    result.reason = recording.finish();
    // Before the output is written: a flush in flight ends first, and none comes after
    // to replace the whole output with a part.
    controlSocket.reset();
    if (live) { // an end of its own stays on the screen until `q`; then the terminal is ours
        if (!live->quitRequested()) live->setFinished(escapeForDisplay(recording.end().describe()));
        while (!live->quitRequested() && interrupts.count() == 0)
            sleepMs(50);
        live->stop();
        if (const std::string why = live->failure(); !why.empty())
            std::fprintf(stderr, "gilscope: %s\n", why.c_str());
    }
    result.interrupted = interrupts.count() > 0;
    if (options.realtimeStats && tty) std::fprintf(messages(), "\n");
    const RecordingEnd end = recording.end();
    if (!end.failure.empty()) std::fprintf(stderr, "gilscope: %s\n", end.failure.c_str());
    if (result.reason == StopReason::TargetExited)
        std::fprintf(stderr, "gilscope: %s; recording stopped\n",
                     escapeForDisplay(end.describe()).c_str());

    const RecordingSummary summary = recording.summary();
    printSummary(summary, recording.stats().missed);
    if (const uint64_t paused = recording.stats().paused; paused > 0) // --control disable
        std::fprintf(messages(), "Sampling was off for %.2f s of it (--control)\n",
                     double(paused) * double(options.intervalUs) / 1e6);
    if (options.realtimeStats) printTornReasons(source.tornReasons());
    if (nativeStacks)
        std::fprintf(messages(), "%s\n", native::describePairing(nativeStacks->pairing()).c_str());
    // A second Ctrl-C cuts the last pushes short (what is left stays queued on disk).
    if (pushing) pushing->finish([&] { return interrupts.count() > 1; });
    if (!output) {
        if (!recording.recordedAnything())
            result.exitCode = fail(makeError(ErrorKind::NoSamples, "no samples were recorded"));
        return result;
    }

    // Nothing to keep: an existing file at the destination must not be replaced by an
    // empty recording.
    if (!recording.recordedAnything()) {
        output->discard();
        result.exitCode = fail(makeError(
            ErrorKind::NoSamples, "no samples were recorded; " +
                                      escapeForDisplay(destination.string()) + " was not written"));
        return result;
    }

    if (copy) copy->finalize();
    const Status written = output->write(interrupts.abortToken());
    if (!written) {
        result.aborted = written.error().kind == ErrorKind::Cancelled;
        if (result.aborted) {
            result.exitCode = 130; // the user threw the recording away: nothing is kept
            std::fprintf(stderr, "gilscope: aborted; %s was not written\n",
                         escapeForDisplay(destination.string()).c_str());
            return result;
        }
        Error e = written.error();
        if (copy) {
            std::string flag = std::string("--") + formatName(options.format);
            if (options.format == OutputFormat::DiffFlamegraph) // its baseline, shell-quoted
                flag += " '" + replaceAll(options.baseline, "'", "'\\''") + "'";
            e.message +=
                "\ngilscope: " + rescueNote(copy->rescue(destination), flag.c_str(), destination);
        }
        result.exitCode = fail(e);
        return result;
    }
    if (const std::string said = output->writtenMessage(); !said.empty())
        std::fprintf(messages(), "%s\n", said.c_str());
    std::fflush(messages());
    if (result.reason == StopReason::SinkFailed)
        result.exitCode = fail(makeError(recording.failureKind(),
                                         "the recording stopped early because of the error "
                                         "above; what was recorded until then was written"));
    if (options.browser && opensAsPage(options.format)) {
        if (output->toStdout()) return result; // a page sent down a pipe has no file to open
        const int opened = openFileInBrowser(
            QString::fromStdString(pageToOpen(options.format, destination).string()));
        if (result.exitCode == 0) result.exitCode = opened;
    } else if (options.browser) {
        const int before = interrupts.count(); // a further Ctrl-C stops the wait
        const int opened = openInFirefoxProfiler(QString::fromStdString(destination.string()), {},
                                                 [&] { return interrupts.count() > before; });
        if (result.exitCode == 0) result.exitCode = opened;
    }
    return result;
}

} // namespace gilscope::cli
