// GUI-thread cost of one live update of the analysis views: the result (computed off the
// GUI thread in real use, here beforehand) goes into the models, trees and flame graph,
// and the window repaints. Shaped like 10 kHz x 8 threads after a while: ~600 functions,
// ~6k distinct stacks, 20k new thread-samples between updates. Prints the median per
// analysis tab (top functions, flame graph, call tree, bottom-up), 20 updates each, and
// over all four; then the thread tracks' update (8 threads x 4000 buckets, the live
// timeline's cap) with their repaint. With --transforms, three call-tree transforms are
// active (merge a function, collapse recursion, collapse a module), as a user who
// reshaped the tree sees each update; their cost off the GUI thread is printed too.
// Runs offscreen:
//   QT_QPA_PLATFORM=offscreen build/release/tests/bench/analysis/bench_gui_update [--transforms]
#include "core/analysis/call_transforms.h"
#include "core/analysis/profile_model.h"
#include "core/sample/thread_status.h"
#include "ui/analysis/analysis_controller.h"
#include "ui/analysis/analysis_panel.h"
#include "ui/timeline_widget.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QTabWidget>

#include <algorithm>
#include <cstdio>
#include <random>
#include <string_view>
#include <time.h>
#include <vector>

using namespace gilscope;
using namespace gilscope::ui;

namespace {
// The GUI thread's own CPU time: on a shared, loaded machine wall time also counts the
// time the thread waited for a core.
double cpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}
double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}
} // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    const bool transformed = argc > 1 && std::string_view(argv[1]) == "--transforms";
    TransformStack transforms;
    if (transformed)
        transforms = {{TransformKind::MergeFunction, {"func3", ""}, {}, {}},
                      {TransformKind::CollapseRecursion, {}, {}, {}},
                      {TransformKind::CollapseModule, {}, {}, "mod1"}};
    std::vector<double> transformMs;
    FrameRegistry registry;
    std::mt19937 rng(42);
    std::vector<FrameId> frames;
    for (int i = 0; i < 1200; ++i) {
        FrameInfo f;
        f.filename = registry.internString("pkg/mod" + std::to_string(i % 40) + ".py");
        f.funcname = registry.internString("func" + std::to_string(i / 2));
        f.line = f.endLine = 10 + i % 7;
        frames.push_back(registry.internFrame(f));
    }
    std::vector<std::vector<FrameId>> stacks;
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
    auto model = std::make_shared<ProfileModel>();
    RecordingInfo info;
    info.sampleIntervalUs = 100;
    model->begin(registry, info);
    uint64_t t = 1'000'000;
    uint64_t i = 0;
    // 8 threads at 10 kHz: a quarter second between live updates is 20k thread-samples.
    auto feed = [&](uint64_t n) {
        for (const uint64_t end = i + n; i < end; ++i) {
            if (i % 8 == 0) t += 100;
            SampleBatch b;
            b.threadId = 100 + i % 8;
            b.status = ThreadStatus::HasGil | ThreadStatus::OnCpu;
            b.frames = stacks[rng() % stacks.size()];
            b.timestampsUs = std::span<const uint64_t>(&t, 1);
            model->addBatch(b);
        }
    };
    feed(800'000); // 10 s of 10 kHz x 8 threads

    AnalysisPanel panel;
    panel.resize(1400, 600);
    panel.show();
    panel.setLive(true); // a recording: views on hidden tabs catch up when shown
    QApplication::processEvents();
    const char* tabNames[] = {"top functions", "flame graph", "call tree", "bottom-up"};
    std::vector<double> update, withPaint, cpuUpdate, cpuPaint;
    for (int tab = 0; tab < 4; ++tab) {
        panel.tabs()->setCurrentIndex(tab);
        std::vector<double> tabUpdate, tabPaint, tabCpuUpdate, tabCpuPaint;
        for (int k = 0; k < 20; ++k) {
            feed(20'000); // what a live update brings, off the clock
            auto r = std::make_shared<AnalysisResult>();
            r->snapshot = model->query({}).value();
            if (transformed) { // off the GUI thread in real use: timed apart
                QElapsedTimer t;
                t.start();
                r->snapshot = applyTransforms(r->snapshot, transforms).value();
                transformMs.push_back(t.nsecsElapsed() / 1e6);
            }
            r->functions = functionTable(*r->snapshot);
            r->topDown = topDownTree(*r->snapshot);
            r->bottomUp = bottomUpTree(*r->snapshot);
            r->modelSerial = 1; // one recording: the views update in place
            QElapsedTimer timer;
            timer.start();
            const double cpu0 = cpuMs();
            panel.controller()->publish(r); // what a finished query does on the GUI thread
            r.reset();
            tabUpdate.push_back(timer.nsecsElapsed() / 1e6);
            tabCpuUpdate.push_back(cpuMs() - cpu0);
            // As the event loop goes on: the views' delayed layouts (zero timers), then
            // one coalesced repaint of what changed.
            QApplication::processEvents();
            QApplication::processEvents();
            tabPaint.push_back(timer.nsecsElapsed() / 1e6);
            tabCpuPaint.push_back(cpuMs() - cpu0);
        }
        std::printf("  %-13s models %.2f ms (CPU %.2f), with layout and paint %.2f ms (CPU %.2f)\n",
                    tabNames[tab], median(tabUpdate), median(tabCpuUpdate), median(tabPaint),
                    median(tabCpuPaint));
        update.insert(update.end(), tabUpdate.begin(), tabUpdate.end());
        withPaint.insert(withPaint.end(), tabPaint.begin(), tabPaint.end());
        cpuUpdate.insert(cpuUpdate.end(), tabCpuUpdate.begin(), tabCpuUpdate.end());
        cpuPaint.insert(cpuPaint.end(), tabCpuPaint.begin(), tabCpuPaint.end());
    }
    // The thread tracks: what the window's live timer hands them, and their repaint.
    TimelineSnapshot tracks;
    tracks.bucketUs = 2'500;
    tracks.spanUs = 4000 * tracks.bucketUs - 1;
    for (uint64_t tid = 100; tid < 108; ++tid) {
        ThreadTimeline& th = tracks.threads.emplace_back();
        th.threadId = tid;
        th.mainThread = tid == 100;
        th.buckets.resize(4000);
        for (TimelineBucket& b : th.buckets) {
            b.samples = 25;
            b.hasGil = uint32_t(rng() % 26);
            b.gilRequested = 25 - b.hasGil;
            b.onCpu = uint32_t(rng() % 26);
            th.samples += b.samples;
        }
        tracks.samples += th.samples;
    }
    TimelineWidget timeline;
    timeline.resize(1400, 400);
    timeline.show();
    QApplication::processEvents();
    std::vector<double> trackUpdate, trackCpu;
    for (int k = 0; k < 20; ++k) {
        TimelineSnapshot copy = tracks; // the poll's copy is made off the clock
        QElapsedTimer timer;
        timer.start();
        const double cpu0 = cpuMs();
        timeline.setSnapshot(std::move(copy));
        timeline.repaint();
        trackUpdate.push_back(timer.nsecsElapsed() / 1e6);
        trackCpu.push_back(cpuMs() - cpu0);
    }
    std::printf("thread tracks (8 threads x 4000 buckets) update and paint %.2f ms (CPU %.2f)\n",
                median(trackUpdate), median(trackCpu));
    const auto snap = model->query({}).value();
    std::printf("functions %zu, stack nodes %zu\n", snap->functions.size(), snap->nodes.size());
    std::printf("GUI thread per live update: models %.2f ms, with layout and paint %.2f ms "
                "(median of %zu over the four tabs; target <= 5 ms)\n",
                median(update), median(withPaint), update.size());
    std::printf("  its CPU time: models %.2f ms, with layout and paint %.2f ms\n",
                median(cpuUpdate), median(cpuPaint));
    if (transformed)
        std::printf("three transforms active; applying them took %.2f ms per update off the GUI "
                    "thread (median of %zu)\n",
                    median(transformMs), transformMs.size());
    return 0;
}
