// The window at scale (issue 48): the real MainWindow, offscreen, opens a big `.bin` (made by
// CPython's own writer: ../shared/tools/make-big-bin) and is clicked through what a user
// does first. For each step: the wall time until the views answered (the analysis views'
// result for that filter shown and, for the open, the tracks drawn), and the process's
// resident memory and its peak so far.
//
//   build/release/tests/bench/gui/bench_window_scale FILE.bin [--runs 3]
//
// Compare with `gilscope report FILE.bin` on the same file (the command line's cost of the
// same aggregation): tests/bench/gui/window_scale.sh prints both side by side.
#include "core/analysis/call_transforms.h"
#include "core/session/live_timeline.h"
#include "tests/bench/gui/run_event_loop.h"
#include "ui/analysis/analysis_controller.h"
#include "ui/analysis/analysis_panel.h"
#include "ui/main_window.h"
#include "ui/timeline_widget.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

using namespace gilscope;
using gilscope::bench::runUntil;
using gilscope::ui::MainWindow;

namespace {

// VmRSS and VmHWM, in MB.
std::pair<double, double> memoryMb() {
    QFile f(QStringLiteral("/proc/self/status"));
    double rss = 0, hwm = 0;
    if (!f.open(QIODevice::ReadOnly)) return {0, 0};
    for (const QByteArray& line : f.readAll().split('\n')) {
        if (line.startsWith("VmRSS:")) rss = line.mid(6).trimmed().split(' ')[0].toDouble() / 1024;
        if (line.startsWith("VmHWM:")) hwm = line.mid(6).trimmed().split(' ')[0].toDouble() / 1024;
    }
    return {rss, hwm};
}

struct Step {
    std::string name;
    double seconds = -1; // -1: did not answer in time
    double rssMb = 0, peakMb = 0;
};

} // namespace

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QString bin;
    int runs = 1;
    int timeoutMs = 600000;
    for (int i = 1; i < argc; ++i) {
        const QString a = QString::fromLocal8Bit(argv[i]);
        if (a == QLatin1String("--runs") && i + 1 < argc)
            runs = QString::fromLocal8Bit(argv[++i]).toInt();
        else if (a == QLatin1String("--timeout") && i + 1 < argc)
            timeoutMs = QString::fromLocal8Bit(argv[++i]).toInt() * 1000;
        else
            bin = a;
    }
    if (bin.isEmpty()) {
        std::fprintf(stderr, "usage: bench_window_scale FILE.bin [--runs N] [--timeout S]\n");
        return 2;
    }
    std::map<std::string, std::vector<double>> times;
    std::vector<std::string> order;
    double worstPeak = 0;
    for (int run = 0; run < runs; ++run) {
        MainWindow window;
        window.prompts().showMessage = [](MainWindow::MessageKind, const QString&,
                                          const QString& text) {
            std::fprintf(stderr, "message: %s\n", qPrintable(text));
        };
        window.resize(1600, 1000);
        window.show();
        ui::AnalysisPanel* panel = window.analysis();
        ui::AnalysisController* controller = panel->controller();
        bool loaded = false;
        QObject::connect(&window, &MainWindow::recordingLoaded, [&](bool ok) { loaded = ok; });
        uint64_t shownGeneration = 0;
        QObject::connect(panel, &ui::AnalysisPanel::resultShown, [&] {
            if (const auto r = controller->latest()) shownGeneration = r->generation;
        });
        // "Answered": the views show the result of the newest request.
        const auto answered = [&] { return shownGeneration == controller->generation(); };
        std::vector<Step> steps;
        const auto step = [&](const std::string& name, const std::function<void()>& act,
                              const std::function<bool()>& done) {
            QElapsedTimer t;
            t.start();
            act();
            Step s{name};
            if (runUntil(done, timeoutMs)) s.seconds = double(t.nsecsElapsed()) / 1e9;
            const auto [rss, peak] = memoryMb();
            s.rssMb = rss;
            s.peakMb = peak;
            steps.push_back(s);
            std::fprintf(stderr, "  %-28s %8.2f s   rss %7.0f MB   peak %7.0f MB\n", name.c_str(),
                         s.seconds, rss, peak);
        };
        QElapsedTimer opened;
        opened.start();
        step(
            "tracks drawn", [&] { window.openRecordingFile(bin); },
            [&] { return !window.timeline()->snapshot().threads.empty(); });
        step(
            "first page filled", [] {},
            [&] {
                const auto r = controller->latest();
                return loaded && r && r->snapshot && r->snapshot->finished && answered();
            });
        const auto latest = controller->latest();
        if (!latest || !latest->snapshot || latest->snapshot->threads.empty()) {
            std::fprintf(stderr, "no result\n");
            return 1;
        }
        const ProfileSnapshot& s = *latest->snapshot;
        const uint64_t thread = s.threads.front().threadId;
        const uint64_t span = s.lastUs - s.originUs;
        // The hottest function by own samples, for the transform.
        uint32_t hot = 0;
        uint64_t hotOwn = 0;
        for (const FunctionRow& f : latest->functions)
            if (f.own > hotOwn) {
                hotOwn = f.own;
                hot = f.func;
            }
        const FunctionRef hotRef{s.functions[hot].name, s.functions[hot].file};
        const auto click = [&](const std::string& name, const std::function<void()>& act) {
            step(name, act, answered);
        };
        click("select one thread", [&] { controller->setThreads({thread}); });
        click("back to all threads", [&] { controller->setThreads({}); });
        click("range (middle half)",
              [&] { controller->setRange(s.originUs + span / 4, s.originUs + 3 * span / 4); });
        click("state filter: on CPU", [&] { controller->setState(StateFilter::OnCpu); });
        click("state filter: all", [&] { controller->setState(StateFilter::All); });
        click("merge hottest function", [&] {
            controller->addTransform(CallTransform{TransformKind::MergeFunction, hotRef, {}, {}});
        });
        click("undo (back)", [&] { controller->back(); });
        click("undo (back) again", [&] { controller->back(); });
        for (const Step& st : steps) {
            if (run == 0) order.push_back(st.name);
            times[st.name].push_back(st.seconds);
            worstPeak = std::max(worstPeak, st.peakMb);
        }
        std::fprintf(stderr, "run %d: %.1f s in all\n", run + 1, double(opened.elapsed()) / 1e3);
    }
    std::printf("%s (%d run%s; median s)\n", qPrintable(bin), runs, runs == 1 ? "" : "s");
    for (const std::string& name : order) {
        std::vector<double> v = times[name];
        std::sort(v.begin(), v.end());
        std::printf("  %-28s %8.2f\n", name.c_str(), v[v.size() / 2]);
    }
    std::printf("  %-28s %8.0f MB\n", "peak memory", worstPeak);
    return 0;
}
