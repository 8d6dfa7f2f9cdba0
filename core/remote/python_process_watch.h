#pragma once

// Which of the processes seen poll after poll are Python processes ready to record: what
// `--subprocesses` (a target's descendants) and `gilscope agent` (the whole host) share.
// A fork still running its parent's image waits until it shows it will not exec
// (forkIsAWorker: multiprocessing's and gunicorn's workers); a process not (yet) Python
// is looked at again, since a fresh exec maps libpython only after the loader ran; an
// exec makes a process new.

#include "core/remote/exec_watch.h"

#include <chrono>
#include <functional>
#include <unordered_map>
#include <vector>

namespace gilscope::remote {

class PythonProcessWatch {
public:
    enum class Look {
        Python,    // record it
        NotPython, // not in this image, or not yet: look again next poll
        Ignore     // never record this image (no match, ours)
    };
    using Judge = std::function<Look(int pid)>;

    // A process judged NotPython `looksBeforeGivingUp` times in one image is not looked
    // at again until it execs.
    PythonProcessWatch(int looksBeforeGivingUp, Judge judge);

    // Already recorded (run's interpreter): never returned.
    void markRecorded(int pid);
    // Looks at `pids`, the processes to consider now; returns those to record from now
    // on. Forgets the ones not among them (they exited). `recording`: those being recorded
    // now are kept without a look (their recording notices an exit or an exec itself);
    // once it ends they are looked at again, and an exec'd image is judged anew.
    std::vector<int> poll(const std::vector<int>& pids,
                          const std::function<bool(int)>& recording = {});
    // A returned process could not be attached to yet (its runtime was still starting):
    // return it again at a later poll, at most `maxRetries` times in one image. False
    // once those are used up.
    bool retryLater(int pid, int maxRetries);

private:
    struct Seen {
        ProcessImage image;       // when last looked at
        bool forkPending = false; // looked like an un-exec'd fork of its parent
        bool done = false;        // returned, ignored, or not Python in this image
        int looks = 0;
        int retries = 0;                                 // retryLater() in this image
        std::chrono::steady_clock::time_point firstSeen; // in this image
        uint64_t poll = 0;                               // the last poll that listed it
    };
    bool ready(int pid, Seen& seen, bool fresh);

    const int looksBeforeGivingUp_;
    const Judge judge_;
    std::unordered_map<int, Seen> seen_;
    uint64_t polls_ = 0;
};

} // namespace gilscope::remote
