// The stack chart query (ProfileModel::stackChart) over synthetic recordings: a column
// shows the stack recorded at its time, boxes merge across columns per depth and nest,
// a zoomed-out column shows the stack that covers most of its time, a sample covers at
// most two intervals, the thread selection and lane order, the state strip, samples
// from spilled blocks, and cancelling.
#include "core/analysis/profile_model.h"
#include "core/sample/thread_status.h"
#include "tests/support/synthetic_feed.h"

#include <QTest>

using namespace gilscope;
using gilscope::test::SyntheticFeed;
namespace TS = gilscope::ThreadStatus;

namespace {

constexpr uint64_t kT0 = 5'000'000;

std::shared_ptr<const StackChart> chartOf(const ProfileModel& m, uint64_t start, uint64_t end,
                                          uint32_t width, std::vector<uint64_t> threads = {},
                                          TransformStack transforms = {}) {
    StackChartRequest r;
    r.startUs = start;
    r.endUs = end;
    r.widthPx = width;
    r.threads = std::move(threads);
    r.transforms = std::move(transforms);
    auto c = m.stackChart(r);
    if (!c) qFatal("stack chart failed: %s", c.error().message.c_str());
    return *c;
}

// Function names of a column's stack, root first, as its boxes draw it.
QStringList stackAt(const StackChart& c, size_t lane, uint32_t x) {
    QStringList names;
    for (const auto& row : c.lanes[lane].depths)
        for (const StackChartBox& b : row)
            if (b.x0 <= x && x < b.x1)
                names << QString::fromStdString(c.functions[c.nodes[b.node].func].name);
    return names;
}

} // namespace

class TestStackChart : public QObject {
    Q_OBJECT
private slots:
    // 1 kHz: main, main>a, main>a>b, main>c, repeated; 10 columns per sample.
    void columnsShowTheStackRecordedAtTheirTime() {
        ProfileModel m;
        SyntheticFeed f(m);
        const FrameId main = f.frame("app.py", 1, "main"), a = f.frame("app.py", 2, "a"),
                      b = f.frame("app.py", 3, "b"), c = f.frame("lib.py", 4, "c");
        const std::vector<std::vector<FrameId>> stacks = {
            {main}, {a, main}, {b, a, main}, {c, main}};
        for (uint64_t i = 0; i < 40; ++i)
            f.add(7, TS::HasGil | TS::OnCpu, stacks[i % 4], {kT0 + i * 1000});
        const auto chart = chartOf(m, kT0 + 8000, kT0 + 28000, 200);
        QCOMPARE(chart->lanes.size(), 1u);
        QCOMPARE(chart->lanes[0].threadId, 7u);
        QCOMPARE(chart->lanes[0].samples, 20u);
        const QStringList expect[] = {{"main"}, {"main", "a"}, {"main", "a", "b"}, {"main", "c"}};
        for (uint32_t x = 0; x < 200; ++x) {
            const uint64_t t = chart->columnStartUs(x);
            QCOMPARE(chart->columnAt(t), x);
            QCOMPARE(stackAt(*chart, 0, x), expect[((t - kT0) / 1000) % 4]);
        }
        // A width that does not divide the time: a column's start is still drawn in it,
        // and a column within one sample shows that sample.
        const auto odd = chartOf(m, kT0 + 8000, kT0 + 28000, 173);
        for (uint32_t x = 0; x < 173; ++x) {
            const uint64_t from = odd->columnStartUs(x), to = odd->columnStartUs(x + 1);
            QCOMPARE(odd->columnAt(from), x);
            QVERIFY(to > from);
            if ((from - kT0) / 1000 == (to - 1 - kT0) / 1000)
                QCOMPARE(stackAt(*odd, 0, x), expect[((from - kT0) / 1000) % 4]);
        }
        // More columns than µs: one per µs.
        QCOMPARE(chartOf(m, kT0, kT0 + 50, 400)->widthPx, 50u);
        // main spans every column in one box; a's boxes span two samples (a, then a>b).
        QCOMPARE(chart->lanes[0].depths[0].size(), 1u);
        QCOMPARE(chart->lanes[0].depths[0][0].x1 - chart->lanes[0].depths[0][0].x0, 200u);
        const StackChartBox& firstA = chart->lanes[0].depths[1][0];
        QCOMPARE(firstA.x0, 10u); // the sample at +9 ms is main>a
        QCOMPARE(firstA.x1, 30u);
        QCOMPARE(chart->lanes[0].depths.size(), 3u);
        // Boxes nest: a box at depth d lies within one box at depth d-1.
        for (size_t d = 1; d < chart->lanes[0].depths.size(); ++d)
            for (const StackChartBox& box : chart->lanes[0].depths[d]) {
                int parents = 0;
                for (const StackChartBox& p : chart->lanes[0].depths[d - 1])
                    if (p.x0 <= box.x0 && box.x1 <= p.x1 && p.node == chart->nodes[box.node].parent)
                        ++parents;
                QCOMPARE(parents, 1);
            }
    }

    // The views' transforms reshape each column's stack (issue 38): merge takes a frame
    // out of every column, drop empties the columns with it, collapse recursion turns a
    // tower into one frame, focus roots the columns at the function; invert changes
    // nothing over time. The columns' times and states stay where they were.
    void transformsReshapeEveryColumn() {
        ProfileModel m;
        SyntheticFeed f(m);
        const FrameId main = f.frame("app.py", 1, "main"), wrap = f.frame("app.py", 2, "wrapper"),
                      visit = f.frame("app.py", 3, "visit"), leaf = f.frame("app.py", 4, "leaf"),
                      idle = f.frame("app.py", 5, "idle");
        const std::vector<std::vector<FrameId>> stacks = {
            {leaf, visit, visit, visit, wrap, main}, {visit, wrap, main}, {idle, main}};
        for (uint64_t i = 0; i < 30; ++i)
            f.add(7, TS::HasGil | TS::OnCpu, stacks[i % 3], {kT0 + i * 1000});
        const uint64_t from = kT0 + 3000, to = kT0 + 27000;
        const auto plain = chartOf(m, from, to, 240);
        const auto at = [&](const StackChart& c, uint32_t x) { return stackAt(c, 0, x); };
        auto call = [](TransformKind kind, const char* fn = "") {
            CallTransform t;
            t.kind = kind;
            t.function = {fn, {}};
            return t;
        };
        const auto merged =
            chartOf(m, from, to, 240, {}, {call(TransformKind::MergeFunction, "wrapper")});
        const auto dropped =
            chartOf(m, from, to, 240, {}, {call(TransformKind::DropFunction, "idle")});
        const auto collapsed =
            chartOf(m, from, to, 240, {}, {call(TransformKind::CollapseRecursion)});
        const auto focused =
            chartOf(m, from, to, 240, {}, {call(TransformKind::FocusFunction, "visit")});
        const auto inverted = chartOf(m, from, to, 240, {}, {call(TransformKind::Invert)});
        for (uint32_t x = 0; x < 240; ++x) {
            const uint64_t i = (plain->columnStartUs(x) - kT0) / 1000;
            const QStringList stack = at(*plain, x);
            QStringList noWrapper = stack;
            noWrapper.removeAll("wrapper");
            QCOMPARE(at(*merged, x), noWrapper);
            QCOMPARE(at(*inverted, x), stack);
            QCOMPARE(merged->lanes[0].state[x], plain->lanes[0].state[x]);
            if (i % 3 == 2) { // main > idle
                QVERIFY(at(*dropped, x).isEmpty());
                QCOMPARE(dropped->lanes[0].leaf[x], StackChartLane::kNoLeaf);
                QVERIFY(at(*focused, x).isEmpty());
            } else {
                QCOMPARE(at(*dropped, x), stack);
            }
            if (i % 3 == 0) { // the tower
                QCOMPARE(at(*collapsed, x), (QStringList{"main", "wrapper", "visit", "leaf"}));
                QCOMPARE(at(*focused, x), (QStringList{"visit", "visit", "visit", "leaf"}));
            }
            if (i % 3 == 1) QCOMPARE(at(*focused, x), QStringList{"visit"});
        }
        QCOMPARE(collapsed->lanes[0].depths.size(), 4u);
        QCOMPARE(plain->recordedFunctions, plain->functions.size());
        // A collapsed module is a function of its own, after the recording's.
        CallTransform mod;
        mod.kind = TransformKind::CollapseModule;
        mod.module = "app";
        const auto folded = chartOf(m, from, to, 240, {}, {mod});
        QCOMPARE(folded->recordedFunctions, plain->functions.size());
        QCOMPARE(folded->functions.size(), plain->functions.size() + 1);
        QCOMPARE(at(*folded, 0), QStringList{"[app]"});
    }

    // 10 samples per column: a column shows the stack covering most of its time.
    void zoomedOutColumnsShowTheirMainStack() {
        ProfileModel m;
        SyntheticFeed f(m, 100);
        const FrameId main = f.frame("app.py", 1, "main"), hot = f.frame("app.py", 2, "hot"),
                      cold = f.frame("app.py", 3, "cold");
        for (uint64_t i = 0; i < 1000; ++i) // per 10: 7 hot, 3 cold, then 3 and 7 alternately
            f.add(1, TS::HasGil,
                  (i % 10 < ((i / 10) % 2 ? 3 : 7)) ? std::vector{hot, main}
                                                    : std::vector{cold, main},
                  {kT0 + i * 100});
        const auto chart = chartOf(m, kT0, kT0 + 100'000, 100);
        for (uint32_t x = 0; x < 100; ++x)
            QCOMPARE(stackAt(*chart, 0, x), (QStringList{"main", x % 2 ? "cold" : "hot"}));
        QCOMPARE(chart->lanes[0].depths[1].size(), 100u); // hot, cold, ... never merged
    }

    // A sample covers its time to the next sample, at most two intervals: a thread that
    // was not sampled for a while shows nothing there.
    void gapsStayEmpty() {
        ProfileModel m;
        SyntheticFeed f(m, 1000);
        const FrameId main = f.frame("app.py", 1, "main");
        f.add(1, TS::HasGil, {main}, {kT0, kT0 + 1000});
        f.add(1, TS::HasGil, {main}, {kT0 + 10'000});
        const auto chart = chartOf(m, kT0, kT0 + 20'000, 20); // 1 ms per column
        const auto& leaf = chart->lanes[0].leaf;
        QVERIFY(leaf[0] != StackChartLane::kNoLeaf);
        QVERIFY(leaf[2] != StackChartLane::kNoLeaf); // the second sample covers 2 intervals
        QCOMPARE(leaf[3], StackChartLane::kNoLeaf);
        QCOMPARE(leaf[9], StackChartLane::kNoLeaf);
        QVERIFY(leaf[10] != StackChartLane::kNoLeaf);
        QCOMPARE(leaf[11], StackChartLane::kNoLeaf); // the last covers one interval
        QCOMPARE(chart->lanes[0].state[0], ColumnState::HoldsGil);
        QCOMPARE(chart->lanes[0].state[5], ColumnState::None);
    }

    // A sample taken before the window covers its start; one after it ends the cover of
    // the last one inside. Out-of-order samples (a replayed file) neither crash nor
    // reach back into columns already drawn.
    void windowEdgesAndDisorder() {
        ProfileModel m;
        SyntheticFeed f(m, 1000);
        const FrameId main = f.frame("app.py", 1, "main"), a = f.frame("app.py", 2, "a"),
                      b = f.frame("app.py", 3, "b");
        f.add(1, TS::HasGil, {a, main}, {kT0, kT0 + 1000});
        f.add(1, TS::HasGil, {b, main}, {kT0 + 2000});
        f.add(1, TS::HasGil, {a, main}, {kT0 + 1500}); // older than the one before
        f.add(1, TS::HasGil, {main}, {kT0 + 3000, kT0 + 4000});
        const auto edge = chartOf(m, kT0 + 1500, kT0 + 2500, 10);
        QCOMPARE(stackAt(*edge, 0, 0), (QStringList{"main", "a"})); // the sample at +1 ms
        QCOMPARE(stackAt(*edge, 0, 9), (QStringList{"main", "b"}));
        const auto whole = chartOf(m, kT0, kT0 + 5000, 50);
        QCOMPARE(whole->lanes[0].samples, 6u);
        QCOMPARE(stackAt(*whole, 0, 5), (QStringList{"main", "a"}));
        QCOMPARE(stackAt(*whole, 0, 35), QStringList{"main"});
        for (uint32_t x = 0; x < 50; ++x)
            QVERIFY(whole->lanes[0].leaf[x] != StackChartLane::kNoLeaf);
    }

    // The state strip: each column's state is the one of most of its time.
    void stateStripFollowsTheStatus() {
        ProfileModel m;
        SyntheticFeed f(m, 1000);
        const FrameId main = f.frame("app.py", 1, "main");
        const uint32_t states[] = {TS::HasGil | TS::OnCpu, TS::GilRequested | TS::OnCpu, TS::OnCpu,
                                   0, TS::Unknown};
        for (uint64_t i = 0; i < 5; ++i)
            f.add(1, states[i], {main}, {kT0 + i * 1000});
        const auto chart = chartOf(m, kT0, kT0 + 5000, 5);
        const ColumnState expect[] = {ColumnState::HoldsGil, ColumnState::WaitsForGil,
                                      ColumnState::OnCpu, ColumnState::OffCpu,
                                      ColumnState::Unknown};
        for (uint32_t x = 0; x < 5; ++x)
            QCOMPARE(chart->lanes[0].state[x], expect[x]);
    }

    // Selected threads only; every thread when none is selected, busiest first.
    void lanesFollowTheThreadSelection() {
        ProfileModel m;
        SyntheticFeed f(m, 1000);
        const FrameId main = f.frame("app.py", 1, "main"), idle = f.frame("app.py", 2, "idle");
        for (uint64_t i = 0; i < 100; ++i) {
            f.add(10, 0, {idle}, {kT0 + i * 1000});
            f.add(20, TS::HasGil | TS::OnCpu, {main}, {kT0 + i * 1000});
            if (i >= 50) f.add(30, TS::OnCpu, {main}, {kT0 + i * 1000});
        }
        auto all = chartOf(m, kT0, kT0 + 100'000, 100);
        QCOMPARE(all->lanes.size(), 3u);
        QCOMPARE(all->lanes[0].threadId, 20u);
        QCOMPARE(all->lanes[1].threadId, 30u);
        QCOMPARE(all->lanes[2].threadId, 10u);
        QCOMPARE(all->samplesInView, 250u);
        QCOMPARE(all->lanes[1].leaf[10], StackChartLane::kNoLeaf); // thread 30 starts at 50 ms
        auto one = chartOf(m, kT0, kT0 + 100'000, 100, {10});
        QCOMPARE(one->lanes.size(), 1u);
        QCOMPARE(one->lanes[0].threadId, 10u);
        QCOMPARE(stackAt(*one, 0, 40), QStringList{"idle"});
        // A window without the thread's samples has no lane; one before the recording none.
        QCOMPARE(chartOf(m, kT0, kT0 + 40'000, 100, {30})->lanes.size(), 0u);
        QCOMPARE(chartOf(m, 1000, 2000, 100)->lanes.size(), 0u);
        // Beyond maxLanes, the least busy are counted, not drawn.
        StackChartRequest r;
        r.startUs = kT0;
        r.endUs = kT0 + 100'000;
        r.widthPx = 50;
        r.maxLanes = 1;
        const auto capped = m.stackChart(r).value();
        QCOMPARE(capped->lanes.size(), 1u);
        QCOMPARE(capped->lanesLeftOut, 2u);
    }

    // 200k samples: most are read back from the spill file; cancelling stops the scan.
    void spilledSamplesAndCancel() {
        ProfileModel m;
        SyntheticFeed f(m, 100);
        const FrameId main = f.frame("app.py", 1, "main"), even = f.frame("app.py", 2, "even"),
                      odd = f.frame("app.py", 3, "odd");
        for (uint64_t i = 0; i < 200'000; ++i)
            f.add(1, TS::HasGil, {(i / 1000) % 2 ? odd : even, main}, {kT0 + i * 100});
        // 20 s; 100 ms per column: the first column even, the second odd, ...
        const auto chart = chartOf(m, kT0, kT0 + 20'000'000, 200);
        QCOMPARE(chart->lanes[0].samples, 200'000u);
        for (uint32_t x = 0; x < 200; ++x)
            QCOMPARE(stackAt(*chart, 0, x), (QStringList{"main", x % 2 ? "odd" : "even"}));
        // A window in the last spilled block, zoomed in to one sample per column.
        const uint64_t at = kT0 + 131'000 * 100;
        const auto zoomed = chartOf(m, at, at + 100 * 100, 100);
        QCOMPARE(stackAt(*zoomed, 0, 5), (QStringList{"main", "odd"}));
        CancelToken cancel;
        cancel.cancel();
        StackChartRequest r;
        r.startUs = kT0;
        r.endUs = kT0 + 20'000'000;
        r.widthPx = 100;
        const auto cancelled = m.stackChart(r, &cancel);
        QVERIFY(!cancelled);
        QCOMPARE(cancelled.error().kind, ErrorKind::Cancelled);
    }
};

QTEST_MAIN(TestStackChart)
#include "test_stack_chart.moc"
