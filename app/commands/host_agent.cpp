#include "app/commands/host_agent.h"

#include "app/commands/push_session.h"
#include "core/snapshot/snapshot_format.h"
#include "core/util/utf8.h"

#include <algorithm>
#include <charconv>

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <unordered_set>

namespace gilscope::cli {

namespace {

void say(const std::string& line) {
    std::fprintf(stderr, "gilscope agent: %s\n", line.c_str());
    std::fflush(stderr);
}

std::string shortCommand(const std::string& commandLine) {
    std::string shown = escapeForDisplay(commandLine);
    if (shown.size() > 120) shown = shown.substr(0, 117) + "...";
    return shown;
}

std::string labelValue(const std::vector<push::PushLabel>& labels, const std::string& name) {
    for (const auto& label : labels)
        if (label.name == name) return label.value;
    return {};
}

} // namespace

Result<std::unique_ptr<HostAgent>> HostAgent::create(AgentOptions options) {
    auto queue = openPushQueue(options.push);
    if (!queue) return queue.error();
    std::unique_ptr<HostAgent> agent(new HostAgent(std::move(options), std::move(*queue)));
    agent->enabled_ = !agent->options_.startDisabled;
    if (!agent->options_.control.empty()) {
        auto server =
            control::ControlServer::start(agent->options_.control, agent->controlTarget());
        if (!server) return server.error();
        agent->control_ = std::move(*server);
    }
    return agent;
}

control::ControlTarget HostAgent::controlTarget() {
    control::ControlTarget t;
    t.setEnabled = [this](bool on) { setEnabled(on); };
    t.enabled = [this] { return enabled_.load(); };
    t.quit = [this] { quitRequested_ = true; };
    // No mark: a pprof profile has no place for one ("err not_supported").
    t.snapshot = [this](std::string_view pid) { return snapshot(pid); };
    t.flush = [this]() -> Result<std::string> {
        size_t series = 0;
        {
            const std::lock_guard lock(targetsMutex_);
            series = targets_.size();
        }
        if (!pusher_->cutNow()) return makeError(ErrorKind::Cancelled, "the agent is stopping");
        return "series=" + std::to_string(series);
    };
    return t;
}

void HostAgent::setEnabled(bool on) {
    const std::lock_guard lock(targetsMutex_);
    enabled_ = on;
    for (const auto& target : targets_)
        target->recording().setEnabled(on);
}

Result<std::string> HostAgent::snapshot(std::string_view which) {
    int pid = 0;
    const auto [end, ec] = std::from_chars(which.data(), which.data() + which.size(), pid);
    if (which.empty() || ec != std::errc() || end != which.data() + which.size())
        return makeError(ErrorKind::BadArguments,
                         "snapshot needs the PID of a process the agent records");
    std::shared_ptr<const target::AttachedProcess> door;
    {
        const std::lock_guard lock(targetsMutex_);
        for (const auto& t : targets_)
            if (t->pid == pid) door = t->built->pipeline().python().process();
        if (!door)
            return makeError(ErrorKind::ProcessNotFound,
                             "the agent records no process " + std::to_string(pid));
    }
    return snapshotLine(door); // through the recording's door: never a successor's pid
}

void HostAgent::stopRecordings() {
    control_.reset(); // no command comes in while the recordings go
    for (auto& target : targets_)
        target->recording().requestStop();
}

HostAgent::HostAgent(AgentOptions options, push::PushQueue queue)
    : options_(std::move(options)), self_(static_cast<int>(::getpid())),
      pusher_(makePusher(options_.push, std::move(queue), nullptr, {})),
      // A fresh exec maps libpython within a scan or two; a scan costs ~1 ms per
      // 100 processes, so a non-Python process is looked at twice, not 50 times.
      watch_(2, [this](int pid) { return judge(pid); }) {
}

HostAgent::~HostAgent() {
    stopRecordings();
    const std::lock_guard lock(targetsMutex_);
    targets_.clear();
}

remote::PythonProcessWatch::Look HostAgent::judge(int pid) {
    using Look = remote::PythonProcessWatch::Look;
    if (pid == self_) return Look::Ignore;
    auto info = inspectPythonCandidate(pid);
    if (!info) return Look::NotPython;
    const QString commandLine = QString::fromStdString(info->commandLine);
    if (!options_.match.pattern().isEmpty() && !options_.match.match(commandLine).hasMatch())
        return Look::Ignore;
    if (!options_.exclude.pattern().isEmpty() && options_.exclude.match(commandLine).hasMatch())
        return Look::Ignore;
    judged_[pid] = std::move(*info);
    return Look::Python;
}

void HostAgent::scan() {
    judged_.clear();
    // The processes being recorded (most of those the agent looks at) cost no /proc read.
    std::unordered_set<int> recording;
    for (const auto& target : targets_)
        recording.insert(target->pid);
    const auto isRecorded = [&](int pid) { return recording.contains(pid); };
    for (int pid : watch_.poll(listProcessIds(), isRecorded))
        if (auto it = judged_.find(pid); it != judged_.end()) record(it->second);
    judged_.clear();
}

void HostAgent::record(const PythonProcessInfo& info) {
    const std::string who =
        "process " + std::to_string(info.pid) + " (" + shortCommand(info.commandLine) + ")";
    if (!info.canAttach) {
        say("cannot attach to " + who + ": " + escapeForDisplay(info.reason));
        return;
    }
    if (static_cast<int>(targets_.size()) >= options_.maxProcesses) {
        say("not recording " + who + ": already recording " +
            std::to_string(options_.maxProcesses) + " processes (--max-processes)");
        return;
    }
    auto source = StackPipeline::open(info.pid, options_.read, {}, options_.intervalUs);
    if (!source) {
        // Caught while its runtime starts (no interpreter yet): look again at the next
        // rescans, about once a second, before giving up on this image.
        constexpr int kAttachRetries = 10;
        if (watch_.retryLater(info.pid, kAttachRetries)) return;
        say("cannot attach to " + who + ": " + escapeForDisplay(source.error().message));
        return;
    }
    auto labels = pushLabels(options_.push, source->reader());
    if (!labels) {
        say("not recording " + who + ": " + labels.error().message);
        return;
    }
    auto target = std::make_unique<Target>();
    target->pid = info.pid;
    target->sink = std::make_shared<pprof::PprofSink>(pushSinkOptions(options_.read));
    SamplerOptions sampler;
    sampler.intervalUs = options_.intervalUs;
    sampler.read = options_.read;
    sampler.group = &samplers_;
    sampler.startEnabled = enabled_; // set again below, under the lock, should it change
    auto built = PipelineRecording::build(std::move(source), {target->sink.get()}, sampler);
    if (!built) {
        say("cannot record " + who + ": " + escapeForDisplay(built.error().message));
        return;
    }
    target->built = std::move(*built);
    say("recording " + who + ": Python " + labelValue(*labels, "python_version") +
        ", service_name " + labelValue(*labels, "service_name"));
    pusher_->addSeries(target->sink, std::move(*labels));
    target->recording().start();
    const std::lock_guard lock(targetsMutex_); // the switch as it is now, and every later one
    target->recording().setEnabled(enabled_);
    targets_.push_back(std::move(target));
}

void HostAgent::retire(Target& target, const std::string& why) {
    target.recording().finish();
    pusher_->retireSeries(target.sink.get());
    say("process " + std::to_string(target.pid) + ": " + why);
}

void HostAgent::retireEnded() {
    const std::lock_guard lock(targetsMutex_);
    std::erase_if(targets_, [this](const std::unique_ptr<Target>& target) {
        if (target->recording().running()) return false;
        target->recording().finish();
        const RecordingEnd end = target->recording().end();
        std::string why = end.failure.empty() ? end.describe() : end.failure;
        if (why.empty()) why = "recording ended";
        retire(*target, escapeForDisplay(why) + "; its last profile is pushed, its series ends");
        return true;
    });
}

int HostAgent::run(const std::function<bool()>& stopRequested,
                   const std::function<bool()>& cancelled) {
    say("pushing to " + options_.push.url + " every " + std::to_string(options_.push.intervalMs) +
        " ms, sampling at " +
        std::to_string(1'000'000 / std::max<uint64_t>(options_.intervalUs, 1)) + " Hz");
    // Each recorded thread keeps a few files open (its /proc probe, its perf event): the
    // soft limit on open files (often 1024) is raised to the hard one.
    rlimit files{};
    if (::getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
        files.rlim_cur = files.rlim_max;
        ::setrlimit(RLIMIT_NOFILE, &files);
    }
    pusher_->start();
    const auto stopping = [&] { return quitRequested_ || stopRequested(); };
    while (!stopping()) {
        retireEnded();
        scan();
        for (uint64_t slept = 0; slept < options_.scanMs && !stopping(); slept += 50) {
            const timespec nap{0, 50'000'000};
            nanosleep(&nap, nullptr);
        }
    }
    say("stopping: " + std::to_string(targets_.size()) + " recordings end");
    stopRecordings();
    for (auto& target : targets_)
        retire(*target, "recording stopped; its last profile is pushed");
    {
        const std::lock_guard lock(targetsMutex_);
        targets_.clear();
    }
    pusher_->stop(10'000, cancelled);
    reportPushTotals(pusher_->totals(), options_.push.url);
    return 0;
}

} // namespace gilscope::cli
