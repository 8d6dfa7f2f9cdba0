#pragma once

#include "core/analysis/profile_filter.h"
#include "core/analysis/profile_model.h"
#include "core/common/error.h"
#include "core/gecko/gecko_collector.h"
#include "core/session/live_timeline.h"
#include "core/tach/tach_describe.h"
#include "core/tach/tach_reader.h"

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace gilscope {

// A CPython `.bin` (Tachyon) recording opened in the GUI: its header info, a LiveTimeline
// (the tracks) and the analysis model, filled by two replays of the file at once, on two
// threads: the tracks' is a fraction of the model's work, so they can be drawn first. An
// export replays the file again (exportFile), as the command line's replay does.
// open() and load() may run on a worker thread; afterwards the owner's thread uses it,
// and the timeline and the model may be read while the load goes on.
class RecordingFile {
public:
    static Result<std::unique_ptr<RecordingFile>> open(const std::filesystem::path& path);

    const std::filesystem::path& path() const { return path_; }
    const TachInfo& info() const { return reader_.info(); }

    // Replays the file; progress is the model's (samples, samples declared in the
    // header). tracksReady, if given, is called (on a worker thread) once the whole file
    // was read into the timeline, before the model is complete: every damage a replay
    // can find has been found by then. A recording can be loaded once: a cancelled or
    // failed load leaves it unusable.
    Result<uint64_t> load(const ProgressCallback& progress = {},
                          const CancelToken* cancel = nullptr,
                          const std::function<void()>& tracksReady = {});
    bool loaded() const { return loaded_; }

    // Writes a Firefox Profiler file; after load(), as often as asked (exportFile).
    Status exportTo(const std::filesystem::path& dest, const ProgressCallback& progress = {},
                    const CancelToken* cancel = nullptr, StateFilter state = StateFilter::All);
    // The one replaying export, for opened files and live recordings' `.bin` copies:
    // replays `bin` into a fresh collector, keeping only the thread-samples of `state`
    // as the analysis views count them (StateFilterSink), and writes `dest`.
    static Status exportFile(const std::filesystem::path& bin, const std::filesystem::path& dest,
                             StateFilter state, const ProgressCallback& progress = {},
                             const CancelToken* cancel = nullptr);
    TimelineSnapshot timeline() const { return timeline_.snapshot(); }
    // describeTachInfo() for display as (label, value) rows, with each thread's samples
    // as loaded (the header's estimate before).
    std::vector<std::pair<std::string, std::string>> describe() const;
    std::shared_ptr<ProfileModel> profile() const { return profile_; } // after load()

private:
    RecordingFile(std::filesystem::path path, TachReader reader);

    std::filesystem::path path_;
    TachReader reader_;
    LiveTimeline timeline_;
    // The analysis views' model; shared so a query running on a worker keeps it alive.
    std::shared_ptr<ProfileModel> profile_ = std::make_shared<ProfileModel>();
    bool attempted_ = false;
    bool loaded_ = false;
};

} // namespace gilscope
