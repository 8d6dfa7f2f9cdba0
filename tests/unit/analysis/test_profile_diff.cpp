// The Qt-free comparison of two recordings (core/analysis/profile_diff): shares are of
// each side's own samples, functions match by name and file, call paths by their frames,
// and recordings of modes that sampled different threads are refused.
#include "core/analysis/profile_diff.h"
#include "core/analysis/profile_model.h"
#include "core/sample/thread_status.h"
#include "tests/support/synthetic_feed.h"

#include <QTest>

using namespace gilscope;
using gilscope::test::SyntheticFeed;

namespace {

// `a` samples of main -> a and `b` of main -> b, plus `xb` of main -> x -> b.
std::shared_ptr<const ProfileSnapshot> recording(int a, int b, int xb, const char* aFile = "m.py") {
    ProfileModel model;
    SyntheticFeed feed(model);
    const FrameId main = feed.frame("m.py", 1, "main"), fa = feed.frame(aFile, 5, "a"),
                  fb = feed.frame("m.py", 9, "b"), fx = feed.frame("m.py", 12, "x");
    uint64_t t = 1000;
    for (int i = 0; i < a; ++i)
        feed.add(1, ThreadStatus::OnCpu, {fa, main}, {t += 1000});
    for (int i = 0; i < b; ++i)
        feed.add(1, ThreadStatus::OnCpu, {fb, main}, {t += 1000});
    for (int i = 0; i < xb; ++i)
        feed.add(1, 0, {fb, fx, main}, {t += 1000});
    model.finish({});
    return model.query({}).value();
}

const DiffRow* find(const std::vector<DiffRow>& rows, const std::string& f,
                    const std::string& file = "m.py") {
    for (const DiffRow& r : rows)
        if (r.function == f && r.file == file) return &r;
    return nullptr;
}

} // namespace

class TestProfileDiff : public QObject {
    Q_OBJECT
private slots:
    // 700/300 of 1000 samples against 30/70 of 100: -40 and +40 points, largest first.
    void sharesAreOfEachSidesSamples() {
        const auto base = recording(700, 300, 0), cur = recording(30, 70, 0);
        const auto rows = diffFunctions(*base, *cur);
        QCOMPARE(rows.size(), size_t(3));
        QCOMPARE(rows[0].function, std::string("a"));
        QCOMPARE(rows[1].function, std::string("b"));
        QCOMPARE(rows[0].deltaTotal(), -40.0);
        QCOMPARE(rows[1].deltaTotal(), 40.0);
        QCOMPARE(rows[0].baseTotal, uint64_t(700));
        QCOMPARE(rows[0].curTotal, uint64_t(30));
        QCOMPARE(find(rows, "main")->deltaTotal(), 0.0);
        QCOMPARE(diffFunctions(*base, *cur, 1).size(), size_t(1));
        const std::string text = diffText({"b.bin", 0, 1000}, {"c.bin", 3, 100}, rows);
        QVERIFY(text.find("-40.00") != std::string::npos);
        QVERIFY(text.find("m.py:5(a)") != std::string::npos);
        const auto json = diffJson({"b.bin", 0, 1000}, {"c.bin", 3, 100}, StateFilter::All, rows);
        QCOMPARE(json["rows"][1]["delta_total_pct"].get<double>(), 40.0);
        QCOMPARE(json["baseline"]["recorded_mode"].get<std::string>(), std::string("wall"));
    }

    // A function in only one recording shows 0 on the other side; the same name in
    // another file is another function.
    void functionsMatchByNameAndFile() {
        const auto base = recording(50, 50, 0, "old.py"), cur = recording(50, 50, 0, "new.py");
        const auto rows = diffFunctions(*base, *cur);
        const DiffRow* gone = find(rows, "a", "old.py");
        const DiffRow* added = find(rows, "a", "new.py");
        QVERIFY(gone && added);
        QCOMPARE(gone->curTotalPct, 0.0);
        QCOMPARE(gone->baseTotalPct, 50.0);
        QCOMPARE(added->baseTotalPct, 0.0);
        QCOMPARE(added->currentFunc == kNoFunction, false);
        QCOMPARE(gone->currentFunc, kNoFunction);
    }

    // Call paths: b under main and b under x are different frames of the flame graph.
    void shareTableKeysCallPaths() {
        const auto s = recording(0, 25, 75);
        const ShareTable t = shareTable(*s);
        QCOMPARE(t.samples, uint64_t(100));
        uint64_t main = 0, b = 0, x = 0;
        for (const FunctionInfo& f : s->functions)
            (f.name == "main" ? main : f.name == "b" ? b : x) = functionKey(f);
        const uint64_t pMain = childPathKey(0, main);
        QCOMPARE(t.pathTotalPct.at(pMain), 100.0);
        QCOMPARE(t.pathTotalPct.at(childPathKey(pMain, b)), 25.0);
        QCOMPARE(t.pathTotalPct.at(childPathKey(childPathKey(pMain, x), b)), 75.0);
        QCOMPARE(t.functionTotalPct.at(b), 100.0);
        QVERIFY(childPathKey(childPathKey(0, main), b) != childPathKey(childPathKey(0, b), main));
    }

    void modesThatSampledOtherThreadsAreRefused() {
        const int wall = int(ProfilingMode::Wall), all = int(ProfilingMode::All),
                  cpu = int(ProfilingMode::Cpu), gil = int(ProfilingMode::Gil);
        QVERIFY(!incomparableReason(wall, all, StateFilter::All));
        QVERIFY(!incomparableReason(all, wall, StateFilter::HoldingGil));
        QVERIFY(!incomparableReason(cpu, cpu, StateFilter::OnCpu));
        QVERIFY(!incomparableReason(std::nullopt, cpu, StateFilter::All));
        QVERIFY(incomparableReason(cpu, wall, StateFilter::All));
        QVERIFY(incomparableReason(all, gil, StateFilter::All));
        const auto why = incomparableReason(wall, all, StateFilter::OnCpu);
        QVERIFY(why && why->find("no CPU state") != std::string::npos);
    }

    // Other threads or other frames: refused, whichever side has them; opcodes,
    // --blocking and unknown features are not.
    void featuresThatChangeStacksAreRefused() {
        using namespace CaptureFeature;
        const int gc = int(Gc), all = int(Gc | AllThreads), native = int(Gc | Native);
        QVERIFY(!incomparableFeatures(gc, gc));
        QVERIFY(!incomparableFeatures(gc, int(Gc | Opcodes | Blocking)));
        QVERIFY(!incomparableFeatures(std::nullopt, all));
        QVERIFY(!incomparableFeatures(-1, all));
        const auto threads = incomparableFeatures(all, gc);
        QVERIFY(threads &&
                threads->find("baseline was recorded with every thread (-a)") != std::string::npos);
        const auto frames = incomparableFeatures(gc, native);
        QVERIFY(frames && frames->find("without <native> frames") != std::string::npos);
        QVERIFY(incomparableFeatures(gc, 0)); // --no-gc on one side
    }
};

QTEST_GUILESS_MAIN(TestProfileDiff)
#include "test_profile_diff.moc"
