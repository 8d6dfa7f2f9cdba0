// GUI-thread cost of one live update of the analysis views: the result (computed off the
// GUI thread in real use, here beforehand) goes into the models, trees and flame graph,
// and the window repaints. Shaped like 10 kHz x 8 threads after a while: ~600 functions,
// ~6k distinct stacks. Prints the median over 40 updates. Runs offscreen:
//   QT_QPA_PLATFORM=offscreen build/release/tests/bench/analysis/bench_gui_update
#include "core/analysis/profile_model.h"
#include "core/sample/thread_status.h"
#include "ui/analysis/analysis_controller.h"
#include "ui/analysis/analysis_panel.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QTabWidget>

#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

using namespace gilscope;
using namespace gilscope::ui;

int main(int argc, char** argv) {
    QApplication app(argc, argv);
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
    for (int i = 0; i < 800'000; ++i) { // 10 s of 10 kHz x 8 threads
        if (i % 8 == 0) t += 100;
        SampleBatch b;
        b.threadId = 100 + i % 8;
        b.status = ThreadStatus::HasGil | ThreadStatus::OnCpu;
        b.frames = stacks[rng() % stacks.size()];
        b.timestampsUs = std::span<const uint64_t>(&t, 1);
        model->addBatch(b);
    }

    AnalysisPanel panel;
    panel.resize(1400, 600);
    panel.show();
    std::vector<double> update, withPaint;
    for (int tab = 0; tab < 2; ++tab) {
        panel.tabs()->setCurrentIndex(tab); // top functions, then the flame graph
        for (int i = 0; i < 20; ++i) {
            auto r = std::make_shared<AnalysisResult>();
            r->snapshot = model->query({}).value();
            r->functions = functionTable(*r->snapshot);
            r->topDown = topDownTree(*r->snapshot);
            r->bottomUp = bottomUpTree(*r->snapshot);
            QElapsedTimer timer;
            timer.start();
            emit panel.controller()->resultReady(r); // what the controller does on the GUI thread
            update.push_back(timer.nsecsElapsed() / 1e6);
            panel.repaint();
            QApplication::processEvents();
            withPaint.push_back(timer.nsecsElapsed() / 1e6);
        }
    }
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    const auto snap = model->query({}).value();
    std::printf("functions %zu, stack nodes %zu\n", snap->functions.size(), snap->nodes.size());
    std::printf("GUI thread per live update: models %.2f ms, with layout and paint %.2f ms "
                "(median of %zu; target <= 5 ms)\n",
                median(update), median(withPaint), update.size());
    return 0;
}
