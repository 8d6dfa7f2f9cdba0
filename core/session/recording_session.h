#pragma once

#include "core/analysis/profile_model.h"
#include "core/common/error.h"
#include "core/gecko/gecko_collector.h"
#include "core/pipeline/pipeline_recording.h"
#include "core/sample/stack_source.h"
#include "core/session/live_timeline.h"
#include "core/tach/recording_copy.h"

#include <memory>
#include <string>

namespace gilscope {

struct SessionOptions {
    uint64_t intervalUs = 1000;
    ReadOptions read{
        .allThreads = true, .opcodes = false, .gc = true, .cpuState = true, .waitFrames = true};
    // Which samples the recording keeps (CPython's --mode): the reader skips the other
    // threads before walking their stacks, as the CLI's does (ReadOptions::mode); the
    // live timeline still shows their state. Wall also stops probing CPU state, as
    // CPython's does.
    ProfilingMode mode = ProfilingMode::All;
    double durationSec = 0; // 0: until stopped or the target exits
    LiveTimelineOptions timeline;
};

// One live recording as the GUI runs it: attach to a pid and record it (Recording, as the
// command line does) into a Gecko collector (for export) and a LiveTimeline (for
// drawing), stop on request or when the target exits. The samples also go to a private `.bin` copy
// (RecordingCopy), for exports of one state, exports after the first and Save as .bin. A first
// export that fails can be retried from the collector (which keeps its data until an export is
// committed), copy or no copy; when it fails, the copy is also rescued beside the destination.
// Everything the sampler touches lives here, in the order that makes the sampler go first on
// destruction.
class RecordingSession {
public:
    // Attaches to pid without sampling yet. Opening a process (its ELF symbols,
    // _PyRuntime) can take hundreds of milliseconds, so the GUI calls this on a worker
    // thread; a session that is then dropped never sampled the target.
    static Result<std::unique_ptr<RecordingSession>> open(int pid, const SessionOptions& options);
    // The same over a source already open (a launched program, core/launch), which
    // was opened with options' read options (and cpuState off in wall mode). Fails only
    // when native stacks are asked for and perf events are refused.
    static Result<std::unique_ptr<RecordingSession>> fromSource(std::unique_ptr<StackSource> source,
                                                                const SessionOptions& options);
    // What the source must be opened with for these options.
    static ReadOptions readOptionsFor(const SessionOptions& options);
    ~RecordingSession();

    // Starts the sampler thread (cheap). Once; the owner's thread from then on.
    void startSampling();

    int pid() const { return pid_; }
    // The door to the recorded process: its sources and snapshots go through it.
    std::shared_ptr<const target::AttachedProcess> process() const { return source_->process(); }
    std::string pythonVersion() const; // "3.11.7"
    int pythonMinor() const;           // 11
    bool freeThreaded() const;         // python3.13t: no GIL
    ProfilingMode mode() const { return mode_; }

    // True once the first tick was taken: a held (launched) target may go on.
    bool firstTickTaken() const { return built_->recording().firstTickTaken(); }
    void requestStop();
    // A named instant now (Recording › Add marker…): on the timeline and in the Gecko export.
    void mark(std::string text);
    bool running() const; // false once stopped or the target has exited
    // Joins the sampler (quick: it has stopped or was asked to). Idempotent; returns why
    // the recording ended.
    StopReason finish();
    bool finished() const { return built_->recording().finished(); }

    SamplerStats stats() const;
    TimelineSnapshot timeline() const { return timeline_.snapshot(); }
    // Samples for the analysis views (top functions, call trees): query it from any thread.
    std::shared_ptr<ProfileModel> profile() const { return profile_; }
    // After finish(): how the recording ended (RecordingEnd::describe() says it).
    RecordingEnd end() const { return built_->recording().end(); }

    // After finish(): true while an export can still be made.
    bool canExport() const;
    // Writes a Firefox Profiler file. Only after finish(), and one export at a time; may
    // run on a worker thread (the sampler thread was joined, which orders its writes
    // before ours). The first export streams the live collector; later ones, and those
    // of one state only (the GUI's state filter), replay the private `.bin` copy.
    Status exportTo(const std::filesystem::path& dest, const ProgressCallback& progress = {},
                    const CancelToken* cancel = nullptr, StateFilter state = StateFilter::All);
    // Ok, or why there is no `.bin` copy (re-export impossible).
    const Status& binCopyStatus() const { return copy_.status(); }
    // After finish(): the private `.bin` copy is complete and can be saved.
    bool hasBinCopy() const { return !copy_.path().empty(); }
    // Saves the private `.bin` copy to dest (see saveBinCopy()): a file CPython 3.15's
    // `profiling.sampling replay` and gilscope's Open read. Only after finish(); may
    // run on a worker thread, like exportTo().
    Status saveBinCopyTo(const std::filesystem::path& dest, const ProgressCallback& progress = {},
                         const CancelToken* cancel = nullptr) const;

private:
    // The sinks; make() builds the recording into them.
    explicit RecordingSession(const SessionOptions& options);
    static Result<std::unique_ptr<RecordingSession>> make(Result<StackPipeline> pipeline,
                                                          const SessionOptions& options);

    GeckoCollector collector_;
    RecordingCopy copy_;
    bool rescued_ = false; // the copy was rescued after the first failed export
    LiveTimeline timeline_;
    // The analysis views' model; shared so a query running on a worker keeps it alive.
    std::shared_ptr<ProfileModel> profile_ = std::make_shared<ProfileModel>();
    // The readers and the sampler, feeding the collector, the analysis model, the .bin copy
    // and the timeline. Declared after them: it stops first.
    std::unique_ptr<PipelineRecording> built_;
    StackSource* source_ = nullptr; // what the sampler reads (built_'s reader)
    int pid_ = 0;
    ProfilingMode mode_ = ProfilingMode::All;
};

} // namespace gilscope
