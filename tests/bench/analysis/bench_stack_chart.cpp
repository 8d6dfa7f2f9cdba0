// The stack chart with 1M samples in view: the chart's query on a worker
// (ProfileModel::stackChart) and, on the GUI thread, one frame: handing the chart to
// the widget and painting it (1400 x 700 visible), also with a search highlighting,
// and a repaint alone (hover, scroll). Worst case for painting: every sample a random
// stack of 20-40 frames out of 400, so neighbouring columns rarely share frames. Two
// shapes: one thread of 1M samples (100 s at 10 kHz), and 8 threads of 125k.
// Prints medians; target: a frame <= 16 ms on the GUI thread. Runs offscreen:
//   QT_QPA_PLATFORM=offscreen build/release/tests/bench/analysis/bench_stack_chart
#include "core/analysis/profile_model.h"
#include "core/sample/thread_status.h"
#include "ui/analysis/stack_chart_widget.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QScrollArea>

#include <algorithm>
#include <cstdio>
#include <random>
#include <time.h>
#include <vector>

using namespace gilscope;
using namespace gilscope::ui;

namespace {
double cpuMs() { // the GUI thread's own CPU time (a loaded machine inflates wall time)
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}
double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

struct Feed {
    FrameRegistry registry;
    std::vector<std::vector<FrameId>> stacks;
    std::mt19937 rng{42};
    Feed() {
        std::vector<FrameId> frames;
        for (int i = 0; i < 1200; ++i) {
            FrameInfo f;
            f.filename = registry.internString("pkg/mod" + std::to_string(i % 40) + ".py");
            f.funcname = registry.internString("func" + std::to_string(i / 2));
            f.line = f.endLine = 10 + i % 7;
            frames.push_back(registry.internFrame(f));
        }
        for (int s = 0; s < 400; ++s) {
            std::vector<FrameId> rootFirst;
            if (!stacks.empty()) {
                const auto& base = stacks[rng() % stacks.size()];
                rootFirst.assign(base.rbegin(), base.rbegin() + long(rng() % base.size()));
            }
            while (rootFirst.size() < 20 + rng() % 21)
                rootFirst.push_back(frames[rng() % frames.size()]);
            stacks.emplace_back(rootFirst.rbegin(), rootFirst.rend());
        }
    }
    // 10 kHz ticks over `threads` threads, total samples in all.
    std::shared_ptr<ProfileModel> model(int threads, uint64_t total) {
        auto m = std::make_shared<ProfileModel>();
        RecordingInfo info;
        info.sampleIntervalUs = 100;
        m->begin(registry, info);
        uint64_t t = 1'000'000;
        for (uint64_t i = 0; i < total; ++i) {
            if (i % uint64_t(threads) == 0) t += 100;
            SampleBatch b;
            b.threadId = 100 + i % uint64_t(threads);
            b.status = (i / 7) % 3 ? ThreadStatus::HasGil | ThreadStatus::OnCpu
                                   : ThreadStatus::GilRequested;
            b.frames = stacks[rng() % stacks.size()];
            b.timestampsUs = std::span<const uint64_t>(&t, 1);
            m->addBatch(b);
        }
        return m;
    }
};

void run(Feed& feed, int threads) {
    const auto model = feed.model(threads, 1'000'000);
    const auto whole = model->query({}).value();
    QScrollArea scroll;
    auto* widget = new StackChartWidget;
    scroll.setWidget(widget);
    scroll.setWidgetResizable(true);
    scroll.setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    scroll.resize(1400, 700);
    scroll.show();
    QApplication::processEvents();
    StackChartRequest request;
    request.startUs = whole->originUs;
    request.endUs = whole->lastUs + 100;
    request.widthPx = uint32_t(scroll.viewport()->width());

    std::vector<double> query;
    std::shared_ptr<const StackChart> chart;
    for (int k = 0; k < 5; ++k) {
        QElapsedTimer timer;
        timer.start();
        chart = model->stackChart(request).value();
        query.push_back(timer.nsecsElapsed() / 1e6);
    }
    size_t boxes = 0;
    for (const StackChartLane& lane : chart->lanes)
        for (const auto& row : lane.depths)
            boxes += row.size();

    auto frames = [&](const char* what, bool newChart) {
        std::vector<double> wall, cpu;
        for (int k = 0; k < 30; ++k) {
            // A fresh copy, as each zoom or live update brings a new chart.
            auto next = newChart ? std::make_shared<const StackChart>(*chart) : nullptr;
            QElapsedTimer timer;
            timer.start();
            const double cpu0 = cpuMs();
            if (next) widget->setChart(std::move(next), 1);
            widget->repaint();
            wall.push_back(timer.nsecsElapsed() / 1e6);
            cpu.push_back(cpuMs() - cpu0);
        }
        std::printf("    %-34s %.2f ms (CPU %.2f)\n", what, median(wall), median(cpu));
    };
    std::printf("  %d thread(s), %llu samples in view, %zu lanes, %zu boxes, width %u px\n",
                threads, static_cast<unsigned long long>(chart->samplesInView), chart->lanes.size(),
                boxes, chart->widthPx);
    std::printf("    query on a worker (stackChart)     %.1f ms\n", median(query));
    frames("GUI frame: new chart + paint", true);
    frames("GUI frame: repaint (hover, scroll)", false);
    widget->setSearch(QStringLiteral("func1"));
    frames("GUI frame: new chart + paint, search", true);
}
} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    Feed feed;
    std::printf("Stack chart, 1M samples in view (medians; target <= 16 ms per GUI frame)\n");
    run(feed, 1);
    run(feed, 8);
    return 0;
}
