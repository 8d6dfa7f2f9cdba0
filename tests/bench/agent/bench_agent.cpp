// `gilscope agent` recording N quiet Python services (tests/targets/quiet_service.py,
// spread over the interpreters present) at 100 Hz and pushing every 10 s to a loopback
// Pyroscope receiver, in --mode cpu (its default) and wall: its CPU time over the run as
// a share of one core (goal: at most 3%) and its RSS (goal: at most 64 MiB), read from
// /proc. Once every process is recorded the run is measured for `seconds`.
//
//   bench_agent [processes=50] [seconds=25]
#include "../../integration/push/push_receiver.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"

#include <QCoreApplication>
#include <QRegularExpression>
#include <QTemporaryDir>

#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

using namespace gilscope::test;

namespace {

// utime + stime of a process, in seconds.
double cpuSeconds(qint64 pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t close = text.rfind(')');
    if (close == std::string::npos) return 0;
    std::istringstream fields(text.substr(close + 2));
    std::string field;
    double ticks = 0;
    for (int i = 3; fields >> field; ++i)
        if (i == 14 || i == 15) ticks += std::stod(field);
    return ticks / double(sysconf(_SC_CLK_TCK));
}

// A /proc/PID/status figure in MiB (VmRSS, VmHWM).
double statusMiB(qint64 pid, const std::string& key) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    for (std::string line; std::getline(in, line);)
        if (line.starts_with(key + ":")) return std::stod(line.substr(key.size() + 1)) / 1024.0;
    return 0;
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    if (qEnvironmentVariableIsEmpty("GILSCOPE_BIN")) qputenv("GILSCOPE_BIN", GILSCOPE_BUILT_BIN);
    const int count = argc > 1 ? std::max(1, std::atoi(argv[1])) : 50;
    const int seconds = argc > 2 ? std::max(5, std::atoi(argv[2])) : 25;
    const QList<Interpreter> pythons = findInterpreters(8);
    if (pythons.isEmpty()) {
        std::printf("no Python interpreter found\n");
        return 1;
    }
    const QString token = QString("bench-agent-%1").arg(QCoreApplication::applicationPid());
    std::vector<std::unique_ptr<TargetProcess>> targets;
    for (int i = 0; i < count; ++i) {
        TargetOptions options;
        options.args = {token};
        targets.push_back(std::make_unique<TargetProcess>(
            pythons[i % pythons.size()], targetScript("quiet_service.py"), options));
        if (!targets.back()->start()) {
            std::printf("target %d did not start: %s\n", i, qPrintable(targets.back()->error()));
            return 1;
        }
    }
    std::printf("%d quiet_service.py processes over %lld interpreters, 100 Hz, push every 10 s, "
                "%d s measured per mode\n",
                count, qint64(pythons.size()), seconds);
    std::printf("%-5s %9s %9s %9s %10s %8s %9s\n", "mode", "CPU %", "median", "RSS MiB", "peak MiB",
                "pushes", "samples");
    for (const char* mode : {"cpu", "wall"}) {
        PushReceiver receiver;
        QTemporaryDir dir;
        if (!receiver.start()) return 1;
        auto agent = startGilscope({"agent", "--push", receiver.url(), "--mode", mode, "--match",
                                    token, "--push-queue", dir.filePath("queue")},
                                   dir.path(), QProcess::MergedChannels);
        int recording = 0;
        QString seen;
        if (!agent || !waitForStdoutLine(
                          *agent,
                          [&](const QString& line) {
                              return line.contains("recording process") && ++recording == count;
                          },
                          &seen, 300'000)) {
            std::printf("the agent did not record every process: %s\n", qPrintable(seen));
            return 1;
        }
        const qint64 pid = agent->processId();
        const double cpu0 = cpuSeconds(pid);
        const qsizetype pushes0 = receiver.accepted().size();
        std::vector<double> perSecond, rss;
        double last = cpu0;
        for (int s = 0; s < seconds; ++s) {
            std::this_thread::sleep_for(std::chrono::seconds(1)); // a benchmark: it measures time
            const double now = cpuSeconds(pid);
            perSecond.push_back((now - last) * 100.0);
            last = now;
            rss.push_back(statusMiB(pid, "VmRSS"));
        }
        const double share = (last - cpu0) / seconds * 100.0;
        const double peak = statusMiB(pid, "VmHWM");
        const QList<ReceivedPush> pushes = receiver.accepted();
        qint64 samples = 0;
        for (qsizetype i = pushes0; i < pushes.size(); ++i)
            samples += pushes[i].samples;
        ::kill(static_cast<pid_t>(pid), SIGINT);
        agent->waitForFinished(60'000);
        std::printf("%-5s %9.2f %9.2f %9.1f %10.1f %8lld %9lld\n", mode, share, median(perSecond),
                    median(rss), peak, qint64(pushes.size() - pushes0), samples);
        std::fflush(stdout);
    }
    return 0;
}
