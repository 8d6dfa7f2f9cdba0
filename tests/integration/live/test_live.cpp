// --live in a terminal (a tmux session): on every interpreter present the function names
// appear, `s` changes the order (own, total, name), t/f/p change what the header says, the view
// follows a resize, and `q` ends the recording with exit code 0 and the -o output written.
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"
#include "tests/support/shared_dir.h"
#include "tmux_session.h"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace gilscope::test;

namespace {

QString quoted(const QString& s) {
    return "'" + QString(s).replace("'", "'\\''") + "'";
}

// The function names of the table, top to bottom.
QStringList rows(const QString& screen) {
    static const QRegularExpression row("^\\s+[\\d.]+\\s+\\d+\\s+[\\d.]+\\s+\\d+\\s+(\\S+)");
    QStringList names;
    for (const QString& line : screen.split('\n')) {
        const auto m = row.match(line);
        if (m.hasMatch()) names << m.captured(1);
    }
    return names;
}

// The command run in the terminal: gilscope, then its exit code into `rc`.
QString command(const QStringList& args, const QString& rc) {
    QStringList words{quoted(gilscopeBinary())};
    for (const QString& a : args)
        words << quoted(a);
    return words.join(' ') + "; echo $? > " + quoted(rc) + "; exec sleep 600";
}

// Drives the view: names, sort, keys, resize, quit. Returns when `rc` holds the exit code.
void driveView(const TmuxSession& term, const QString& rc) {
    QString screen;
    QVERIFY2(term.waitForScreen(
                 [](const QString& s) {
                     const QStringList r = rows(s);
                     return r.contains("heavy") && r.contains("light") && r.contains("busy");
                 },
                 &screen),
             qPrintable(screen));
    const QStringList byOwn = rows(screen);
    QCOMPARE(byOwn.first(), QString("busy")); // the leaf of both: most own samples
    term.sendKeys("s");
    // The screen is read while ncurses may be redrawing it: each wait is for a whole frame.
    QVERIFY2(term.waitForScreen(
                 [](const QString& s) {
                     return s.contains("[s]ort: total") && rows(s).contains("<module>");
                 },
                 &screen),
             qPrintable(screen));
    term.sendKeys("s");
    const auto sortedByName = [](const QString& s) {
        QStringList byName = rows(s), sorted = byName;
        sorted.sort();
        return s.contains("[s]ort: name") && byName.size() >= 4 && byName == sorted;
    };
    QVERIFY2(term.waitForScreen(sortedByName, &screen), qPrintable(screen));
    QVERIFY2(rows(screen) != byOwn, qPrintable(screen)); // busy, the leaf, led by own samples
    term.sendKeys("f");
    QVERIFY2(
        term.waitForScreen([](const QString& s) { return s.contains("state: On CPU"); }, &screen),
        qPrintable(screen));
    term.sendKeys("f");
    term.sendKeys("f");
    term.sendKeys("f");
    QVERIFY2(term.waitForScreen([](const QString& s) { return s.contains("state: All"); }, &screen),
             qPrintable(screen));
    term.sendKeys("t");
    QVERIFY2(term.waitForScreen([](const QString& s) { return s.contains("(1/"); }, &screen),
             qPrintable(screen));
    term.sendKeys("p");
    QVERIFY2(term.waitForScreen([](const QString& s) { return s.contains("(PAUSED)"); }, &screen),
             qPrintable(screen));
    QVERIFY(term.resize(60, 12));
    QVERIFY2(term.waitForScreen(
                 [](const QString& s) {
                     const QStringList lines = s.split('\n');
                     return lines.size() <= 13 && lines.first().size() <= 60 &&
                            lines.first().startsWith("gilscope live") && !rows(s).isEmpty();
                 },
                 &screen),
             qPrintable(screen));
    term.sendKeys("q");
    // `echo $? > rc` makes the file first, then writes the code and its newline.
    const auto written = [&](const QString&) {
        QFile f(rc);
        return f.open(QIODevice::ReadOnly) && f.readAll().endsWith('\n');
    };
    QVERIFY2(term.waitForScreen(written, &screen), qPrintable(screen));
}

} // namespace

class TestLive : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        GILSCOPE_REQUIRE(haveTmux(), "tmux is absent: scripts/install-deps.sh installs it for "
                                     "the tests");
        all_ = findInterpreters();
        printTestedInterpreters(all_);
        GILSCOPE_REQUIRE_INTERPRETERS(all_);
    }

    void attachLive_data() { addInterpreterRows(all_); }
    void attachLive() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, targetScript("heavy_light.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        QTemporaryDir dir;
        const QString out = dir.filePath("out.txt"), rc = dir.filePath("rc");
        TmuxSession term(
            command({"attach", "--live", "--collapsed", "-o", out, QString::number(target.pid())},
                    rc),
            100, 30);
        QVERIFY(term.started());
        driveView(term, rc);
        QVERIFY(!QTest::currentTestFailed());
        QFile code(rc);
        QVERIFY(code.open(QIODevice::ReadOnly));
        QCOMPARE(code.readAll().trimmed(), QByteArray("0"));
        QFile written(out);
        QVERIFY(written.open(QIODevice::ReadOnly));
        const QByteArray stacks = written.readAll();
        QVERIFY2(stacks.contains("heavy") && stacks.contains("light"), stacks.left(2000));
        QVERIFY(target.isRunning()); // q ends the recording, not the target
    }

    // run --live: the target's own output stays off the view; q stops it and exits 0.
    void runLive() {
        Interpreter interpreter = all_.first();
        for (const Interpreter& in : all_)
            if (!in.inChroot) interpreter = in;
        QTemporaryDir dir;
        const QString out = dir.filePath("hm"), rc = dir.filePath("rc");
        TmuxSession term(command({"run", "--live", "--heatmap", "-o", out, "--python",
                                  interpreter.hostExecutable, targetScript("heavy_light.py")},
                                 rc),
                         100, 30);
        QVERIFY(term.started());
        driveView(term, rc);
        QVERIFY(!QTest::currentTestFailed());
        QFile code(rc);
        QVERIFY(code.open(QIODevice::ReadOnly));
        QCOMPARE(code.readAll().trimmed(), QByteArray("0"));
        QVERIFY(QFile::exists(out + "/index.html"));
        QVERIFY(!term.screen().contains("READY")); // the target's stdout went nowhere
    }

    // A target that ends by itself: the table stays, says so, and waits for q; a terminal
    // shrunk to almost nothing and grown back is drawn again; run exits with the target's
    // code.
    void endedRecordingWaitsForQ() {
        Interpreter interpreter = all_.first();
        for (const Interpreter& in : all_)
            if (!in.inChroot) interpreter = in;
        QTemporaryDir dir;
        const QString rc = dir.filePath("rc");
        TmuxSession term(command({"run", "--live", "--python", interpreter.hostExecutable,
                                  targetScript("heavy_light_timed.py"), "1"},
                                 rc),
                         100, 30);
        QVERIFY(term.started());
        QString screen;
        QVERIFY2(term.waitForScreen(
                     [](const QString& s) {
                         return s.contains("Recording ended: ") && s.contains("exited") &&
                                rows(s).contains("busy"); // the leaf: first by own samples
                     },
                     &screen),
                 qPrintable(screen));
        QVERIFY(term.resize(12, 2));
        QVERIFY(term.resize(80, 20));
        QVERIFY2(term.waitForScreen(
                     [](const QString& s) {
                         return s.split('\n').first().size() > 12 && rows(s).contains("busy");
                     },
                     &screen),
                 qPrintable(screen));
        QVERIFY(!QFile::exists(rc)); // still waiting for q
        term.sendKeys("q");
        const auto written = [&](const QString&) {
            QFile f(rc);
            return f.open(QIODevice::ReadOnly) && f.readAll().endsWith('\n');
        };
        QVERIFY2(term.waitForScreen(written, &screen), qPrintable(screen));
        QFile code(rc);
        QVERIFY(code.open(QIODevice::ReadOnly));
        QCOMPARE(code.readAll().trimmed(), QByteArray("0"));
    }

private:
    QList<Interpreter> all_;
};

QTEST_GUILESS_MAIN(TestLive)
#include "test_live.moc"
