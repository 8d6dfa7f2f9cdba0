// `gilscope diff` on real recordings, on every interpreter present: a 70/30 baseline
// against a 30/70 current recording of tests/targets/heavy_light_split.py, each covering
// the run its target measured (gated, in gil mode), shows heavy_part shrunk and light_part
// grown by what the targets ran (about 40 points at rest, less at load 15, where they run
// nearer 50/50), each share and change what the recordings' counts give, the same in the
// table and the JSON; --fail-if-grows exit codes; recordings of different modes are refused.
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
        // Gated runs, so each recording and its target's own measure cover the same loop
        // on a loaded machine too; in gil mode, where the wait for the gate (asleep, without
        // the GIL) leaves no sample to dilute the shares.
        const QString baseBin = dir.filePath("base.bin"), curBin = dir.filePath("cur.bin");
        const GatedRun base =
            recordGated(interpreter, dir.path(), 70, {"--mode", "gil", "--binary", "-o", baseBin});
        QVERIFY2(base.error.isEmpty(), qPrintable(base.error));
        const GatedRun cur =
            recordGated(interpreter, dir.path(), 30, {"--mode", "gil", "--binary", "-o", curBin});
        QVERIFY2(cur.error.isEmpty(), qPrintable(cur.error));
        // What the targets really ran: about -40 points for heavy_part.
        const double truth = cur.heavyPct - base.heavyPct;

        const RunResult j = runGilscope({"diff", baseBin, curBin, "--json", "-l", "0"});
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
        const double baseSamples = diff["baseline"].toObject()["samples"].toDouble();
        const double curSamples = diff["current"].toObject()["samples"].toDouble();
        QVERIFY(baseSamples > 300 && curSamples > 300);
        // Each share is of its own recording's samples, and the change is their difference:
        // the sign and size follow from the counts just checked against the targets.
        for (const QJsonObject& r : {heavy, light}) {
            const double was = 100 * r["baseline_total"].toDouble() / baseSamples;
            const double now = 100 * r["current_total"].toDouble() / curSamples;
            QVERIFY(std::abs(r["baseline_total_pct"].toDouble() - was) < 1e-6);
            QVERIFY(std::abs(r["current_total_pct"].toDouble() - now) < 1e-6);
            QVERIFY2(std::abs(r["delta_total_pct"].toDouble() - (now - was)) < 1e-6,
                     qPrintable(r["function"].toString()));
        }
        // heavy_part shrank and light_part grew, as the targets ran them: about 40 points
        // when they ran about 40 apart (at load 15 they run nearer 55/45 and 45/55, the
        // split checks above following them).
        QVERIFY2(dHeavy < -2 && dLight > 2, qPrintable(j.out));
        if (truth < -30) QVERIFY2(dHeavy < -20 && dLight > 20, qPrintable(j.out));
        // Largest changes first (on a loaded machine, samples outside the two parts can
        // move busy or <module> as much, so the order is checked, not who leads).
        const QJsonArray rows = diff["rows"].toArray();
        QVERIFY(rows.size() >= 2);
        for (qsizetype i = 1; i < rows.size(); ++i)
            QVERIFY2(std::abs(rows[i - 1].toObject()["delta_total_pct"].toDouble()) >=
                         std::abs(rows[i].toObject()["delta_total_pct"].toDouble()),
                     qPrintable(rows[i].toObject()["function"].toString()));
        const QString first = rows[0].toObject()["function"].toString();
        if (std::abs(dHeavy) > 30 && std::abs(dLight) > 30) // at rest: these two lead
            QVERIFY2(first == "heavy_part" || first == "light_part", qPrintable(first));

        // The table says the same, to its two decimals.
        const RunResult t = runGilscope({"diff", baseBin, curBin});
        QVERIFY2(t.exitCode == 0, qPrintable(describe(t)));
        QVERIFY2(std::abs(tableChange(t.out, "heavy_part") - dHeavy) < 0.006, qPrintable(t.out));
        QVERIFY2(std::abs(tableChange(t.out, "light_part") - dLight) < 0.006, qPrintable(t.out));

        // CI use: light_part grew by dLight points (a point either side of it as limits),
        // heavy_part did not grow.
        auto exitOf = [&](const QStringList& extra) {
            return runGilscope(QStringList{"diff", baseBin, curBin} + extra).exitCode;
        };
        const QString below = "light_part:" + QString::number(dLight - 1, 'f', 2);
        const QString above = "light_part:" + QString::number(dLight + 1, 'f', 2);
        QCOMPARE(exitOf({"--fail-if-grows", below}), 12);
        QCOMPARE(exitOf({"--fail-if-grows", above}), 0);
        QCOMPARE(exitOf({"--fail-if-grows", "light_part:90"}), 0);
        QCOMPARE(exitOf({"--fail-if-grows", "heavy_part:0"}), 0);
        QCOMPARE(exitOf({"--fail-if-grows", "heavy_part:0", "--fail-if-grows", below}), 12);
        // The other way round, heavy_part is the one that grew.
        const QString heavyBelow = "heavy_part:" + QString::number(-dHeavy - 1, 'f', 2);
        QCOMPARE(runGilscope({"diff", curBin, baseBin, "--fail-if-grows", heavyBelow}).exitCode,
                 12);
        // A misspelt function is a usage error, not a pass.
        const RunResult typo = runGilscope({"diff", baseBin, curBin, "--fail-if-grows", "hevy:5"});
        QCOMPARE(typo.exitCode, 2);
        QVERIFY2(typo.err.contains("no function \"hevy\""), qPrintable(typo.err));
    }

    // A baseline recorded in CPU mode sampled other threads than a wall-clock one: refused,
    // whichever side it is on.
    void otherModeIsRefused() {
        const Interpreter interpreter = all_.first();
        QTemporaryDir dir;
        // Gated, so each holds the loop whenever a loaded machine lets gilscope start.
        const QString wallBin = dir.filePath("wall.bin"), cpuBin = dir.filePath("cpu.bin");
        const GatedRun wall = recordGated(interpreter, dir.path(), 70, {"--binary", "-o", wallBin});
        QVERIFY2(wall.error.isEmpty(), qPrintable(wall.error));
        const GatedRun cpu =
            recordGated(interpreter, dir.path(), 70, {"--mode", "cpu", "--binary", "-o", cpuBin});
        QVERIFY2(cpu.error.isEmpty(), qPrintable(cpu.error));
        for (const QStringList& pair : {QStringList{cpuBin, wallBin}, {wallBin, cpuBin}}) {
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
        const RunResult bad = runGilscope({"diff", junk.fileName(), wallBin});
        QCOMPARE(bad.exitCode, 8);
        QVERIFY(bad.out.isEmpty());
        // The same recording against itself compares, with no change.
        const RunResult same = runGilscope({"diff", cpuBin, cpuBin, "--json"});
        QVERIFY2(same.exitCode == 0, qPrintable(describe(same)));
        const QJsonObject heavy =
            row(QJsonDocument::fromJson(same.outBytes).object(), "heavy_part");
        QVERIFY(heavy["current_total"].toDouble() > 0);
        QCOMPARE(heavy["delta_total_pct"].toDouble(), 0.0);
    }
};

QTEST_GUILESS_MAIN(TestDiff)
#include "test_diff.moc"
