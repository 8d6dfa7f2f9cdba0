// The HTML flame graph outputs on real processes, rendered offline in headless Chromium:
//  - `attach --flamegraph` of tests/targets/heavy_light_split.py at 70/30 (from the start
//    of its loop to its exit), on every interpreter present, and `replay --flamegraph`
//    and `run --flamegraph` on one: the
//    rendered page names heavy_part and light_part with the split the target measured;
//    the file names no web address and the page made no request;
//  - `--diff-flamegraph` of a 30/70 recording against a 70/30 baseline: heavy_part shrank
//    by about 40 points, light_part grew; a baseline of another mode is refused;
//  - CPython 3.15's fixtures: the same functions with the same sample counts as CPython's
//    own `replay --flamegraph` page of the same .bin;
//  - --browser hands the page's file:// address to $GILSCOPE_BROWSER.
#include "html_test_support.h"
#include "tests/support/headless_chromium.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"
#include "tests/support/shared_dir.h"
#include "tests/support/split_recording.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstdlib>

using namespace gilscope::test;

namespace {

QString fileBrowser() {
    return sourceDir() + QStringLiteral("/tests/integration/html/file_browser.py");
}

// heavy_part's share of heavy_part + light_part on a rendered page (by total samples).
double renderedSplit(const QMap<QString, RenderedFunction>& f) {
    const double heavy = f.value("heavy_part").total, light = f.value("light_part").total;
    return heavy + light > 0 ? 100 * heavy / (heavy + light) : NAN;
}

// Renders `page` and checks what every page must be: offline, drawn, no request made,
// its controls working.
QString renderChecked(const QString& page) {
    if (!QFile::exists(page)) return "no page at " + page;
    const QStringList web = webAddressesIn(page);
    if (!web.isEmpty()) return "the page names web addresses: " + web.join(", ");
    // #selftest: the page hovers, clicks, zooms, resets, flips to icicle, searches and
    // switches threads itself, and says what did not work.
    const RenderedPage r = renderPage(page, "selftest");
    if (!r.ok) return "chromium: " + r.error;
    if (statusAttribute(r.dom, "data-selftest") != "ok")
        return "the page's self-test: " + statusAttribute(r.dom, "data-selftest");
    if (statusAttribute(r.dom, "data-requests") != "0")
        return "the page made requests: " + statusAttribute(r.dom, "data-requests");
    if (statusAttribute(r.dom, "data-frames").toInt() < 3)
        return "nothing drawn (" + page + " kept): ..." + r.dom.right(3000);
    return "DOM:" + r.dom;
}

QString shellQuote(const QString& s) {
    return "'" + QString(s).replace("'", "'\\''") + "'";
}

// python3.15 in the sid chroot (CPython's reference), with /proc mounted privately.
RunResult chrootPython(const QStringList& args) {
    QString cmd = "set -e; mount -t proc proc " + shellQuote(chrootDir() + "/proc") +
                  "; exec chroot " + shellQuote(chrootDir()) + " python3.15";
    for (const QString& a : args)
        cmd += " " + shellQuote(a);
    return runProgram("unshare", {"--mount", "--propagation", "private", "sh", "-c", cmd}, {},
                      300000);
}

} // namespace

class TestFlamegraphHtml : public QObject {
    Q_OBJECT
    QList<Interpreter> all_;

    // Checks a page of a 70/30 recording whose target measured `truth` % in heavy_part.
    void checkSeventyThirty(const QString& page, double truth, const QString& python) {
        const QString rendered = renderChecked(page);
        QVERIFY2(rendered.startsWith("DOM:"), qPrintable(rendered));
        const auto functions = renderedFunctions(rendered);
        QVERIFY2(functions.contains("heavy_part") && functions.contains("light_part"),
                 qPrintable(rendered.left(4000)));
        const double split = renderedSplit(functions);
        qInfo("%s: heavy_part %.1f%%, light_part %.1f%% of the page's samples (split %.1f%%; the "
              "target ran %.1f%%)",
              qPrintable(QFileInfo(page).fileName()), functions["heavy_part"].totalPct,
              functions["light_part"].totalPct, split, truth);
        QVERIFY2(std::abs(split - truth) <= 10, qPrintable(QString::number(split)));
        QVERIFY(functions["heavy_part"].total + functions["light_part"].total > 300);
        // The header names the interpreter.
        QVERIFY2(rendered.contains("<dt>Python</dt><dd>" + python), qPrintable(python));
    }

private slots:
    void initTestCase() {
        all_ = findInterpreters();
        printTestedInterpreters(all_);
        GILSCOPE_REQUIRE_INTERPRETERS(all_);
        GILSCOPE_REQUIRE_CHROMIUM();
    }

    void attachFlamegraph_data() { addInterpreterRows(all_); }
    void attachFlamegraph() {
        QFETCH(Interpreter, interpreter);
        QTemporaryDir dir;
        const QString page = dir.filePath("live.html");
        const GatedRun run = recordGated(interpreter, dir.path(), 70, {"--flamegraph", "-o", page});
        QVERIFY2(run.error.isEmpty(), qPrintable(run.error));
        QVERIFY2(run.output.contains("Flamegraph saved to: " + page), qPrintable(run.output));
        checkSeventyThirty(page, run.heavyPct,
                           QString("%1.%2.").arg(interpreter.major).arg(interpreter.minor));
    }

    // A .bin replayed, and `run` from the target's first line (default file name).
    void replayAndRunFlamegraph() {
        Interpreter interpreter = all_.first();
        for (const Interpreter& i : all_) // the newest that `run` can start here
            if (!i.inChroot) interpreter = i;
        QTemporaryDir dir;
        const QString bin = dir.filePath("rec.bin");
        const GatedRun rec = recordGated(interpreter, dir.path(), 70, {"--binary", "-o", bin});
        QVERIFY2(rec.error.isEmpty(), qPrintable(rec.error));
        const QString page = dir.filePath("replayed.html");
        const RunResult r = runGilscope({"replay", bin, "--flamegraph", "-o", page});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const QString version = QString("%1.%2.").arg(interpreter.major).arg(interpreter.minor);
        checkSeventyThirty(page, rec.heavyPct, version);

        if (interpreter.inChroot) QSKIP("no host interpreter for `run`");
        const RunResult run =
            runGilscope({"run", "--flamegraph", "--python", interpreter.executable,
                         targetScript("heavy_light_split.py"), "2", "70"},
                        dir.path());
        QVERIFY2(run.exitCode == 0, qPrintable(describe(run)));
        const QStringList made = QDir(dir.path()).entryList({"flamegraph_*.html"});
        QCOMPARE(made.size(), 1);
        const double truth = run.out.section("SHARE ", 1).section('\n', 0, 0).toDouble();
        QVERIFY2(truth > 0, qPrintable(run.out));
        checkSeventyThirty(dir.filePath(made.first()), truth, version);
    }

    void diffFlamegraph() {
        const Interpreter interpreter = all_.last();
        QTemporaryDir dir;
        // Gated runs recorded in CPU mode: the wait for the gate (asleep) leaves no sample,
        // so each recording's shares are its loop's, the run its target measured.
        const QString baseBin = dir.filePath("base.bin"), curBin = dir.filePath("cur.bin");
        const GatedRun base =
            recordGated(interpreter, dir.path(), 70, {"--mode", "cpu", "--binary", "-o", baseBin});
        QVERIFY2(base.error.isEmpty(), qPrintable(base.error));
        const GatedRun cur =
            recordGated(interpreter, dir.path(), 30, {"--mode", "cpu", "--binary", "-o", curBin});
        QVERIFY2(cur.error.isEmpty(), qPrintable(cur.error));
        const double truth = cur.heavyPct - base.heavyPct; // about -40 points

        const QString page = dir.filePath("diff.html");
        const RunResult r =
            runGilscope({"replay", curBin, "--diff-flamegraph", baseBin, "-o", page});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const QString rendered = renderChecked(page);
        QVERIFY2(rendered.startsWith("DOM:"), qPrintable(rendered));
        const auto shrank = renderedChanges(rendered, "shrank");
        const auto grew = renderedChanges(rendered, "grew");
        QVERIFY2(shrank.contains("heavy_part") && grew.contains("light_part"),
                 qPrintable(rendered.left(6000)));
        const RenderedChange heavy = shrank["heavy_part"], light = grew["light_part"];
        qInfo("heavy_part %.1f%% -> %.1f%% (%+.2f points), light_part %.1f%% -> %.1f%% (%+.2f); "
              "the targets ran %.1f%% and %.1f%% (%+.1f)",
              heavy.base, heavy.now, heavy.delta, light.base, light.now, light.delta, base.heavyPct,
              cur.heavyPct, truth);
        // Each side's split between the two is what its target ran, and so is the change.
        const double baseSplit = 100 * heavy.base / (heavy.base + light.base);
        const double curSplit = 100 * heavy.now / (heavy.now + light.now);
        QVERIFY2(std::abs(baseSplit - base.heavyPct) <= 10, qPrintable(QString::number(baseSplit)));
        QVERIFY2(std::abs(curSplit - cur.heavyPct) <= 10, qPrintable(QString::number(curSplit)));
        QVERIFY2(std::abs(curSplit - baseSplit - truth) <= 12, qPrintable(rendered.left(6000)));
        QVERIFY(std::abs(heavy.delta - (heavy.now - heavy.base)) < 0.11); // shares shown to 0.1
        // About 40 points shrunk and grown, when the targets ran about 40 points apart (a
        // machine at load 10 can disturb their split, or keep the CPU from the waiting
        // target long enough to be sampled as on CPU and dilute the shares).
        if (truth < -30) QVERIFY(heavy.delta < -20 && light.delta > 20);
        QVERIFY2(rendered.contains("id=\"legend\"") && rendered.contains("pts (grew)"),
                 "no legend");
        // The same figures as `gilscope diff` (one home for the comparison).
        const RunResult table = runGilscope({"diff", baseBin, curBin, "--json", "-l", "0"});
        QVERIFY2(table.out.contains("\"function\": \"heavy_part\""), qPrintable(table.out));

        // A baseline recorded in another mode is refused before anything is written.
        const SplitRecording wall = recordSplit(interpreter, dir.path(), "wall", 70, 1);
        QVERIFY2(wall.error.isEmpty(), qPrintable(wall.error));
        const QString refusedPage = dir.filePath("refused.html");
        const RunResult refused =
            runGilscope({"replay", curBin, "--diff-flamegraph", wall.bin, "-o", refusedPage});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains("cannot compare") && refused.err.contains("cpu mode"),
                 qPrintable(refused.err));
        QVERIFY(!QFile::exists(refusedPage));
        // ... and one that sampled every thread, against the main thread only.
        const SplitRecording all =
            recordSplit(interpreter, dir.path(), "all", 70, 1, {"--mode", "cpu", "-a"});
        QVERIFY2(all.error.isEmpty(), qPrintable(all.error));
        const RunResult threads =
            runGilscope({"replay", curBin, "--diff-flamegraph", all.bin, "-o", refusedPage});
        QCOMPARE(threads.exitCode, 2);
        QVERIFY2(threads.err.contains("every thread (-a)"), qPrintable(threads.err));
        QVERIFY(!QFile::exists(refusedPage));
        const RunResult missing = runGilscope(
            {"replay", curBin, "--diff-flamegraph", dir.filePath("none.bin"), "-o", refusedPage});
        QVERIFY2(missing.exitCode != 0 && missing.err.contains("none.bin"),
                 qPrintable(describe(missing)));
        QVERIFY(!QFile::exists(refusedPage));
    }

    void fixturesAgainstCpython_data() {
        QTest::addColumn<QString>("name");
        for (const char* name : {"tiny", "real-315", "medium", "unicode", "rle-long"})
            QTest::newRow(name) << QString(name);
    }
    void fixturesAgainstCpython() {
        QFETCH(QString, name);
        GILSCOPE_REQUIRE_SHARED();
        GILSCOPE_REQUIRE(chrootReady(), "the sid chroot with python3.15 (CPython's reference) is "
                                        "absent: run scripts/setup-python-chroot.sh (as root)");
        const QString bin = fixturePath("tach/" + name + ".bin");
        // CPython writes its page inside the chroot.
        QTemporaryDir scratch(chrootDir() + "/tmp/gilscope-html-XXXXXX");
        QVERIFY(scratch.isValid());
        QVERIFY(QFile::copy(bin, scratch.filePath("in.bin")));
        const QString inside = "/tmp/" + QFileInfo(scratch.path()).fileName();
        const RunResult cpy = chrootPython({"-m", "profiling.sampling", "replay", "--flamegraph",
                                            "-o", inside + "/cpython.html", inside + "/in.bin"});
        QVERIFY2(cpy.exitCode == 0, qPrintable(describe(cpy)));
        const CpythonPage theirs = readCpythonPage(scratch.filePath("cpython.html"));
        QVERIFY2(theirs.ok && !theirs.own.isEmpty(), "cannot read CPython's page");

        const QString page = scratch.filePath("gilscope.html");
        const RunResult r = runGilscope({"replay", bin, "--flamegraph", "-o", page});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const QString rendered = renderChecked(page);
        QVERIFY2(rendered.startsWith("DOM:"), qPrintable(rendered));
        const auto ours = renderedFunctionsByFile(rendered);
        // Every function CPython names, with its own samples; CPython leaves out frames
        // under 0.1 % of the samples, and what it left out is exactly what we show more.
        qint64 more = 0;
        for (auto it = theirs.own.begin(); it != theirs.own.end(); ++it) {
            QVERIFY2(ours.contains(it.key()), qPrintable("missing: " + it.key()));
            const qint64 diff = ours[it.key()].own - it.value();
            QVERIFY2(diff >= 0 && (theirs.pruned > 0 || diff == 0),
                     qPrintable(QString("%1: ours %2, CPython's %3")
                                    .arg(it.key())
                                    .arg(ours[it.key()].own)
                                    .arg(it.value())));
            more += diff;
        }
        for (auto it = ours.begin(); it != ours.end(); ++it)
            if (!theirs.own.contains(it.key())) more += it.value().own;
        qInfo("%s: %lld functions on CPython's page, %lld on ours; CPython pruned %lld samples",
              qPrintable(name), qlonglong(theirs.own.size()), qlonglong(ours.size()),
              qlonglong(theirs.pruned));
        QCOMPARE(more, theirs.pruned);
        if (theirs.pruned == 0) QCOMPARE(ours.size(), theirs.own.size());
    }

    void browserOpensThePage() {
        QTemporaryDir dir;
        const SplitRecording rec = recordSplit(all_.first(), dir.path(), "rec", 70, 1);
        QVERIFY2(rec.error.isEmpty(), qPrintable(rec.error));
        const QString seen = dir.filePath("browser-saw.txt");
        qputenv("GILSCOPE_BROWSER",
                "python3 " + QFile::encodeName(fileBrowser()) + " " + QFile::encodeName(seen));
        const QString page = dir.filePath("page with space.html");
        const RunResult r =
            runGilscope({"replay", rec.bin, "--flamegraph", "--browser", "-o", page});
        qunsetenv("GILSCOPE_BROWSER");
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        // The browser runs detached: wait for what it wrote.
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(seen), 30000);
        QFile f(seen);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray got = f.readAll();
        QVERIFY2(got.startsWith("file://" + QFile::encodeName(dir.path()) +
                                "/page%20with%20space.html\n"),
                 got.left(300).constData());
        QVERIFY(got.contains("<!DOCTYPE html>"));
        // A heatmap opens at its folder's index.
        QFile::remove(seen);
        qputenv("GILSCOPE_BROWSER",
                "python3 " + QFile::encodeName(fileBrowser()) + " " + QFile::encodeName(seen));
        const RunResult heat =
            runGilscope({"replay", rec.bin, "--heatmap", "--browser", "-o", dir.filePath("heat")});
        qunsetenv("GILSCOPE_BROWSER");
        QVERIFY2(heat.exitCode == 0, qPrintable(describe(heat)));
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(seen), 30000);
        QFile h(seen);
        QVERIFY(h.open(QIODevice::ReadOnly));
        const QByteArray index = h.readAll();
        QVERIFY2(index.startsWith("file://" + QFile::encodeName(dir.path()) + "/heat/index.html\n"),
                 index.left(300).constData());
        // --browser with an output it cannot open is refused.
        const RunResult bad = runGilscope({"replay", rec.bin, "--collapsed", "--browser"});
        QCOMPARE(bad.exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestFlamegraphHtml)
#include "test_flamegraph_html.moc"
