// `gilscope report --by opcode` on .bin files recorded with --opcodes from a real target, on
// every interpreter present: each line's samples split by the instruction that ran. From
// 3.11 the interpreter specialises: an attribute load on objects of one class shows its
// specialised form (LOAD_ATTR_INSTANCE_VALUE), one on numbers of changing types the
// adaptive LOAD_ATTR (3.11: LOAD_ATTR_ADAPTIVE). A recording without --opcodes is refused
// with the reason.
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace gilscope::test;

namespace {

struct LineOpcodes {
    QMap<QString, double> samples; // opcode name -> own samples
    double specialisedLoads = 0, adaptiveLoads = 0;
};

LineOpcodes opcodesOf(const QJsonObject& rep, int line) {
    LineOpcodes out;
    for (const auto& v : rep["rows"].toArray()) {
        const QJsonObject row = v.toObject();
        if (row["line"].toInt() != line || !row["file"].toString().endsWith("attr_loads.py"))
            continue;
        const QString op = row["opcode"].toString();
        out.samples[op] += row["own"].toDouble();
        // 3.11's adaptive form has a name of its own (CPython lists it as specialised).
        const bool adaptive = !row["specialized"].toBool() || op.endsWith("_ADAPTIVE");
        if (row["base_opcode"].toString() == "LOAD_ATTR")
            (adaptive ? out.adaptiveLoads : out.specialisedLoads) += row["own"].toDouble();
    }
    return out;
}

QString describeOps(const LineOpcodes& l) {
    QStringList parts;
    for (auto it = l.samples.begin(); it != l.samples.end(); ++it)
        parts << QStringLiteral("%1 %2").arg(it.key()).arg(it.value());
    return parts.join(", ");
}

} // namespace

class TestReportOpcodes : public QObject {
    Q_OBJECT
    QList<Interpreter> all_;

private slots:
    void initTestCase() {
        all_ = findInterpreters();
        printTestedInterpreters(all_);
        GILSCOPE_REQUIRE_INTERPRETERS(all_);
    }

    void attributeLoadsBySpecialisation_data() { addInterpreterRows(all_); }
    void attributeLoadsBySpecialisation() {
        QFETCH(Interpreter, interpreter);
        QTemporaryDir dir;
        TargetProcess target(interpreter, targetScript("attr_loads.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        const int stableLine = target.readyInfo()["stable_line"].toInt();
        const int changingLine = target.readyInfo()["changing_line"].toInt();
        const QString bin = dir.filePath("out.bin");
        const auto rec = runGilscope({"attach", "--binary", "--opcodes", "-d", "2", "-r", "2khz",
                                      "-o", bin, QString::number(target.pid())});
        QVERIFY2(rec.exitCode == 0, qPrintable(describe(rec)));
        const auto r = runGilscope({"report", bin, "--by", "opcode", "--json", "-l", "0"});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const QJsonObject rep = QJsonDocument::fromJson(r.outBytes).object();
        QCOMPARE(rep["by"].toString(), QStringLiteral("opcode"));
        const LineOpcodes stable = opcodesOf(rep, stableLine);
        const LineOpcodes changing = opcodesOf(rep, changingLine);
        qInfo("%s: stable line: %s; changing line: %s", qPrintable(interpreter.label),
              qPrintable(describeOps(stable)), qPrintable(describeOps(changing)));
        QVERIFY2(!stable.samples.isEmpty() && !changing.samples.isEmpty(),
                 qPrintable(r.out.left(2000)));
        if (interpreter.minor >= 11) {
            // One class: the load specialised, and the adaptive form is (nearly) never seen.
            QVERIFY2(stable.specialisedLoads > 0, qPrintable(describeOps(stable)));
            QVERIFY2(stable.adaptiveLoads <= 0.1 * stable.specialisedLoads,
                     qPrintable(describeOps(stable)));
            // Changing types: the adaptive LOAD_ATTR shows, and outweighs any specialised form.
            QVERIFY2(changing.adaptiveLoads > 0, qPrintable(describeOps(changing)));
            QVERIFY2(changing.adaptiveLoads > changing.specialisedLoads,
                     qPrintable(describeOps(changing)));
        } else {
            // Before 3.11 there is no specialisation: every form is a base form.
            QCOMPARE(stable.specialisedLoads + changing.specialisedLoads, 0.0);
        }
        // Text: the instruction after each line, the base form in brackets.
        const auto text = runGilscope({"report", bin, "--by", "opcode", "-l", "5"});
        QVERIFY2(text.exitCode == 0 && text.out.contains("instruction"),
                 qPrintable(describe(text)));

        // The heatmap page: the line's own cell names its instructions in its tooltip.
        const QString folder = dir.filePath("heat");
        const auto heat = runGilscope({"replay", bin, "--heatmap", "-o", folder});
        QVERIFY2(heat.exitCode == 0, qPrintable(describe(heat)));
        QString page;
        for (const QString& name : QDir(folder).entryList({"*.html"})) {
            QFile f(QDir(folder).filePath(name));
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QString text = QString::fromUtf8(f.readAll());
            if (text.contains("attr_loads.py") && text.contains("id=\"line-")) page = text;
        }
        const QRegularExpression stableRow(
            QStringLiteral("<tr id=\"line-%1\"[^>]*><td class=\"n\">.*?</td><td class=\"own\" "
                           "title=\"([^\"]*)\"")
                .arg(stableLine));
        const QRegularExpressionMatch m = stableRow.match(page);
        QVERIFY2(m.hasMatch(), qPrintable(page.left(300)));
        QVERIFY2(m.captured(1).contains(interpreter.minor >= 11 ? "LOAD_ATTR_INSTANCE_VALUE"
                                                                : "LOAD_ATTR"),
                 qPrintable(m.captured(1)));

        // Without --opcodes, the recording has none: refused with the reason.
        const QString plain = dir.filePath("plain.bin");
        const auto rec2 = runGilscope(
            {"attach", "--binary", "-d", "0.5", "-o", plain, QString::number(target.pid())});
        QVERIFY2(rec2.exitCode == 0, qPrintable(describe(rec2)));
        const auto refused = runGilscope({"report", plain, "--by", "opcode"});
        QVERIFY(refused.exitCode != 0);
        QVERIFY2(refused.err.contains("record with --opcodes"), qPrintable(refused.err));
    }
};

QTEST_GUILESS_MAIN(TestReportOpcodes)
#include "test_report_opcodes.moc"
