// Are the shares true? (issue 34) A target of four phases that times itself with
// perf_counter (tests/targets/timed_phases.py: a tree recursion, a generator chain, a loop
// with no calls, method calls) is recorded as a user would, `attach -r 1khz --collapsed`,
// on every interpreter, quiet and with a busy process on each core. Each phase's share of
// the samples that show a phase must be within 1.5 points of the target's own, and no
// more than 3% of the ticks dropped. Dropping torn reads instead of reading them again
// lost the recursion 3-15 points of its share on an idle machine.
//
// Busy rows record at 2 kHz. A loaded machine wakes the sampler late by random amounts, so
// its samples fall at random times rather than on a grid, and a phase's share of 4,000
// such samples is only good to about 0.7 points (one standard deviation): the bound was
// two of them, and busy rows failed by chance, a different phase each time (1.6-1.7 points
// at 2.5-5 % missed, passing on a second run). Twice the samples in the same 4 s bring that
// to 0.5. Quiet rows stay at 1 kHz, where samples keep their grid (worst 0.1-0.4 points): at
// 2 kHz the quarter-interval budget for reading a torn 3.8-3.10 walk again drops 1-1.5 % of
// ticks, and dropping is a bias of its own (the recursion's).
//
// It runs alone (RUN_SERIAL): the contention it measures under is its own, a busy process
// per core. Another suite's burst starves the sampler instead, and a starved sampler misses
// ticks and finishes torn reads late, in the next phase: on 3.10, a sampler at nice 8
// sharing a core with three busy loops missed 36% of its ticks and moved 2-3 points from the
// recursion and the generators to the loop and the methods (CI saw 1.8 points at 7% missed).
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <cmath>
#include <csignal>
#include <memory>
#include <sys/prctl.h>
#include <vector>

using namespace gilscope::test;

namespace {

constexpr double kMaxShareErrorPoints = 1.5;
constexpr double kMaxDroppedPct = 3;
constexpr double kMaxMissedPctToJudge = 2; // a row whose sampler missed more is recorded again

// A busy loop on each core, for as long as it lives. Each loop is killed when this test
// goes (killed at a timeout, say), or it would load every test after it.
class Contention {
public:
    Contention() {
        for (int i = 0; i < QThread::idealThreadCount(); ++i) {
            auto p = std::make_unique<QProcess>();
            p->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
            p->start(QStringLiteral("/bin/sh"),
                     {QStringLiteral("-c"), QStringLiteral("while :; do :; done")});
            if (p->waitForStarted()) procs_.push_back(std::move(p));
        }
    }
    ~Contention() {
        for (auto& p : procs_) {
            p->kill();
            p->waitForFinished();
        }
    }
    size_t size() const { return procs_.size(); }

private:
    std::vector<std::unique_ptr<QProcess>> procs_;
};

// Samples per phase: a collapsed line counts for a phase when one of its frames is it.
QMap<QString, double> phaseSamples(const QString& path, const QStringList& phases) {
    QMap<QString, double> counts;
    for (const QString& p : phases)
        counts[p] = 0;
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return counts;
    for (const QString& line : QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts)) {
        const qsizetype space = line.lastIndexOf(' ');
        const QStringList frames = line.left(space).split(';');
        const double n = line.mid(space + 1).toDouble();
        for (const QString& p : phases)
            for (const QString& frame : frames)
                if (frame.startsWith(p + " (")) {
                    counts[p] += n;
                    break;
                }
    }
    return counts;
}

QMap<QString, double> shares(const QMap<QString, double>& values) {
    double total = 0;
    for (double v : values)
        total += v;
    QMap<QString, double> out;
    for (auto it = values.begin(); it != values.end(); ++it)
        out[it.key()] = total > 0 ? 100 * it.value() / total : 0;
    return out;
}

} // namespace

class TestShareTruth : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { GILSCOPE_PRINT_AND_REQUIRE_INTERPRETERS(); }

    void phasesAsTimed_data() {
        QTest::addColumn<Interpreter>("interpreter");
        QTest::addColumn<bool>("busy");
        for (const Interpreter& in : findInterpreters())
            for (bool busy : {false, true})
                QTest::newRow(qPrintable(in.label + (busy ? " busy" : " quiet"))) << in << busy;
    }
    void phasesAsTimed() {
        QFETCH(Interpreter, interpreter);
        QFETCH(bool, busy);
        // A sampler that misses ticks takes no sample while it and the target both wait for
        // a core, and the phase running then loses share: 1.8-2.0 points at 2.7-3.6 %
        // missed in CI, 1.4-1.9 at 9-12 % with two more busy loops, against 0.15-0.46 at
        // ~1 % for the same row (measured 2026-12-07; docs/limits.md). That is the
        // machine's scheduling, not the reader this test is about: a row whose sampler
        // missed more than 2 % of its ticks is recorded again, up to three times, and the
        // last one is judged, whatever it missed. The bound stays.
        Row row;
        for (int attempt = 1; attempt <= 3; ++attempt) {
            recordRow(interpreter, busy, row);
            if (QTest::currentTestFailed()) return;
            qInfo("%s %s, recording %d: %s", qPrintable(interpreter.label), busy ? "busy" : "quiet",
                  attempt, qPrintable(row.summary));
            if (row.missed <= kMaxMissedPctToJudge) break;
        }
        // 4 s at 1 kHz (2 kHz busy); a loaded machine keeps fewer, but never too few to judge by.
        QVERIFY2(row.samples >= 1500, qPrintable(QString::number(row.samples)));
        QVERIFY2(row.dropped <= kMaxDroppedPct,
                 qPrintable(QStringLiteral("%1% dropped").arg(row.dropped)));
        QVERIFY2(row.worst <= kMaxShareErrorPoints,
                 qPrintable(
                     QStringLiteral("a phase is %1 points off:%2").arg(row.worst).arg(row.phases)));
    }

private:
    struct Row {
        double samples = 0, dropped = 0, missed = 0, torn = 0, worst = 0;
        QString phases, summary;
    };

    void recordRow(const Interpreter& interpreter, bool busy, Row& result) {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        // Its phases run 4 s once the gate exists, then it exits.
        TargetProcess target(interpreter, "timed_phases.py", gatedTarget(dir, {"4"}));
        QVERIFY2(target.start(), qPrintable(target.error()));
        QStringList phases;
        for (const QJsonValue& v : target.readyInfo()["phases"].toArray())
            phases << v.toString();
        QCOMPARE(phases.size(), 4);

        std::unique_ptr<Contention> load;
        if (busy) load = std::make_unique<Contention>();
        const QString out = dir.filePath("out.collapsed");
        const RunResult r = runGatedGilscope({"attach", "-r", busy ? "2khz" : "1khz", "--collapsed",
                                              "-o", out, QString::number(target.pid())},
                                             dir.path(), gatePath(dir));
        load.reset();
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const auto timed = target.readTimedJson("PHASES ");
        QVERIFY2(timed, qPrintable(target.error()));
        const QJsonObject& spent = *timed;
        QMap<QString, double> truthSeconds;
        for (const QString& p : phases)
            truthSeconds[p] = spent[p].toDouble();
        const QMap<QString, double> truth = shares(truthSeconds);

        static const QRegularExpression rate(QStringLiteral("Error rate: ([0-9.]+)%"));
        const QRegularExpressionMatch m = rate.match(r.out);
        QVERIFY2(m.hasMatch(), qPrintable(describe(r)));
        const double dropped = m.captured(1).toDouble();
        // Why a row is off, when it is: ticks the sampler missed and reads that tore.
        static const QRegularExpression tornRe(QStringLiteral("Torn reads: ([0-9.]+)%"));
        const QRegularExpressionMatch tornMatch = tornRe.match(r.out + r.err);
        const double missed = samplerMissedPct(r);
        const double torn = tornMatch.hasMatch() ? tornMatch.captured(1).toDouble() : 0;

        const QMap<QString, double> counts = phaseSamples(out, phases);
        const QMap<QString, double> measured = shares(counts);
        double samples = 0, worst = 0;
        QString row;
        for (const QString& p : phases) {
            samples += counts[p];
            worst = std::max(worst, std::abs(measured[p] - truth[p]));
            row += QStringLiteral(" %1 %2->%3")
                       .arg(p)
                       .arg(truth[p], 0, 'f', 1)
                       .arg(measured[p], 0, 'f', 1);
        }
        result = Row{samples, dropped, missed, torn, worst, row, {}};
        result.summary = QString::asprintf(
            "%.0f samples, %.2f%% dropped, %.2f%% missed, %.2f%% torn, worst phase %.2f points;%s",
            samples, dropped, missed, torn, worst, qPrintable(row));
    }
};

QTEST_GUILESS_MAIN(TestShareTruth)
#include "test_share_truth.moc"
