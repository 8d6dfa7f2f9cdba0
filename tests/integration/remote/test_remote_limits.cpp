// Targets at the edges of what a stack can hold, on every interpreter present, through
// the CLI: names far longer than any real one, recursion far deeper than the depth
// limit, a first line at the top of its range. The sample is kept and says what it cut.
#include "core/util/temp_dir.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTest>

#include <csignal>

using namespace gilscope;
using gilscope::test::describe;
using gilscope::test::Interpreter;
using gilscope::test::runGilscope;
using gilscope::test::RunResult;
using gilscope::test::TargetOptions;
using gilscope::test::TargetProcess;

namespace {

constexpr int kKeptChars = 64 * 1024; // where gilscope cuts a long name
const QString kCut = QString(QChar(0x2026));

// The main thread's frames (leaf first) as `gilscope dump --json` prints them.
QJsonArray dumpFrames(qint64 pid, const QStringList& options, QString* error) {
    const RunResult r =
        runGilscope(QStringList{"dump", "--json"} + options + QStringList{QString::number(pid)});
    if (r.exitCode != 0) {
        *error = describe(r);
        return {};
    }
    return QJsonDocument::fromJson(r.outBytes)["threads"][0]["frames"].toArray();
}

// Collapsed lines ("root;...;leaf count") of a recording of `pid`.
QStringList recordCollapsed(qint64 pid, const QStringList& options, QString* error) {
    auto tmp = TempDir::create("test-limits");
    if (!tmp) {
        *error = QString::fromStdString(tmp.error().message);
        return {};
    }
    const QString out = QString::fromStdString((tmp->path() / "out.txt").string());
    const RunResult r = runGilscope(QStringList{"attach"} + options +
                                    QStringList{"--collapsed", "-o", out, QString::number(pid)});
    QFile file(out);
    if (r.exitCode != 0 || !file.open(QIODevice::ReadOnly)) {
        *error = describe(r);
        return {};
    }
    return QString::fromUtf8(file.readAll()).split('\n', Qt::SkipEmptyParts);
}

} // namespace

class TestRemoteLimits : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { GILSCOPE_PRINT_AND_REQUIRE_INTERPRETERS(); }

    // A 70,000-character function name in a file with a 70,000-character name: read in
    // full up to 64 Ki characters, then cut with a visible "…"; dump and recording keep
    // the stack.
    void longNames_data() { test::addInterpreterRows(test::findInterpreters()); }
    void longNames() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "long_names.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QString name = target.readyInfo()["name"].toString();
        const QString file = target.readyInfo()["file"].toString();
        QCOMPARE(name.size(), 70000);
        const QString shownName = name.left(kKeptChars) + kCut;
        const QString shownFile = file.left(kKeptChars) + kCut;

        QString error;
        const QJsonArray frames = dumpFrames(target.pid(), {}, &error);
        QVERIFY2(!frames.isEmpty(), qPrintable(error));
        const QJsonObject leaf = frames.first().toObject();
        QVERIFY2(leaf["function"].toString() == shownName,
                 qPrintable(leaf["function"].toString().left(80)));
        QVERIFY2(leaf["filename"].toString() == shownFile,
                 qPrintable(leaf["filename"].toString().left(80)));
        QCOMPARE(leaf["line"].toInt(), 3);
        QCOMPARE(frames.last().toObject()["function"].toString(), QString("<module>"));

        const QStringList lines = recordCollapsed(target.pid(), {"-d", "1"}, &error);
        QVERIFY2(!lines.isEmpty(), qPrintable(error));
        const QString leafText = shownName + " (" + shownFile + ":3)";
        qint64 samples = 0;
        for (const QString& line : lines) {
            const QStringList stack = line.left(line.lastIndexOf(' ')).split(';');
            QVERIFY2(stack.first().startsWith("<module> "), qPrintable(line.left(200)));
            QVERIFY2(stack.last() == leafText, qPrintable(stack.last().left(200)));
            samples += line.mid(line.lastIndexOf(' ') + 1).toLongLong();
        }
        qInfo("%s: %lld samples with the cut name", qPrintable(interpreter.label), samples);
        QVERIFY(samples >= 50);
    }

    // 20,000 frames of recursion, deeper than the 1536 frames a stack keeps: the leaf side
    // and the 16 frames nearest the root stay around one "<truncated: N frames>" frame,
    // so the stack stays rooted at <module>. --max-depth sets the limit.
    void deepRecursion_data() { test::addInterpreterRows(test::findInterpreters()); }
    void deepRecursion() {
        QFETCH(Interpreter, interpreter);
        constexpr int kDepth = 20000;
        TargetOptions options;
        options.args = QStringList{QString::number(kDepth)};
        TargetProcess target(interpreter, "recursion.py", options);
        QVERIFY2(target.start(), qPrintable(target.error()));
        constexpr int kTotal = kDepth + 1; // and <module>
        for (const int maxDepth : {1536, 100}) {
            QString error;
            const QJsonArray frames =
                dumpFrames(target.pid(), {"--max-depth", QString::number(maxDepth)}, &error);
            QVERIFY2(!frames.isEmpty(), qPrintable(error));
            QCOMPARE(frames.size(), maxDepth);
            const int root = std::min(16, (maxDepth - 1) / 4 + 1), leaf = maxDepth - 1 - root;
            for (int i = 0; i < frames.size(); ++i) {
                const QString name = frames[i]["function"].toString();
                const QString want =
                    i == leaf ? QStringLiteral("<truncated: %1 frames>").arg(kTotal - leaf - root)
                    : i == frames.size() - 1 ? QStringLiteral("<module>")
                                             : QStringLiteral("recurse");
                QVERIFY2(name == want, qPrintable(QStringLiteral("frame %1 of %2: %3, not %4")
                                                      .arg(i)
                                                      .arg(maxDepth)
                                                      .arg(name, want)));
            }
        }
        QString error;
        // 20,000 frames are read every sample, so samples are few (3.8-3.10 read each frame
        // object on its own); each one must be cut and rooted.
        const QStringList lines =
            recordCollapsed(target.pid(), {"-d", "2", "--max-depth", "64"}, &error);
        QVERIFY2(!lines.isEmpty(), qPrintable(error));
        qint64 samples = 0;
        const QString cut = QStringLiteral("<truncated: %1 frames> (~:0)").arg(kTotal - 47 - 16);
        for (const QString& line : lines) {
            const QStringList stack = line.left(line.lastIndexOf(' ')).split(';');
            QVERIFY2(stack.size() == 64 && stack.first().startsWith("<module> ") &&
                         stack[16] == cut && stack.last().startsWith("recurse "),
                     qPrintable(line.left(300)));
            samples += line.mid(line.lastIndexOf(' ') + 1).toLongLong();
        }
        qInfo("%s: %lld samples of 64 frames", qPrintable(interpreter.label), samples);
        QVERIFY(samples >= 3);
    }

    // co_firstlineno = 2**31 - 1, the largest a code object holds. On that very line
    // CPython reports 2147483647; one line further no line number can hold it, and
    // CPython 3.10+ reports none. Neither may wrap around to -2147483648.
    void hugeFirstLine_data() { test::addInterpreterRows(test::findInterpreters()); }
    void hugeFirstLine() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "huge_first_line.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        QString error;
        const QJsonArray frames = dumpFrames(target.pid(), {}, &error);
        QVERIFY2(!frames.isEmpty(), qPrintable(error));
        int found = 0;
        for (const QJsonValue f : frames) {
            const QString name = f["function"].toString();
            if (name != "inner" && name != "outer") continue;
            ++found;
            const qint64 want = name == "inner" ? 2147483647 : -1; // -1: no line
            QVERIFY2(f["line"].toInteger() == want && f["end_line"].toInteger() == want,
                     qPrintable(QJsonDocument(f.toObject()).toJson()));
        }
        QVERIFY2(found == 2, qPrintable(QJsonDocument(frames).toJson()));
    }

    // A target that exec's another program keeps its pid, but its Python is gone: the
    // recording says so and stops (well before its 120 s), keeping what it recorded,
    // instead of going on counting errors.
    void execStopsRecording_data() { test::addInterpreterRows(test::findInterpreters()); }
    void execStopsRecording() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "exec_later.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        auto tmp = TempDir::create("test-limits");
        QVERIFY(tmp);
        const QString out = QString::fromStdString((tmp->path() / "out.txt").string());
        auto gilscope =
            test::startGilscope({"attach", "-d", "120", "--realtime-stats", "--collapsed", "-o",
                                 out, QString::number(target.pid())});
        QVERIFY(gilscope);
        // The first statistics line: sampling has started.
        QVERIFY2(gilscope->waitForReadyRead(30000),
                 qPrintable(QString::fromUtf8(gilscope->readAllStandardError())));
        QCOMPARE(::kill(pid_t(target.pid()), SIGUSR1), 0);
        QVERIFY2(gilscope->waitForFinished(60000), "still recording after the target's exec");
        const QString err = QString::fromUtf8(gilscope->readAllStandardError());
        QCOMPARE(gilscope->exitStatus(), QProcess::NormalExit);
        QCOMPARE(gilscope->exitCode(), 0);
        const QString want =
            QStringLiteral("gilscope: process %1 replaced its program (exec of ").arg(target.pid());
        QVERIFY2(err.contains(want) && err.contains("sleep): its Python interpreter is gone; "
                                                    "recording stopped"),
                 qPrintable(err));
        QFile file(out);
        QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(err));
        const QString text = QString::fromUtf8(file.readAll());
        QVERIFY2(text.startsWith("<module> ") && text.contains("exec_later.py"), qPrintable(text));
    }
};

QTEST_GUILESS_MAIN(TestRemoteLimits)
#include "test_remote_limits.moc"
