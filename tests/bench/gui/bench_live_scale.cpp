// The window during a long live recording (issue 48): a feeder thread plays the part of
// the sampler, handing the analysis model and the live timeline what a 10-minute recording
// at 10 kHz x 8 threads gives (48M thread-samples, stacks that drift as a service's do),
// faster than real time; the analysis views and the tracks refresh as they do while
// recording. Prints, per minute of recorded time: the longest GUI-thread CPU time of one
// event (the refresh budget is 5 ms), the process's resident memory and bytes per sample;
// then how long after the end every view is final.
//
//   build/release/tests/bench/gui/bench_live_scale [--minutes 10] [--speed 10]
#include "core/analysis/profile_model.h"
#include "core/sample/tee_sink.h"
#include "core/sample/thread_status.h"
#include "core/session/live_timeline.h"
#include "tests/bench/gui/stall_meter.h"
#include "ui/analysis/analysis_controller.h"
#include "ui/analysis/analysis_panel.h"
#include "ui/timeline_widget.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QTimer>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <random>
#include <thread>

using namespace gilscope;
using namespace gilscope::bench;

namespace {

double rssMb() {
    QFile f(QStringLiteral("/proc/self/status"));
    if (!f.open(QIODevice::ReadOnly)) return 0;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (line.startsWith("VmRSS:")) return line.mid(6).trimmed().split(' ')[0].toDouble() / 1024;
    return 0;
}

// A service's 8 threads at 10 kHz: each walks 3,000 related stacks of 10-60 frames (from
// 2,000 functions), moving on now and then; the GIL passes around.
class Feeder {
public:
    Feeder(SampleSink& sink, uint64_t totalTicks) : sink_(sink), total_(totalTicks) {
        for (int i = 0; i < 2000; ++i) {
            FrameInfo f;
            f.filename = registry_.internString("/srv/app/m" + std::to_string(i % 97) + ".py");
            f.funcname = registry_.internString("f" + std::to_string(i));
            f.line = f.endLine = 10 + i % 500;
            pool_.push_back(registry_.internFrame(f));
        }
        std::mt19937 rng(7);
        paths_.resize(3000);
        for (int k = 0; k < 30; ++k)
            paths_[0].push_back(pool_[rng() % pool_.size()]);
        for (size_t i = 1; i < paths_.size(); ++i) {
            paths_[i] = paths_[rng() % i];
            for (unsigned n = rng() % 4; n > 0 && paths_[i].size() > 10; --n)
                paths_[i].erase(paths_[i].begin());
            for (unsigned n = rng() % 4; n > 0 && paths_[i].size() < 60; --n)
                paths_[i].insert(paths_[i].begin(), pool_[rng() % pool_.size()]);
        }
        RecordingInfo info;
        info.sampleIntervalUs = 100;
        info.mode = 3;
        sink_.begin(registry_, info);
    }
    // Feeds ticks until `upTo` (paced by the caller); returns the ticks fed so far.
    void feed(uint64_t upTo) {
        std::mt19937& rng = rng_;
        for (; tick_ < std::min(upTo, total_); ++tick_) {
            const uint64_t ts = 1'000'000 + tick_ * 100;
            for (int t = 0; t < 8; ++t) {
                if (rng() % 1000 < 15)
                    at_[t] = (at_[t] + rng() % 7 + paths_.size() - 3) % paths_.size();
                SampleBatch b;
                b.threadId = 1000 + t;
                const bool gil = t == int(tick_ / 50 % 8);
                b.status = (t == 0 ? ThreadStatus::MainThread : 0) |
                           (gil         ? ThreadStatus::HasGil | ThreadStatus::OnCpu
                            : rng() % 3 ? 0u
                                        : ThreadStatus::GilRequested);
                b.frames = paths_[at_[t]];
                b.timestampsUs = std::span<const uint64_t>(&ts, 1);
                sink_.addBatch(b);
            }
        }
    }
    uint64_t ticks() const { return tick_; }
    void finish() { sink_.finish({}); }

private:
    SampleSink& sink_;
    uint64_t total_;
    FrameRegistry registry_;
    std::vector<FrameId> pool_;
    std::vector<std::vector<FrameId>> paths_;
    size_t at_[8] = {};
    uint64_t tick_ = 0;
    std::mt19937 rng_{11};
};

} // namespace

int main(int argc, char** argv) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    TimedApplication app(argc, argv);
    double minutes = 10, speed = 10;
    for (int i = 1; i + 1 < argc; ++i) {
        if (QByteArray(argv[i]) == "--minutes") minutes = std::atof(argv[++i]);
        if (QByteArray(argv[i]) == "--speed") speed = std::atof(argv[++i]);
    }
    const auto totalTicks = uint64_t(minutes * 60 * 10'000);
    auto model = std::make_shared<ProfileModel>();
    LiveTimeline timeline;
    TeeSink sinks;
    sinks.add(model.get());
    sinks.add(&timeline);
    Feeder feeder(sinks, totalTicks);

    ui::AnalysisPanel panel;
    ui::TimelineWidget tracks;
    panel.attachTimeline(&tracks);
    panel.resize(1600, 700);
    tracks.resize(1600, 400);
    panel.show();
    tracks.show();
    panel.showRecording(model, nullptr, true);

    // The sampler's part, paced at `speed` times real time.
    std::atomic<bool> done{false};
    std::thread sampler([&] {
        const auto start = std::chrono::steady_clock::now();
        while (feeder.ticks() < totalTicks) {
            const double elapsed =
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            feeder.feed(uint64_t(elapsed * speed * 10'000) + 1);
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
        }
        feeder.finish();
        done = true;
    });
    QTimer refresh; // the recording page's 4 Hz tracks update
    QObject::connect(&refresh, &QTimer::timeout, &tracks,
                     [&] { tracks.setSnapshot(timeline.snapshot()); });
    refresh.start(250);
    app.startRecording(5);
    std::printf("minute  worst GUI event (CPU ms)  RSS (MB)  bytes/sample\n");
    double lastMinute = 0;
    double worstOverall = 0;
    QEventLoop loop;
    QTimer report;
    QObject::connect(&report, &QTimer::timeout, &loop, [&] {
        const double recorded = double(feeder.ticks()) / 10'000 / 60;
        if (recorded >= lastMinute + 1 || done) {
            const double worst = app.maxCpuMs();
            worstOverall = std::max(worstOverall, worst);
            const double samples = double(feeder.ticks()) * 8;
            std::printf("%6.1f  %24.2f  %8.0f  %12.1f\n", recorded, worst, rssMb(),
                        rssMb() * 1048576.0 / std::max(samples, 1.0));
            std::fflush(stdout);
            for (const SlowEvent& e : app.takeSlowEvents())
                if (e.cpuMs >= 4.5 && e.depth == 0)
                    std::printf("        %.2f ms CPU: %s\n", e.cpuMs, qPrintable(e.what));
            app.startRecording(5); // the worst per minute
            lastMinute = std::floor(recorded);
        }
        if (done) loop.quit();
    });
    report.start(100);
    loop.exec();
    sampler.join();
    // The end: the views go final (no more live refreshes), as a stopped recording's do.
    QElapsedTimer final;
    final.start();
    panel.setLive(false);
    tracks.setSnapshot(timeline.snapshot());
    QEventLoop wait;
    QTimer poll;
    QObject::connect(&poll, &QTimer::timeout, &wait, [&] {
        const auto r = panel.controller()->latest();
        if (r && r->snapshot && r->snapshot->finished &&
            r->generation == panel.controller()->generation() && !panel.controller()->busy())
            wait.quit();
    });
    poll.start(5);
    wait.exec();
    std::printf("every view final %.2f s after the end; worst GUI event %.2f ms CPU; %.0f MB\n",
                double(final.nsecsElapsed()) / 1e9, worstOverall, rssMb());
    return 0;
}
