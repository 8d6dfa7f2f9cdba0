#pragma once

// `attach --live` / `run --live`: a top-like terminal view of the recording's functions,
// refreshed about once a second. It reads the same analysis model as the window
// (ProfileModel, one more sink of the recording) on a thread of its own: the model's
// producer lock means the sampler never waits for it. ncurses is used on that thread only.
//
// Keys: s sort (own, total, name), t threads (all, then each, busiest first), f thread
// state (all, on CPU, holding the GIL, waiting for it), p pause, q quit (ends the
// recording; its output is written as usual). The view follows the terminal's size.

#include "core/analysis/profile_model.h"
#include "core/common/error.h"
#include "core/sampler/sampler.h"

#include <atomic>
#include <mutex>
#include <string>
#include <thread>

namespace gilscope::tui {

struct LiveFacts {
    std::string target; // "PID 1234"
    int mode = -1;      // ProfilingMode recorded (which state filters can match)
    int pythonMinor = 0;
    bool freeThreaded = false; // no GIL: the GIL filters are attached and stopped threads
};

class LiveView {
public:
    LiveView(const ProfileModel& model, LiveFacts facts);
    ~LiveView(); // stop()
    LiveView(const LiveView&) = delete;
    LiveView& operator=(const LiveView&) = delete;

    // Whether this process has a terminal to draw on (stdin and stdout).
    static Status canRun();
    void start();
    // Set by `q` (or when the terminal cannot be used): the recording should stop.
    bool quitRequested() const { return quit_.load(); }
    // What the terminal refused, once quitRequested() (empty when `q` was pressed).
    std::string failure() const;

    // From the recording's thread: the sampler's figures for the status line.
    void publishStats(const SamplerStats& stats);
    // The recording ended by itself: the view says why and waits for `q`.
    void setFinished(const std::string& why);
    // Leaves the terminal as it was.
    void stop();

private:
    void run(std::stop_token stop);

    const ProfileModel& model_;
    const LiveFacts facts_;
    std::atomic<bool> quit_{false};
    mutable std::mutex mutex_; // guards the three below
    SamplerStats stats_;
    std::string finished_;
    std::string failure_;
    std::jthread thread_;
};

} // namespace gilscope::tui
