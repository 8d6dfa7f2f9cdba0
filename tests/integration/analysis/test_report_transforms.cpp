// Call-tree transforms from the command line, on .bin files recorded from a real recursive
// AST visitor under a decorator, on every interpreter present: `report --collapse-recursion`
// turns the visitor's tower into one frame with the same total, `--merge wrapper` keeps
// the decorated functions' totals, `--focus`/`--drop` keep and drop the right samples, a
// misspelt name is refused, and `diff` and the HTML flame graph take the same options.
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace gilscope::test;

namespace {

// A function's total; 3.11+ name it by its qualified name ("NodeVisitor.visit").
double total(const QJsonObject& rep, const QString& func) {
    double sum = 0;
    for (const auto& v : rep["rows"].toArray()) {
        const QString name = v.toObject()["function"].toString();
        if (name == func || name.endsWith("." + func)) sum += v.toObject()["total"].toDouble();
    }
    return sum;
}

} // namespace

class TestReportTransforms : public QObject {
    Q_OBJECT
    QList<Interpreter> all_;

private slots:
    void initTestCase() {
        all_ = findInterpreters();
        printTestedInterpreters(all_);
        GILSCOPE_REQUIRE_INTERPRETERS(all_);
    }

    void visitorTowerAndDecorator_data() { addInterpreterRows(all_); }
    void visitorTowerAndDecorator() {
        QFETCH(Interpreter, interpreter);
        QTemporaryDir dir;
        TargetProcess target(interpreter, targetScript("ast_visitor.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QString bin = dir.filePath("out.bin");
        const auto rec = runGilscope({"attach", "--binary", "-d", "2", "-r", "2khz", "-o", bin,
                                      QString::number(target.pid())});
        QVERIFY2(rec.exitCode == 0, qPrintable(describe(rec)));
        QString error;
        const QJsonObject plain = reportJson(bin, {}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        const double visit = total(plain, "visit"), names = total(plain, "count_names");
        QVERIFY2(visit > 100, qPrintable(QString::number(visit)));
        // The tower: visit > generic_visit > visit > ... many frames deep (22-33 measured;
        // a loaded machine takes fewer samples, and sees the deepest calls less often).
        const int deepest = plain["max_depth"].toInt();
        QVERIFY2(deepest >= 16, qPrintable(QString::number(deepest)));

        // Collapsed, the tower is one visit frame (its children below it) with the same
        // total, and the stacks are shallow.
        const QJsonObject flat = reportJson(bin, {"--collapse-recursion"}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(total(flat, "visit"), visit);
        QCOMPARE(flat["matched_samples"].toDouble(), plain["matched_samples"].toDouble());
        const int flatDepth = flat["max_depth"].toInt();
        QVERIFY2(flatDepth <= 14 && flatDepth + 6 <= deepest,
                 qPrintable(QString("%1 of %2").arg(flatDepth).arg(deepest)));
        qInfo("%s: %.0f samples in visit; deepest stack %d frames, %d collapsed",
              qPrintable(interpreter.label), visit, deepest, flatDepth);
        QCOMPARE(flat["transforms"].toArray().first().toString(),
                 QStringLiteral("Collapse recursion"));

        // The decorator merged: its frames are gone, every decorated function keeps its
        // total, and so does everything else.
        const QJsonObject merged = reportJson(bin, {"--merge", "wrapper"}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QVERIFY(total(plain, "wrapper") > 0);
        QCOMPARE(total(merged, "wrapper"), 0.0);
        for (const char* f : {"count_names", "count_calls", "visit", "<module>"})
            QCOMPARE(total(merged, f), total(plain, f));

        // Focus and drop partition the samples by count_names.
        const QJsonObject focused = reportJson(bin, {"--focus", "count_names"}, &error);
        const QJsonObject dropped = reportJson(bin, {"--drop", "count_names"}, &error);
        QVERIFY2(error.isEmpty(), qPrintable(error));
        QCOMPARE(focused["matched_samples"].toDouble(), names);
        QCOMPARE(focused["matched_samples"].toDouble() + dropped["matched_samples"].toDouble(),
                 plain["matched_samples"].toDouble());
        QCOMPARE(total(focused, "<module>"), 0.0); // cut above count_names
        QCOMPARE(total(dropped, "visit"), 0.0);

        // Transforms apply in the order given: focusing on a merged function finds nothing.
        const auto refused =
            runGilscope({"report", bin, "--merge", "count_names", "--focus", "count_names"});
        QCOMPARE(refused.exitCode, 2);
        QVERIFY2(refused.err.contains("no function \"count_names\""), qPrintable(refused.err));
        const auto misspelt = runGilscope({"report", bin, "--merge", "wraper"});
        QCOMPARE(misspelt.exitCode, 2);
        QVERIFY2(misspelt.err.contains("Merge: wraper: no function"), qPrintable(misspelt.err));

        // diff: the same transforms on both sides.
        const auto same =
            runGilscope({"diff", bin, bin, "--json", "--collapse-recursion", "--merge", "wrapper",
                         "--fail-if-grows", "count_names:0.01"});
        QVERIFY2(same.exitCode == 0, qPrintable(describe(same)));

        // The HTML flame graph: the page says which transforms it shows.
        const QString page = dir.filePath("flame.html");
        const auto html = runGilscope({"replay", bin, "--flamegraph", "--collapse-recursion",
                                       "--merge", "wrapper", "-o", page});
        QVERIFY2(html.exitCode == 0, qPrintable(describe(html)));
        QFile f(page);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray text = f.readAll();
        QVERIFY(text.contains("Collapse recursion \\u203a Merge: wrapper") ||
                text.contains("Collapse recursion \u203a Merge: wrapper"));
        // Not for the other outputs: they hold stacks, not a tree to reshape.
        const auto collapsed = runGilscope(
            {"replay", bin, "--collapsed", "--merge", "wrapper", "-o", dir.filePath("c.txt")});
        QCOMPARE(collapsed.exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestReportTransforms)
#include "test_report_transforms.moc"
