// `gilscope diff` on real recordings, on every interpreter present: a 70/30 baseline
// against a 30/70 current recording of tests/targets/heavy_light_split.py shows heavy_part
// shrunk and light_part grown by about 40 points (bounded by the splits the targets
// measured themselves), the same in the table and the JSON; --fail-if-grows exit codes;
// recordings of different modes are refused.
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"
#include "tests/support/split_recording.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace gilscope::test;

namespace {

QJsonObject row(const QJsonObject& diff, const QString& function) {
    for (const auto& v : diff["rows"].toArray())
        if (v.toObject()["function"].toString() == function) return v.toObject();
    return {};
}

// The "change" column of a function's line in the table (the third number).
double tableChange(const QString& table, const QString& function) {
    for (const QString& line : table.split('\n'))
        if (line.endsWith("(" + function + ")")) {
            const QStringList cols = line.simplified().split(' ');
            return cols.size() > 2 ? cols[2].toDouble() : NAN;
        }
    return NAN;
}

} // namespace

class TestDiff : public QObject {
    Q_OBJECT
    QList<Interpreter> all_;

private slots:
    void initTestCase() {
        all_ = findInterpreters();
        printTestedInterpreters(all_);
        GILSCOPE_REQUIRE_INTERPRETERS(all_);
    }

    void seventyThirtyAgainstThirtySeventy_data() { addInterpreterRows(all_); }
    void seventyThirtyAgainstThirtySeventy() {
        QFETCH(Interpreter, interpreter);
        QTemporaryDir dir;
        const SplitRecording base = recordSplit(interpreter, dir.path(), "base", 70, 2);
        QVERIFY2(base.error.isEmpty(), qPrintable(base.error));
        const SplitRecording cur = recordSplit(interpreter, dir.path(), "cur", 30, 2);
        QVERIFY2(cur.error.isEmpty(), qPrintable(cur.error));
        // What the targets really ran: about -40 points for heavy_part.
        const double truth = cur.heavyPct - base.heavyPct;

        const RunResult j = runGilscope({"diff", base.bin, cur.bin, "--json", "-l", "0"});
        QVERIFY2(j.exitCode == 0, qPrintable(describe(j)));
        const QJsonObject diff = QJsonDocument::fromJson(j.outBytes).object();
        const QJsonObject heavy = row(diff, "heavy_part"), light = row(diff, "light_part");
        QVERIFY2(!heavy.isEmpty() && !light.isEmpty(), qPrintable(j.out));
        const double dHeavy = heavy["delta_total_pct"].toDouble();
        const double dLight = light["delta_total_pct"].toDouble();
        qInfo("%s: heavy_part %.1f%% -> %.1f%% (%+.1f), light_part %+.1f; the targets ran "
              "%.1f%% and %.1f%% (%+.1f)",
              qPrintable(interpreter.label), heavy["baseline_total_pct"].toDouble(),
              heavy["current_total_pct"].toDouble(), dHeavy, dLight, base.heavyPct, cur.heavyPct,
              truth);
        // Each side's split, as heavy/(heavy+light), is what its target ran.
        auto split = [](const QJsonObject& h, const QJsonObject& l, const char* side) {
            const double heavy = h[QString(side) + "_total"].toDouble();
            return 100 * heavy / (heavy + l[QString(side) + "_total"].toDouble());
        };
        QVERIFY(std::abs(split(heavy, light, "baseline") - base.heavyPct) <= 10);
        QVERIFY(std::abs(split(heavy, light, "current") - cur.heavyPct) <= 10);
        QVERIFY(diff["baseline"].toObject()["samples"].toDouble() > 300);
        QVERIFY(diff["current"].toObject()["samples"].toDouble() > 300);
        QVERIFY2(std::abs(dHeavy - truth) <= 12, qPrintable(QString::number(dHeavy)));
        QVERIFY2(std::abs(dLight + truth) <= 12, qPrintable(QString::number(dLight)));
        // "About 40 points": the targets' own split keeps it honest on a busy machine.
        QVERIFY2(dHeavy < -20 && dLight > 20, qPrintable(j.out));
        // Largest changes first: these two lead.
        const QJsonArray rows = diff["rows"].toArray();
        QVERIFY(rows.size() >= 2);
        const QStringList firstTwo{rows[0].toObject()["function"].toString(),
                                   rows[1].toObject()["function"].toString()};
        QVERIFY2(firstTwo.contains("heavy_part") && firstTwo.contains("light_part"),
                 qPrintable(firstTwo.join(',')));

        // The table says the same, to its two decimals.
        const RunResult t = runGilscope({"diff", base.bin, cur.bin});
        QVERIFY2(t.exitCode == 0, qPrintable(describe(t)));
        QVERIFY2(std::abs(tableChange(t.out, "heavy_part") - dHeavy) < 0.006, qPrintable(t.out));
        QVERIFY2(std::abs(tableChange(t.out, "light_part") - dLight) < 0.006, qPrintable(t.out));

        // CI use: light_part grew by ~40 points, heavy_part did not grow.
        auto exitOf = [&](const QStringList& extra) {
            return runGilscope(QStringList{"diff", base.bin, cur.bin} + extra).exitCode;
        };
        QCOMPARE(exitOf({"--fail-if-grows", "light_part:10"}), 12);
        QCOMPARE(exitOf({"--fail-if-grows", "light_part:90"}), 0);
        QCOMPARE(exitOf({"--fail-if-grows", "heavy_part:0"}), 0);
        QCOMPARE(exitOf({"--fail-if-grows", "heavy_part:0", "--fail-if-grows", "light_part:10"}),
                 12);
        // The other way round, heavy_part is the one that grew.
        QCOMPARE(
            runGilscope({"diff", cur.bin, base.bin, "--fail-if-grows", "heavy_part:10"}).exitCode,
            12);
        // A misspelt function is a usage error, not a pass.
        const RunResult typo =
            runGilscope({"diff", base.bin, cur.bin, "--fail-if-grows", "hevy:5"});
        QCOMPARE(typo.exitCode, 2);
        QVERIFY2(typo.err.contains("no function \"hevy\""), qPrintable(typo.err));
    }

    // A baseline recorded in CPU mode sampled other threads than a wall-clock one: refused,
    // whichever side it is on.
    void otherModeIsRefused() {
        const Interpreter interpreter = all_.first();
        QTemporaryDir dir;
        const SplitRecording wall = recordSplit(interpreter, dir.path(), "wall", 70, 1);
        QVERIFY2(wall.error.isEmpty(), qPrintable(wall.error));
        const SplitRecording cpu =
            recordSplit(interpreter, dir.path(), "cpu", 70, 1, {"--mode", "cpu"});
        QVERIFY2(cpu.error.isEmpty(), qPrintable(cpu.error));
        for (const QStringList& pair : {QStringList{cpu.bin, wall.bin}, {wall.bin, cpu.bin}}) {
            const RunResult r = runGilscope(QStringList{"diff"} + pair);
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains("cannot compare") && r.err.contains("cpu mode") &&
                         r.err.contains("wall mode"),
                     qPrintable(r.err));
            QVERIFY(r.out.isEmpty());
        }
        // Not a recording: the reader's error (corrupt file), and nothing on stdout.
        QFile junk(dir.filePath("junk.bin"));
        QVERIFY(junk.open(QIODevice::WriteOnly) && junk.write(QByteArray(4096, 'x')) == 4096);
        junk.close();
        const RunResult bad = runGilscope({"diff", junk.fileName(), wall.bin});
        QCOMPARE(bad.exitCode, 8);
        QVERIFY(bad.out.isEmpty());
        // The same recording against itself compares, with no change.
        const RunResult same = runGilscope({"diff", cpu.bin, cpu.bin, "--json"});
        QVERIFY2(same.exitCode == 0, qPrintable(describe(same)));
        const QJsonObject heavy =
            row(QJsonDocument::fromJson(same.outBytes).object(), "heavy_part");
        QVERIFY(heavy["current_total"].toDouble() > 0);
        QCOMPARE(heavy["delta_total_pct"].toDouble(), 0.0);
    }
};

QTEST_GUILESS_MAIN(TestDiff)
#include "test_diff.moc"
