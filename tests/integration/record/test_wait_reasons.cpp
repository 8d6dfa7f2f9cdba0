// Why a thread waits (issue 36), on every interpreter: a worker thread that waits for each
// reason in turn and times itself (tests/targets/wait_reasons.py: a held lock, a recv on
// a loopback socket whose peer answers late, time.sleep, select on a silent pipe, then
// arithmetic) is recorded with `attach -a --wait-reasons --collapsed`. Each reason's
// leaf frame must take its phase's share of the worker's samples within 3 points of the
// target's own timing, name the socket's peer right, and never appear under another
// phase; a thread waiting for its child shows <child wait>.
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace gilscope::test;

namespace {

constexpr double kMaxShareErrorPoints = 3;
constexpr double kMaxMisplacedPct = 1; // a leaf under a phase that waits otherwise
// The service: its own timing of a lock acquire also holds, under a GIL, the moment it
// takes the GIL back once the lock is its (a GIL wait, not a lock wait): measured 0.8-1.8
// points below the timing with a GIL, 0.0 on 3.13t.
constexpr double kMaxServiceLockErrorPoints = 4;

struct Line {
    QStringList frames; // root first, file and line stripped
    double count = 0;
};

QList<Line> readCollapsed(const QString& path) {
    QList<Line> out;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return out;
    static const QRegularExpression location(QStringLiteral(" \\([^)]*\\)$"));
    for (const QString& text : QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts)) {
        const qsizetype space = text.lastIndexOf(' ');
        Line line;
        line.count = text.mid(space + 1).toDouble();
        for (QString frame : text.left(space).split(';')) {
            frame.remove(location);
            line.frames << frame;
        }
        out << line;
    }
    return out;
}

} // namespace

class TestWaitReasons : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { GILSCOPE_PRINT_AND_REQUIRE_INTERPRETERS(); }

    void reasonsAsTimed_data() {
        QTest::addColumn<Interpreter>("interpreter");
        for (const Interpreter& in : findInterpreters())
            QTest::newRow(qPrintable(in.label)) << in;
    }
    void reasonsAsTimed() {
        QFETCH(Interpreter, interpreter);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        TargetProcess target(interpreter, "wait_reasons.py", gatedTarget(dir, {"3"}));
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QJsonObject info = target.readyInfo();
        const int port = info["port"].toInt();
        QVERIFY(port > 0);

        const QString out = dir.filePath("out.collapsed");
        const RunResult r =
            runGatedGilscope({"attach", "-a", "--wait-reasons", "-r", "1khz", "--collapsed", "-o",
                              out, QString::number(target.pid())},
                             dir.path(), gatePath(dir));
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const auto timed = target.readTimedJson("PHASES ");
        QVERIFY2(timed, qPrintable(target.error()));
        const QJsonObject& spent = *timed;

        // What each phase waits on: the leaf its samples end in (empty: on a CPU).
        const QString peer = QStringLiteral("<read TCP 127.0.0.1:%1>").arg(port);
        const QList<QPair<QString, QString>> expected = {{"phase_lock", "<lock wait>"},
                                                         {"phase_recv", peer},
                                                         {"phase_sleep", "<sleep>"},
                                                         {"phase_select", "<poll>"},
                                                         {"phase_compute", ""}};
        double truthTotal = 0;
        for (const auto& [phase, leaf] : expected)
            truthTotal += spent[phase].toDouble();

        QMap<QString, double> withLeaf; // phase -> samples ending in its leaf
        double worker = 0, misplaced = 0, child = 0, childWait = 0;
        for (const Line& line : readCollapsed(out)) {
            if (line.frames.contains("wait_child")) {
                child += line.count;
                if (line.frames.last() == "<child wait>") childWait += line.count;
            }
            if (!line.frames.contains("worker_loop")) continue;
            worker += line.count;
            const QString& leaf = line.frames.last();
            const bool isWaitLeaf = leaf.startsWith('<') && leaf != "<GC>";
            for (const auto& [phase, want] : expected) {
                if (!line.frames.contains(phase)) continue;
                if (!want.isEmpty() && leaf == want) withLeaf[phase] += line.count;
                // A wait leaf that is not this phase's, but "<read>" alone is allowed: the
                // recv ended between the kernel's record and the fd's lookup.
                else if (isWaitLeaf && leaf != "<read>")
                    misplaced += line.count;
            }
        }
        QVERIFY2(worker >= 1500, qPrintable(QString::number(worker)));
        QString row;
        double worst = 0;
        for (const auto& [phase, leaf] : expected) {
            if (leaf.isEmpty()) continue;
            const double truth = 100 * spent[phase].toDouble() / truthTotal;
            const double measured = 100 * withLeaf[phase] / worker;
            worst = std::max(worst, std::abs(measured - truth));
            row += QStringLiteral(" %1 %2->%3")
                       .arg(leaf)
                       .arg(truth, 0, 'f', 1)
                       .arg(measured, 0, 'f', 1);
        }
        const double misplacedPct = 100 * misplaced / worker;
        const double childPct = child > 0 ? 100 * childWait / child : 0;
        qInfo("%s: %.0f worker samples, worst reason %.2f points, %.2f%% misplaced, "
              "%.1f%% of the child waiter's samples in <child wait>;%s",
              qPrintable(interpreter.label), worker, worst, misplacedPct, childPct,
              qPrintable(row));
        QVERIFY2(worst <= kMaxShareErrorPoints, qPrintable(row));
        QVERIFY2(misplacedPct <= kMaxMisplacedPct, qPrintable(QString::number(misplacedPct)));
        QVERIFY2(child > 0 && childPct >= 95, qPrintable(QString::number(childPct)));
    }

    // The walk-through service (issue 36): six http-workers that queue on one lock in
    // update_stats. What a user sees in the flame graph or top functions, `<lock wait>`
    // under update_stats, has the share of the time they timed themselves waiting for it.
    void serviceShowsItsLockWait_data() { addInterpreterRows(findEveryBuild()); }
    void serviceShowsItsLockWait() {
        QFETCH(Interpreter, interpreter);
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        TargetProcess target(interpreter, "http_workers.py", gatedTarget(dir, {"3"}));
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QString out = dir.filePath("out.collapsed");
        const RunResult r =
            runGatedGilscope({"attach", "-a", "--wait-reasons", "-r", "1khz", "--collapsed", "-o",
                              out, QString::number(target.pid())},
                             dir.path(), gatePath(dir));
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const auto timed = target.readTimedJson("TIMES ");
        QVERIFY2(timed, qPrintable(target.error()));
        const QJsonObject& times = *timed;
        double total = 0, lock = 0;
        for (const QJsonValue& w : times) {
            total += w["handle"].toDouble();
            lock += w["lock"].toDouble();
        }
        double worker = 0, lockWait = 0;
        for (const Line& line : readCollapsed(out)) {
            if (!line.frames.contains("handle")) continue; // a worker's request
            worker += line.count;
            if (line.frames.last() == "<lock wait>" &&
                line.frames.value(line.frames.size() - 2) == "update_stats")
                lockWait += line.count;
        }
        const double truth = 100 * lock / total, measured = 100 * lockWait / std::max(1.0, worker);
        qInfo("%s: %.0f request samples, <lock wait> under update_stats %.1f%%, timed %.1f%%",
              qPrintable(interpreter.label), worker, measured, truth);
        QVERIFY2(worker >= 1500, qPrintable(QString::number(worker)));
        QVERIFY2(std::abs(measured - truth) <= kMaxServiceLockErrorPoints,
                 qPrintable(QStringLiteral("%1 against %2").arg(measured).arg(truth)));
    }
};

QTEST_GUILESS_MAIN(TestWaitReasons)
#include "test_wait_reasons.moc"
