#pragma once

// --subprocesses, as CPython's profiler does it: a watcher looks for new Python
// descendants of the target every 10 ms (CPython: 100 ms) and starts one `gilscope attach CHILD`
// per process, with the same options and its own output file (`out_{pid}.ext` for `-o out.ext`,
// else `{format}_{pid}.{ext}`, `profile_{pid}.pstats` for --pstats). At most 100 run at once. At
// the end, child profilers get 30 s to finish with their process, then are interrupted (so they
// still write what they recorded).

#include "app/commands/record_options.h"
#include "core/remote/python_process_watch.h"

#include <sys/types.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace gilscope::cli {

// The arguments a child profiler gets: every capture and format option of `options`,
// without --subprocesses, --browser and -o (the output comes from the pattern).
std::vector<std::string> childProfilerArguments(const RecordOptions& options);
// CPython's output pattern; "{pid}" stands for the child's pid.
std::string childOutputPattern(const RecordOptions& options);
std::string childOutputPath(const std::string& pattern, int pid);

class ChildProfilers {
public:
    static constexpr int kMaxProfilers = 100;
    static constexpr int kPollMs = 10; // CPython polls every 100 ms; a poll costs ~50 µs
    static constexpr int kWaitSec = 30;
    static constexpr int kLooks = 50; // polls before a process is taken as not Python

    // Watches the descendants of rootPid; `skip` is already recorded (run's interpreter).
    ChildProfilers(int rootPid, int skip, const RecordOptions& options);
    ~ChildProfilers(); // finish()
    ChildProfilers(const ChildProfilers&) = delete;
    ChildProfilers& operator=(const ChildProfilers&) = delete;

    // Stops watching, then waits for the child profilers as described above.
    void finish();

private:
    void watch();
    void poll();
    void start(int pid);
    int reapFinished(); // returns how many still run

    const int root_;
    const std::vector<std::string> args_;
    const std::string pattern_;
    std::string self_; // this executable
    remote::PythonProcessWatch watch_;
    std::vector<pid_t> running_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    bool finished_ = false;
    std::thread thread_;
};

} // namespace gilscope::cli
