// How soon `gilscope attach --subprocesses` records a child: a parent spawns N Python
// children one after another (each spins 0.3 s); for each, the first sample of its own
// recording is compared with the moment the parent spawned it and with the child's
// first line (negative: recording started before it). CPython's target: within 100 ms
// of the start.
//
//   bench_child_pickup [children=10]
#include "core/tach/tach_reader.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"

#include <QCoreApplication>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <vector>

using namespace gilscope;
using namespace gilscope::test;

namespace {

const char* kParent = R"(import os, subprocess, sys, time
go, n = sys.argv[1], int(sys.argv[2])
print("READY", os.getpid(), flush=True)
while not os.path.exists(go):
    time.sleep(0.005)
child = ("import time\nprint('FIRST', time.monotonic_ns() // 1000, flush=True)\n"
         "end = time.perf_counter() + 0.3\nwhile time.perf_counter() < end:\n    pass\n")
for i in range(n):
    spawned = time.monotonic_ns() // 1000
    p = subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE, text=True)
    first = p.stdout.readline().split()[1]
    p.wait()
    print("CHILD", p.pid, spawned, first, flush=True)
)";

uint64_t firstSampleUs(const QString& bin) {
    class Sink final : public SampleSink {
    public:
        void begin(const FrameRegistry&, const RecordingInfo&) override {}
        void addBatch(const SampleBatch& b) override {
            for (uint64_t t : b.timestampsUs)
                first = std::min(first, t);
        }
        uint64_t first = std::numeric_limits<uint64_t>::max();
    } sink;
    auto reader = TachReader::open(bin.toStdString());
    if (!reader || !reader->replay(sink)) return 0;
    return sink.first == std::numeric_limits<uint64_t>::max() ? 0 : sink.first;
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double worst(const std::vector<double>& v) {
    return v.empty() ? 0 : *std::max_element(v.begin(), v.end());
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const int children = argc > 1 ? std::max(1, std::atoi(argv[1])) : 10;
    std::printf("first sample of each child's own recording, %d children per interpreter (ms)\n",
                children);
    std::printf("%-26s %8s %8s %12s %8s %6s\n", "interpreter", "spawn+", "worst", "first line+",
                "worst", "found");
    for (const Interpreter& py : findInterpreters(8, 13)) {
        QTemporaryDir dir;
        QFile script(dir.filePath("parent.py"));
        if (!script.open(QIODevice::WriteOnly) || script.write(kParent) < 0) return 1;
        script.close();
        QProcess parent;
        parent.start(py.executable,
                     {script.fileName(), dir.filePath("go"), QString::number(children)});
        while (!parent.canReadLine() && parent.waitForReadyRead(30000)) {
        }
        if (!parent.canReadLine()) {
            std::printf("%-26s the parent did not start\n", qPrintable(py.label));
            continue;
        }
        const QByteArray ready = parent.readLine();
        const QString pid = QString::fromLatin1(ready.split(' ').value(1)).trimmed();
        auto gs = startGilscope({"attach", "--subprocesses", "--binary", "-r", "1000",
                                 "--realtime-stats", "-o", dir.filePath("out.bin"), pid},
                                dir.path(), QProcess::MergedChannels);
        QString seen;
        if (!gs || !waitForStdoutLine(
                       *gs, [](const QString& l) { return l.contains("Samples: "); }, &seen)) {
            std::printf("%-26s gilscope did not start sampling: %s\n", qPrintable(py.label),
                        qPrintable(seen));
            continue;
        }
        QFile(dir.filePath("go")).open(QIODevice::WriteOnly);
        parent.waitForFinished(120000);
        gs->waitForFinished(120000);
        std::vector<double> fromSpawn, fromFirstLine;
        for (const QByteArray& line : parent.readAllStandardOutput().split('\n')) {
            const QList<QByteArray> f = line.trimmed().split(' ');
            if (f.size() != 4 || f[0] != "CHILD") continue;
            const uint64_t first =
                firstSampleUs(dir.filePath("out_" + QString::fromLatin1(f[1]) + ".bin"));
            if (first == 0) continue;
            fromSpawn.push_back((double(first) - f[2].toDouble()) / 1000.0);
            fromFirstLine.push_back((double(first) - f[3].toDouble()) / 1000.0);
        }
        std::printf("%-26s %8.1f %8.1f %12.1f %8.1f %3zu/%d\n", qPrintable(py.label),
                    median(fromSpawn), worst(fromSpawn), median(fromFirstLine),
                    worst(fromFirstLine), fromSpawn.size(), children);
        std::fflush(stdout);
    }
    return 0;
}
