#include "core/launch/gated_child.h"

#include "core/remote/live_stack_source.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace gilscope {

namespace {

// How long to wait for the startup hook before also trying to read the child directly
// (CPython's own `run` waits 5 s for its coordinator). Python can take over a second
// to start on a loaded machine, and attaching early would lose the hook's head start.
constexpr int kHookGraceMs = 5000;
constexpr int kPollMs = 20;

uint64_t nowMs() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000 + static_cast<uint64_t>(ts.tv_nsec) / 1000000;
}

std::vector<std::string> childEnvironment(const std::string& hookDir, int readyFd, int goFd,
                                          const LaunchOptions& options) {
    std::vector<std::string> env;
    std::string originalPath;
    bool haveOriginal = false;
    if (const char* p = std::getenv("PYTHONPATH")) {
        originalPath = p;
        haveOriginal = true;
    }
    for (const auto& [name, value] : options.extraEnv)
        if (name == "PYTHONPATH") {
            originalPath = value;
            haveOriginal = true;
        }
    for (char** e = environ; *e; ++e) {
        if (std::strncmp(*e, "PYTHONPATH=", 11) == 0 || std::strncmp(*e, "GILSCOPE_", 9) == 0)
            continue;
        bool replaced = false;
        for (const auto& extra : options.extraEnv)
            replaced =
                replaced || (std::strncmp(*e, extra.first.c_str(), extra.first.size()) == 0 &&
                             (*e)[extra.first.size()] == '=');
        if (!replaced) env.emplace_back(*e);
    }
    for (const auto& [name, value] : options.extraEnv)
        if (name != "PYTHONPATH" && name != "GILSCOPE_READY_FD" && name != "GILSCOPE_GO_FD" &&
            name != "GILSCOPE_ORIG_PYTHONPATH")
            env.push_back(name + "=" + value);
    const char* original = haveOriginal ? originalPath.c_str() : nullptr;
    if (original && *original) {
        env.push_back("PYTHONPATH=" + hookDir + ":" + original);
        env.push_back(std::string("GILSCOPE_ORIG_PYTHONPATH=") + original);
    } else {
        env.push_back("PYTHONPATH=" + hookDir);
    }
    env.push_back("GILSCOPE_READY_FD=" + std::to_string(readyFd));
    env.push_back("GILSCOPE_GO_FD=" + std::to_string(goFd));
    return env;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
    std::vector<char*> out;
    for (auto& s : strings)
        out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

} // namespace

Result<std::unique_ptr<GatedChild>> GatedChild::launch(const std::vector<std::string>& argvIn,
                                                       const LaunchOptions& options) {
    if (argvIn.empty()) return makeError(ErrorKind::BadArguments, "run: no command to run");
    std::unique_ptr<GatedChild> child(new GatedChild());

    auto dir = TempDir::create(temp_prefix::kRunHook);
    if (!dir) return dir.error();
    child->hookDir_ = std::move(dir.value());
    {
        std::ofstream hook(child->hookDir_.path() / "sitecustomize.py");
        hook << startupHookSource();
        if (!hook)
            return makeError(ErrorKind::Io,
                             "cannot write the startup hook in " + child->hookDir_.path().string());
    }

    int ready[2], go[2];
    if (pipe2(ready, O_CLOEXEC) != 0)
        return makeError(ErrorKind::Internal, std::string("pipe: ") + std::strerror(errno));
    UniqueFd readyRead(ready[0]), readyWrite(ready[1]);
    if (pipe2(go, O_CLOEXEC) != 0)
        return makeError(ErrorKind::Internal, std::string("pipe: ") + std::strerror(errno));
    UniqueFd goRead(go[0]), goWrite(go[1]);
    UniqueFd outputRead, outputWrite, devNull;
    if (options.captureOutput) {
        int out[2];
        if (pipe2(out, O_CLOEXEC) != 0)
            return makeError(ErrorKind::Internal, std::string("pipe: ") + std::strerror(errno));
        outputRead = UniqueFd(out[0]);
        outputWrite = UniqueFd(out[1]);
        fcntl(outputRead.get(), F_SETFL, fcntl(outputRead.get(), F_GETFL) | O_NONBLOCK);
        devNull = UniqueFd(open("/dev/null", O_RDONLY | O_CLOEXEC));
    }
    if (options.quietOutput && !options.captureOutput)
        devNull = UniqueFd(open("/dev/null", O_RDWR | O_CLOEXEC));
    if (!options.workDir.empty() && access(options.workDir.c_str(), X_OK) != 0)
        return makeError(ErrorKind::BadArguments, "cannot enter the working directory " +
                                                      options.workDir + ": " +
                                                      std::strerror(errno));

    // Everything the child needs is built before fork: after it, only async-signal-safe calls.
    std::vector<std::string> argvStrings = argvIn;
    std::vector<std::string> envStrings =
        childEnvironment(child->hookDir_.path().string(), readyWrite.get(), goRead.get(), options);
    const char* workDir = options.workDir.empty() ? nullptr : options.workDir.c_str();
    std::vector<char*> argv = pointers(argvStrings);
    std::vector<char*> envp = pointers(envStrings);

    const pid_t pid = fork();
    if (pid < 0)
        return makeError(ErrorKind::Internal, std::string("fork: ") + std::strerror(errno));
    if (pid == 0) {
        // The hook's two fds survive exec; every other gilscope fd is close-on-exec.
        fcntl(readyWrite.get(), F_SETFD, 0);
        fcntl(goRead.get(), F_SETFD, 0);
        signal(SIGPIPE, SIG_DFL); // `run` ignores it; the command gets the usual default
        if (outputWrite.valid()) {
            dup2(outputWrite.get(), STDOUT_FILENO); // dup2 clears close-on-exec
            dup2(outputWrite.get(), STDERR_FILENO);
            if (devNull.valid()) dup2(devNull.get(), STDIN_FILENO);
        } else if (devNull.valid()) {
            dup2(devNull.get(), STDIN_FILENO);
            dup2(devNull.get(), STDOUT_FILENO);
            dup2(devNull.get(), STDERR_FILENO);
        }
        if (workDir && chdir(workDir) != 0) _exit(126);
        execvpe(argv[0], argv.data(), envp.data());
        const int err = errno;
        const char* prefix = "gilscope: cannot run ";
        (void)!write(STDERR_FILENO, prefix, std::strlen(prefix));
        (void)!write(STDERR_FILENO, argv[0], std::strlen(argv[0]));
        (void)!write(STDERR_FILENO, ": ", 2);
        (void)!write(STDERR_FILENO, std::strerror(err), std::strlen(std::strerror(err)));
        (void)!write(STDERR_FILENO, "\n", 1);
        _exit(err == ENOENT ? 127 : 126);
    }
    child->pid_ = pid;
    child->readyRead_ = std::move(readyRead);
    child->goWrite_ = std::move(goWrite);
    child->outputRead_ = std::move(outputRead);
    return child;
}

GatedChild::~GatedChild() {
    release();
    if (pid_ > 0 && !exited()) terminate();
}

void GatedChild::recordStatus(int status) {
    if (WIFEXITED(status))
        exitCode_ = WEXITSTATUS(status);
    else if (WIFSIGNALED(status)) {
        exitCode_ = 128 + WTERMSIG(status);
        exitSignal_ = WTERMSIG(status);
    }
}

bool GatedChild::exited() {
    if (exitCode_) return true;
    int status = 0;
    const pid_t r = waitpid(pid_, &status, WNOHANG);
    if (r == pid_) recordStatus(status);
    return exitCode_.has_value();
}

void GatedChild::waitForExit() {
    while (!exitCode_) {
        int status = 0;
        const pid_t r = waitpid(pid_, &status, 0);
        if (r == pid_)
            recordStatus(status);
        else if (r < 0 && errno != EINTR)
            return;
    }
}

void GatedChild::terminate(int graceMs) {
    if (exited()) return;
    kill(pid_, SIGTERM);
    const uint64_t deadline = nowMs() + graceMs;
    while (!exited() && nowMs() < deadline)
        usleep(10000);
    if (!exited()) {
        kill(pid_, SIGKILL);
        waitForExit();
    }
}

void GatedChild::release() {
    if (!goWrite_.valid()) return;
    // The program may be gone already (the pipe has no reader): that write must not
    // raise SIGPIPE in gilscope. Block it for this thread, write, and take back a
    // SIGPIPE the write left pending.
    sigset_t pipeOnly, previous;
    sigemptyset(&pipeOnly);
    sigaddset(&pipeOnly, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipeOnly, &previous);
    const bool broken = write(goWrite_.get(), "g", 1) < 0 && errno == EPIPE;
    if (broken && !sigismember(&previous, SIGPIPE)) {
        const timespec none{0, 0};
        sigtimedwait(&pipeOnly, nullptr, &none);
    }
    pthread_sigmask(SIG_SETMASK, &previous, nullptr);
    goWrite_.reset();
}

Result<std::unique_ptr<StackSource>>
GatedChild::attach(const ReadOptions& options,
                   const std::function<void(const std::string&)>& notice) {
    const uint64_t start = nowMs();
    bool hinted = false;
    std::string line;
    for (;;) {
        pollfd p{readyRead_.get(), POLLIN, 0};
        const int n = readyRead_.valid() ? poll(&p, 1, kPollMs) : (usleep(kPollMs * 1000), 0);
        if (n > 0) {
            char buf[32];
            const ssize_t got = read(readyRead_.get(), buf, sizeof buf);
            if (got > 0) line.append(buf, static_cast<size_t>(got));
            if (got == 0) readyRead_.reset(); // every holder of the write end is gone
            if (const auto nl = line.find('\n'); nl != std::string::npos) {
                const int pythonPid = std::atoi(line.substr(0, nl).c_str());
                readyRead_.reset();
                // The interpreter is initialised: it is running site. A failure here
                // is real (permissions, unsupported build), so report it.
                return openLiveProcess(pythonPid, options);
            }
        }
        if (exited())
            return makeError(
                ErrorKind::ProcessEnded,
                "the command exited (code " + std::to_string(*exitCode_) +
                    ") before a Python interpreter started in it; nothing was recorded");
        const uint64_t waited = nowMs() - start;
        if (waited >= kHookGraceMs) {
            // No hook (python -S / -I / -E?): read the child itself once it is Python.
            auto source = openLiveProcess(pid_, options);
            if (source) {
                if (notice)
                    notice("the target did not load gilscope's startup hook (python -S, -I or "
                           "-E?); recording from now, its first moments were missed");
                return source;
            }
            if (source.error().kind == ErrorKind::PermissionDenied ||
                source.error().kind == ErrorKind::UnsupportedVersion)
                return source.error();
            if (!hinted && waited >= kHookGraceMs + 3000) {
                hinted = true;
                if (notice) notice("waiting for a Python interpreter to start in the command...");
            }
        }
    }
}

} // namespace gilscope
