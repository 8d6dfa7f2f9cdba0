// Stacks that must never be shown: torn walks of targets whose frames come and go all the
// time (a random-depth recursion, generators), on every interpreter present. Each
// check runs through the CLI, as a user would see it (`dump` and a recording).
#include "core/util/temp_dir.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTest>

using namespace gilscope;
using gilscope::test::describe;
using gilscope::test::Interpreter;
using gilscope::test::runGilscope;
using gilscope::test::RunResult;
using gilscope::test::TargetProcess;

namespace {

// One line of collapsed output: frames root first, and how many samples had them.
struct CollapsedStack {
    QStringList frames;
    qint64 count = 0;
};

// Records `pid` into a collapsed file and returns its stacks (empty and a message on
// failure), and the error rate the summary gave (the share of ticks dropped as torn).
QList<CollapsedStack> recordCollapsed(qint64 pid, const QStringList& options, QString* error,
                                      double* errorPct) {
    auto tmp = TempDir::create("test-torn");
    if (!tmp) {
        *error = QString::fromStdString(tmp.error().message);
        return {};
    }
    const QString out = QString::fromStdString((tmp->path() / "out.txt").string());
    const RunResult r = runGilscope(QStringList{"attach"} + options +
                                    QStringList{"--collapsed", "-o", out, QString::number(pid)});
    if (r.exitCode != 0) {
        *error = describe(r);
        return {};
    }
    static const QRegularExpression rate(QStringLiteral("Error rate: ([0-9.]+)%"));
    const QRegularExpressionMatch m = rate.match(r.out + r.err);
    if (!m.hasMatch()) {
        *error = "no error rate in the summary: " + describe(r);
        return {};
    }
    *errorPct = m.captured(1).toDouble();
    QFile file(out);
    if (!file.open(QIODevice::ReadOnly)) {
        *error = "no output file: " + describe(r);
        return {};
    }
    QList<CollapsedStack> stacks;
    for (const QString& line : QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts)) {
        const qsizetype space = line.lastIndexOf(' ');
        stacks.append({line.left(space).split(';'), line.mid(space + 1).toLongLong()});
    }
    return stacks;
}

// The share of ticks a recording may drop as torn (issue 34's goal). A torn walk is read
// again at once, for up to a quarter of the tick interval, so a tick is dropped only when
// every try tore: on an idle 2-core VM random recursion (1 kHz) and generators (2 kHz)
// dropped 0-0.05% on every version. With a tenth of the interval they dropped up to 5.3%
// (3.10's recursion) and 4.2% (3.12's generators); with the one retry before, 20-45%
// (3.11+) and 31-67% (3.8-3.10): either fails here.
constexpr double kMaxTornPct = 2;

qint64 totalSamples(const QList<CollapsedStack>& stacks) {
    qint64 n = 0;
    for (const CollapsedStack& s : stacks)
        n += s.count;
    return n;
}

} // namespace

class TestRemoteTorn : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        GILSCOPE_PRINT_AND_REQUIRE_INTERPRETERS();
        test::printTestedInterpreters(test::findFreeThreadedInterpreters());
    }

    // py-spy's test_recursive: recursion to a random depth <= 20 and back, in a loop. On
    // 3.8-3.10 frames freed meanwhile go to a free list linked through f_back, the very
    // pointer the walk follows: such a walk must be retried or counted as an error, never
    // shown. Every real stack is rooted at <module> and is at most 22 frames deep.
    void randomRecursion_data() { test::addInterpreterRows(test::findEveryBuild()); }
    void randomRecursion() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "random_recursion.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        int wrong = 0;
        QString example;
        for (int i = 0; i < 100; ++i) {
            const RunResult r = runGilscope({"dump", "--json", QString::number(target.pid())});
            QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
            const QJsonArray threads = QJsonDocument::fromJson(r.outBytes)["threads"].toArray();
            QCOMPARE(threads.size(), 1);
            const QJsonArray frames = threads[0].toObject()["frames"].toArray();
            const bool ok = !frames.isEmpty() && frames.size() <= 22 &&
                            frames.last().toObject()["function"].toString() == "<module>";
            if (!ok && ++wrong == 1) example = QString::fromUtf8(r.outBytes);
        }
        QVERIFY2(
            wrong == 0,
            qPrintable(QStringLiteral("%1 of 100 dumps wrong, e.g.\n%2").arg(wrong).arg(example)));

        QString error;
        double errorPct = 0;
        const QList<CollapsedStack> stacks =
            recordCollapsed(target.pid(), {"-d", "1"}, &error, &errorPct);
        QVERIFY2(!stacks.isEmpty(), qPrintable(error));
        qint64 bad = 0;
        for (const CollapsedStack& s : stacks)
            if (s.frames.size() > 22 || !s.frames.first().startsWith("<module> ")) {
                if (bad == 0) example = s.frames.join(';');
                bad += s.count;
            }
        const qint64 total = totalSamples(stacks);
        qInfo("%s: %lld samples, %lld wrong, %.2f%% dropped as torn", qPrintable(interpreter.label),
              total, bad, errorPct);
        QVERIFY2(bad == 0, qPrintable(QStringLiteral("%1 of %2 samples wrong, e.g. %3")
                                          .arg(bad)
                                          .arg(total)
                                          .arg(example)));
        QVERIFY2(total >= 100, qPrintable(QString::number(total))); // it really recorded
        // Dropping is no way to be right (issues 18 and 34): nearly every tick keeps its stack.
        QVERIFY2(errorPct <= kMaxTornPct, qPrintable(QString::number(errorPct)));
    }

    // difflib's generator expressions and email's generator-based parser, on the main
    // thread, 3 s at 2 kHz: a generator frame read after it was suspended ends its chain
    // there. Only a walk that provably reached the thread's base counts.
    void generators_data() { test::addInterpreterRows(test::findEveryBuild()); }
    void generators() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "generators.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        QString error;
        double errorPct = 0;
        const QList<CollapsedStack> stacks =
            recordCollapsed(target.pid(), {"-d", "3", "-r", "2khz"}, &error, &errorPct);
        QVERIFY2(!stacks.isEmpty(), qPrintable(error));
        qint64 bad = 0;
        QString example;
        for (const CollapsedStack& s : stacks)
            if (!s.frames.first().startsWith("<module> ")) {
                if (bad == 0) example = s.frames.join(';');
                bad += s.count;
            }
        const qint64 total = totalSamples(stacks);
        qInfo("%s: %lld samples, %lld not rooted at <module>, %.2f%% dropped as torn",
              qPrintable(interpreter.label), total, bad, errorPct);
        QVERIFY2(bad == 0, qPrintable(QStringLiteral("%1 of %2 samples not rooted, e.g. %3")
                                          .arg(bad)
                                          .arg(total)
                                          .arg(example)));
        QVERIFY2(total >= 300, qPrintable(QString::number(total)));
        QVERIFY2(errorPct <= kMaxTornPct, qPrintable(QString::number(errorPct)));
    }
};

QTEST_GUILESS_MAIN(TestRemoteTorn)
#include "test_remote_torn.moc"
