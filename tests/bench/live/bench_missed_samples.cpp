// Missed samples of a live recording with every view reading it against none (issue 18,
// item 11: the sampler never waits for the GUI's readers). Records
// tests/targets/eight_threads.py (4 spinning, 4 sleeping threads) at 10 kHz through
// RecordingSession, the GUI's recording path, and measures the missed-tick share over a
// window once sampling has settled:
//   none   nothing reads the session;
//   views  what the window's views read, on threads of their own: the timeline snapshot
//          at 5 Hz (MainWindow's live timer) and the analysis query at 4 Hz with the
//          three tables the views build from it (AnalysisController), and
//   hammer the same readers back to back, never pausing: the worst a reader can do.
// Runs alternate between the cases; prints the median over the runs of each.
//
//   build/release/tests/bench/live/bench_missed_samples [--runs 5] [--seconds 5]
#include "core/analysis/profile_views.h"
#include "core/session/recording_session.h"
#include "tests/support/python_interpreters.h"

#include <QCoreApplication>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

using namespace gilscope;

namespace {

enum class Readers { None, Views, Hammer };

struct Figures {
    bool ok = false;
    double missedPct = 0;
    uint64_t ticks = 0, reads = 0;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

Figures measure(int pid, Readers readers, int seconds) {
    Figures f;
    SessionOptions options;
    options.intervalUs = 100; // 10 kHz
    auto session = RecordingSession::open(pid, options);
    if (!session) {
        std::fprintf(stderr, "bench: %s\n", session.error().message.c_str());
        return f;
    }
    RecordingSession& s = **session;
    s.startSampling();
    std::this_thread::sleep_for(std::chrono::seconds(1)); // attach settles, caches fill
    std::atomic<bool> stop{false};
    std::atomic<uint64_t> reads{0};
    std::vector<std::thread> threads;
    auto reader = [&](auto read, std::chrono::milliseconds period) {
        threads.emplace_back([&, read, period] {
            while (!stop) {
                read();
                ++reads;
                if (readers == Readers::Views) std::this_thread::sleep_for(period);
            }
        });
    };
    if (readers != Readers::None) {
        reader([&] { (void)s.timeline(); }, std::chrono::milliseconds(200));
        reader(
            [&] {
                auto snap = s.profile()->query({});
                if (!snap) return;
                (void)functionTable(**snap);
                (void)topDownTree(**snap);
                (void)bottomUpTree(**snap);
            },
            std::chrono::milliseconds(250));
    }
    const SamplerStats before = s.stats();
    std::this_thread::sleep_for(std::chrono::seconds(seconds));
    const SamplerStats after = s.stats();
    stop = true;
    for (std::thread& t : threads)
        t.join();
    s.requestStop();
    s.finish();
    const uint64_t ticks = (after.okTicks + after.errors) - (before.okTicks + before.errors);
    const uint64_t missed = after.missed - before.missed;
    f.ok = ticks > 0;
    f.ticks = ticks;
    f.reads = reads;
    f.missedPct = ticks + missed ? 100.0 * double(missed) / double(ticks + missed) : 0;
    return f;
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    int runs = 5, seconds = 5;
    const QStringList args = app.arguments();
    for (int i = 1; i + 1 < args.size(); i += 2) {
        if (args[i] == QLatin1String("--runs")) runs = args[i + 1].toInt();
        if (args[i] == QLatin1String("--seconds")) seconds = args[i + 1].toInt();
    }
    const auto pythons = test::findInterpreters(8, 13);
    if (pythons.isEmpty()) {
        std::fprintf(stderr, "bench: no host Python 3.8-3.13\n");
        return 1;
    }
    test::TargetProcess target(pythons.last(), QStringLiteral("eight_threads.py"));
    if (!target.start()) {
        std::fprintf(stderr, "bench: %s\n", qPrintable(target.error()));
        return 1;
    }
    std::printf("%s, eight_threads.py at 10 kHz, %d s a run, %d runs\n",
                qPrintable(pythons.last().label), seconds, runs);
    const struct {
        const char* name;
        Readers readers;
    } cases[] = {{"none", Readers::None}, {"views", Readers::Views}, {"hammer", Readers::Hammer}};
    std::vector<std::vector<double>> missed(std::size(cases));
    std::vector<std::vector<double>> reads(std::size(cases));
    for (int run = 0; run < runs; ++run)
        for (size_t c = 0; c < std::size(cases); ++c) {
            const Figures f = measure(int(target.pid()), cases[c].readers, seconds);
            if (!f.ok) return 1;
            missed[c].push_back(f.missedPct);
            reads[c].push_back(double(f.reads));
        }
    for (size_t c = 0; c < std::size(cases); ++c) {
        std::printf("%-7s missed median %5.2f %%, reads per run %6.0f; runs:", cases[c].name,
                    median(missed[c]), median(reads[c]));
        for (double m : missed[c])
            std::printf(" %.2f", m);
        std::printf("\n");
    }
    return 0;
}
