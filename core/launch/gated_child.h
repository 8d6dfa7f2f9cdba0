#pragma once

// Starts a command to record from its first line of Python, held there until sampling
// has started: `gilscope run` and the window's Launch script both use it.
//
// How: the child gets a private directory on PYTHONPATH holding a sitecustomize.py
// (startup_hook.cpp) and two pipe fds. Python's site imports that hook during
// start-up, after the interpreter is initialised and before any user code. The hook
// writes its pid to gilscope and blocks until gilscope has attached and started
// sampling, then restores the environment and steps aside (running any real
// sitecustomize), so the target runs unchanged. Because the hook reports its own
// pid, wrappers work too (`-- sh -c "python3 app.py"`, console scripts, venvs).
// If no hook reports (python -S/-I/-E), gilscope attaches to the child as soon as
// it can be read, and says (through `notice`) that the first moments were missed.

#include "core/common/error.h"
#include "core/sample/stack_source.h"
#include "core/util/temp_dir.h"
#include "core/util/unique_fd.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace gilscope {

struct LaunchOptions {
    std::string workDir;                                       // empty: the current directory
    std::vector<std::pair<std::string, std::string>> extraEnv; // set in the child's environment
    // The child's stdout and stderr go to one pipe (outputFd()) instead of ours, and
    // its stdin is /dev/null: for the window, which shows the output in a pane.
    bool captureOutput = false;
    // Its stdin, stdout and stderr are /dev/null: `run --live` owns the terminal (as
    // CPython's live mode silences the target).
    bool quietOutput = false;
};

class GatedChild {
public:
    // argv[0] is looked up on PATH. The child inherits stdin/stdout/stderr unless
    // options.captureOutput.
    static Result<std::unique_ptr<GatedChild>> launch(const std::vector<std::string>& argv,
                                                      const LaunchOptions& options = {});
    ~GatedChild(); // releases the gate; terminates and reaps a child still running

    // Waits for the interpreter to report in (or to become readable) and opens it.
    // Fails when the command exits first; exitStatus() then holds its status. notice
    // gets what the user should know meanwhile (no hook loaded, still waiting).
    Result<std::unique_ptr<StackSource>>
    attach(const ReadOptions& options, const std::function<void(const std::string&)>& notice = {});
    // The read end of the captured output (captureOutput), non-blocking; -1 otherwise.
    int outputFd() const { return outputRead_.get(); }
    // Lets the held interpreter continue. Idempotent.
    void release();

    int pid() const { return pid_; }
    // Reaps the direct child if it has exited; true once it has.
    bool exited();
    // Blocks until the direct child exits.
    void waitForExit();
    // SIGTERM, then SIGKILL after graceMs; reaps.
    void terminate(int graceMs = 2000);
    // The shell-style exit code: the child's code, or 128 + signal.
    std::optional<int> exitCode() const { return exitCode_; }
    // The signal that ended the child, if one did (then exitCode() is 128 + it).
    std::optional<int> exitSignal() const { return exitSignal_; }

private:
    GatedChild() = default;
    void recordStatus(int status);

    int pid_ = -1;
    TempDir hookDir_;
    UniqueFd readyRead_;
    UniqueFd goWrite_;
    UniqueFd outputRead_;
    std::optional<int> exitCode_;
    std::optional<int> exitSignal_;
};

// The text of the startup hook (sitecustomize.py).
const char* startupHookSource();

} // namespace gilscope
