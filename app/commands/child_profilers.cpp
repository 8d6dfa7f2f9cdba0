#include "app/commands/child_profilers.h"
#include "core/util/guarded_thread.h"

#include "app/commands/heatmap_output.h"
#include "core/remote/process_tree.h"
#include "core/remote/runtime_locator.h"
#include "core/tach/tach_describe.h"
#include "core/target/attached_process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>

extern char** environ;

namespace gilscope::cli {

namespace {

std::string formatDouble(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

} // namespace

std::vector<std::string> childProfilerArguments(const RecordOptions& o) {
    std::vector<std::string> a{"-r", std::to_string(1000000 / std::max<uint64_t>(o.intervalUs, 1))};
    if (o.durationSec > 0) a.insert(a.end(), {"-d", formatDouble(o.durationSec)});
    if (o.allThreads) a.push_back("-a");
    if (o.realtimeStats) a.push_back("--realtime-stats");
    if (!o.gcFrames) a.push_back("--no-gc");
    if (o.waitReasons) a.push_back("--wait-reasons");
    std::vector<std::string> specs; // otel's three sources are one option
    for (const LabelSource& l : o.labels)
        if (std::find(specs.begin(), specs.end(), l.spec()) == specs.end())
            specs.push_back(l.spec());
    for (const std::string& spec : specs)
        a.insert(a.end(), {"--label-from", spec});
    if (o.native) a.push_back("--native");
    if (o.opcodes) a.push_back("--opcodes");
    if (o.blocking) a.push_back("--blocking");
    if (o.asyncMode != AsyncMode::Off) a.push_back("--async-aware");
    if (o.asyncMode == AsyncMode::All) a.insert(a.end(), {"--async-mode", "all"});
    if (o.mode != ProfilingMode::Wall)
        a.insert(a.end(), {"--mode", profilingModeName(static_cast<int>(o.mode))});
    if (o.realtimePriority > 0)
        a.insert(a.end(), {"--rt-priority", std::to_string(o.realtimePriority)});
    if (o.maxDepth != ReadOptions{}.maxDepth)
        a.insert(a.end(), {"--max-depth", std::to_string(o.maxDepth)});
    a.push_back(std::string("--") + formatName(o.format));
    if (o.format == OutputFormat::DiffFlamegraph) // the same baseline, wherever the child runs
        a.push_back(std::filesystem::absolute(o.baseline).string());
    if (o.format == OutputFormat::Binary && o.compression != Compression::Auto)
        a.insert(a.end(), {"--compression", compressionName(o.compression)});
    if (o.format == OutputFormat::Pstats) {
        a.insert(a.end(), {"--sort", o.sort, "--limit", std::to_string(o.limit)});
        if (!o.summary) a.push_back("--no-summary");
    }
    return a;
}

std::string childOutputPattern(const RecordOptions& o) {
    namespace fs = std::filesystem;
    if (o.format == OutputFormat::Heatmap) // a folder each: hm -> hm_{pid}
        return o.output.empty() ? "" : heatmapFolder(o.output, 0).string() + "_{pid}";
    if (!o.output.empty()) {
        std::error_code ec;
        if (fs::is_directory(o.output, ec)) return o.output; // default names inside it
        const fs::path out(o.output);
        const std::string name = out.filename().string();
        // A pprof file's extension is two: out.pb.gz -> out_{pid}.pb.gz.
        const std::string ext = name.size() > 6 && name.ends_with(".pb.gz")
                                    ? ".pb.gz"
                                    : out.filename().extension().string();
        if (ext.empty() || ext == out.filename().string()) return o.output + "_{pid}";
        return o.output.substr(0, o.output.size() - ext.size()) + "_{pid}" + ext;
    }
    if (o.format == OutputFormat::Pstats) return "profile_{pid}.pstats";
    return ""; // a child's own default: {format}_{pid}.{ext}
}

std::string childOutputPath(const std::string& pattern, int pid) {
    std::string out = pattern;
    const std::string id = std::to_string(pid);
    for (size_t at = out.find("{pid}"); at != std::string::npos;
         at = out.find("{pid}", at + id.size()))
        out.replace(at, 5, id);
    return out;
}

ChildProfilers::ChildProfilers(int rootPid, int skip, const RecordOptions& options)
    : root_(rootPid), args_(childProfilerArguments(options)), pattern_(childOutputPattern(options)),
      watch_(kLooks, [](int pid) {
          // Not Python (in this image), or not yet: the loader maps a shared libpython
          // only after the exec.
          auto door = target::AttachedProcess::open(pid);
          return door && remote::locateRuntime(**door)
                     ? remote::PythonProcessWatch::Look::Python
                     : remote::PythonProcessWatch::Look::NotPython;
      }) {
    self_ = executableOf(static_cast<int>(::getpid()));
    if (skip > 0) watch_.markRecorded(skip);
    thread_ = std::thread(guardedThreadBody("the child-process watch", [this] { watch(); }));
}

ChildProfilers::~ChildProfilers() {
    finish();
}

void ChildProfilers::watch() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        lock.unlock();
        poll();
        lock.lock();
        wake_.wait_for(lock, std::chrono::milliseconds(kPollMs), [this] { return stopping_; });
    }
}

void ChildProfilers::poll() {
    reapFinished();
    for (int pid : watch_.poll(descendantPids(root_)))
        start(pid);
}

void ChildProfilers::start(int pid) {
    std::lock_guard lock(mutex_);
    if (stopping_) return;
    if (static_cast<int>(running_.size()) >= kMaxProfilers) {
        std::fprintf(stderr, "Warning: Max child profilers (%d) reached, skipping PID %d\n",
                     kMaxProfilers, pid);
        return;
    }
    std::vector<std::string> argv{"gilscope", "attach", std::to_string(pid)};
    argv.insert(argv.end(), args_.begin(), args_.end());
    if (!pattern_.empty()) argv.insert(argv.end(), {"-o", childOutputPath(pattern_, pid)});
    std::vector<char*> cargv;
    for (auto& s : argv)
        cargv.push_back(s.data());
    cargv.push_back(nullptr);

    // Its summary would mix with ours on stdout; its errors still reach stderr.
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    pid_t child = 0;
    const int rc = posix_spawn(&child, self_.c_str(), &actions, nullptr, cargv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) {
        std::fprintf(stderr, "Warning: Failed to start profiler for child %d: %s\n", pid,
                     std::strerror(rc));
        return;
    }
    running_.push_back(child);
    std::fprintf(stderr, "Started profiler for child process %d\n", pid);
}

int ChildProfilers::reapFinished() {
    std::lock_guard lock(mutex_);
    std::erase_if(running_, [](pid_t p) {
        int status = 0;
        return ::waitpid(p, &status, WNOHANG) == p;
    });
    return static_cast<int>(running_.size());
}

void ChildProfilers::finish() {
    {
        std::lock_guard lock(mutex_);
        if (finished_) return;
        finished_ = true;
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();

    int left = reapFinished();
    if (left == 0) return;
    std::fprintf(stderr, "Waiting for %d child profiler(s) to complete...\n", left);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(kWaitSec);
    while (left > 0 && std::chrono::steady_clock::now() < deadline) {
        ::usleep(20000);
        left = reapFinished();
    }
    // Still recording (their process outlives ours): a Ctrl-C for each, so each writes
    // what it has; a second one stops a write that hangs; then they are killed.
    for (int round = 0; round < 3 && left > 0; ++round) {
        for (pid_t p : running_)
            ::kill(p, round < 2 ? SIGINT : SIGKILL);
        const auto until =
            std::chrono::steady_clock::now() + std::chrono::seconds(round < 2 ? 5 : 1);
        while (left > 0 && std::chrono::steady_clock::now() < until) {
            ::usleep(20000);
            left = reapFinished();
        }
    }
    for (pid_t p : running_)
        ::waitpid(p, nullptr, 0); // killed: never leave a zombie
    running_.clear();
}

} // namespace gilscope::cli
