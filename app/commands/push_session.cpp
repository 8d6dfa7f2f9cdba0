#include "app/commands/push_session.h"

#include "app/commands/cli_output.h"
#include "app/commands/recording_output.h"
#include "core/target/attached_process.h"
#include "net/push_transport.h"

#include <QUrl>

#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace gilscope::cli {

namespace {

std::string hostName() {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0) return "unknown";
    return name;
}

std::string defaultQueueDir() {
    if (const char* state = std::getenv("XDG_STATE_HOME"); state && *state)
        return std::string(state) + "/gilscope/push-queue";
    if (const char* home = std::getenv("HOME"); home && *home)
        return std::string(home) + "/.local/state/gilscope/push-queue";
    return "/tmp/gilscope-push-queue-" + std::to_string(getuid());
}

} // namespace

Result<std::vector<push::PushLabel>> pushLabels(const PushOptions& options,
                                                const StackSource& source) {
    const auto door = source.process();
    std::vector<push::PushLabel> labels{
        {"__name__", "process_cpu"},
        {"service_name", options.serviceName.empty()
                             ? push::serviceNameFromCommandLine(door ? door->commandLine()
                                                                     : std::vector<std::string>{})
                             : options.serviceName},
        {"pid", std::to_string(source.pid())},
        {"hostname", hostName()},
        {"python_version", source.pythonVersion().str()},
    };
    labels.insert(labels.end(), options.labels.begin(), options.labels.end());
    if (Status s = push::validatePushLabels(labels); !s) return s.error();
    return labels;
}

Result<push::PushQueue> openPushQueue(const PushOptions& options) {
    const std::string base = options.queueDir.empty() ? defaultQueueDir() : options.queueDir;
    return push::PushQueue::openSession(base, options.queueBytes);
}

std::unique_ptr<push::Pusher> makePusher(const PushOptions& options, push::PushQueue queue,
                                         pprof::PprofSink* sink,
                                         std::vector<push::PushLabel> labels) {
    net::PushEndpoint endpoint;
    const QUrl base(QString::fromStdString(options.url));
    endpoint.url = options.parca ? net::parcaWriteRawUrl(base) : net::pyroscopePushUrl(base);
    endpoint.parca = options.parca;
    for (const auto& [name, value] : options.headers)
        endpoint.headers.append(
            {QByteArray::fromStdString(name), QByteArray::fromStdString(value)});
    endpoint.user = QByteArray::fromStdString(options.user);
    endpoint.password = QByteArray::fromStdString(options.password);
    // A send that timed out is sent again, so a server that answered late gets it twice
    // (at 500 ms intervals on a loaded machine, an interval's wait did that). Ten seconds,
    // whatever the interval: later profiles wait in the queue meanwhile.
    endpoint.timeoutMs = 10'000;
    push::PusherOptions p;
    p.format = options.parca ? push::PushFormat::Parca : push::PushFormat::Pyroscope;
    p.labels = std::move(labels);
    p.target = endpoint.url.toString().toStdString();
    p.intervalMs = options.intervalMs;
    p.minBackoffMs = std::min<uint64_t>(1000, options.intervalMs);
    p.maxBackoffMs = std::max<uint64_t>(60'000, options.intervalMs);
    auto transport = [endpoint] { return net::makePushTransport(endpoint); };
    auto log = [](const std::string& line) {
        std::fprintf(stderr, "gilscope: %s\n", line.c_str());
        std::fflush(stderr);
    };
    if (!sink)
        return std::make_unique<push::Pusher>(std::move(queue), std::move(transport), std::move(p),
                                              std::move(log));
    return std::make_unique<push::Pusher>(*sink, std::move(queue), std::move(transport),
                                          std::move(p), std::move(log));
}

void reportPushTotals(const push::Pusher::Totals& t, const std::string& url) {
    std::fprintf(messages(), "Pushed %llu profiles to %s (%llu recorded by this run)",
                 static_cast<unsigned long long>(t.sent), url.c_str(),
                 static_cast<unsigned long long>(t.profiles));
    if (t.refused > 0)
        std::fprintf(messages(), " (%llu refused by the server)",
                     static_cast<unsigned long long>(t.refused));
    if (t.dropped > 0)
        std::fprintf(messages(), " (%llu dropped: the queue was full)",
                     static_cast<unsigned long long>(t.dropped));
    std::fprintf(messages(), "\n");
    if (t.left > 0)
        std::fprintf(stderr,
                     "gilscope: %zu profiles not sent yet stay queued; the next `gilscope attach "
                     "--push` or `gilscope agent` with the same --push-queue sends them\n",
                     t.left);
}

pprof::PprofSinkOptions pushSinkOptions(const ReadOptions& read) {
    RecordingFacts facts;
    facts.mode = static_cast<int>(recordedMode(read));
    facts.liveTarget = true;
    auto options = pprofSinkOptions(facts);
    options.traceIds = false; // one series per trace in the engine: the span_id finds it
    return options;
}

Result<std::unique_ptr<PushSession>> PushSession::create(const RecordOptions& options,
                                                         StackSource& source) {
    auto labels = pushLabels(options.push, source);
    if (!labels) return labels.error();
    auto queue = openPushQueue(options.push);
    if (!queue) return queue.error();
    return std::unique_ptr<PushSession>(
        new PushSession(options, std::move(*queue), std::move(*labels)));
}

PushSession::PushSession(const RecordOptions& options, push::PushQueue queue,
                         std::vector<push::PushLabel> labels)
    : sink_(pushSinkOptions(options.readOptions())), url_(options.push.url),
      pusher_(makePusher(options.push, std::move(queue), &sink_, std::move(labels))) {
}

void PushSession::finish(std::function<bool()> cancelled) {
    pusher_->stop(10'000, std::move(cancelled));
    reportPushTotals(pusher_->totals(), url_);
}

} // namespace gilscope::cli
