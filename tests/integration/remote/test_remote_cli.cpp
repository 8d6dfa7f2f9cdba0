// `gilscope ps` and `gilscope dump` as a user runs them: exit codes, messages, text and
// JSON output, another user's process, and command lines that are not UTF-8.
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"
#include "tests/support/shared_dir.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTest>

#include <unistd.h>

using namespace gilscope;
using gilscope::test::describe;
using gilscope::test::Interpreter;
using gilscope::test::runGilscope;
using gilscope::test::runProgram;
using gilscope::test::RunResult;
using gilscope::test::TargetProcess;

class TestRemoteCli : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { GILSCOPE_PRINT_AND_REQUIRE_INTERPRETERS(); }

    void exitCodes() {
        RunResult r = runGilscope({"dump"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("--help"), qPrintable(describe(r)));
        r = runGilscope({"dump", "abc"});
        QCOMPARE(r.exitCode, 2);
        r = runGilscope({"dump", "--bogus", "1"});
        QCOMPARE(r.exitCode, 2);
        r = runGilscope({"dump", QString::number(1 << 30)});
        QCOMPARE(r.exitCode, 3);
        QVERIFY2(r.err.contains("gilscope ps"), qPrintable(describe(r)));

        QProcess sleeper;
        sleeper.start("sleep", {"60"});
        QVERIFY(sleeper.waitForStarted());
        r = runGilscope({"dump", QString::number(sleeper.processId())});
        sleeper.kill();
        sleeper.waitForFinished();
        QCOMPARE(r.exitCode, 4);
        QVERIFY2(r.err.contains("not a CPython process") && r.err.contains("gilscope ps"),
                 qPrintable(describe(r)));
    }

    void dumpText_data() { test::addInterpreterRows(test::findInterpreters()); }
    void dumpText() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "three_deep.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        const RunResult r = runGilscope({"dump", QString::number(target.pid())});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QVERIFY2(r.out.contains(QStringLiteral("Thread %1 (main_thread").arg(target.pid())),
                 qPrintable(r.out));
        for (const QJsonValue v : target.readyInfo()["frames"].toArray()) {
            const QJsonObject f = v.toObject();
            const QString name =
                interpreter.minor >= 11 ? f["qualname"].toString() : f["name"].toString();
            const QString want = QStringLiteral("    %1 (").arg(name);
            QVERIFY2(r.out.contains(want), qPrintable(want + " not in\n" + r.out));
            QVERIFY2(r.out.contains(QStringLiteral("three_deep.py:%1)").arg(f["line"].toInt())),
                     qPrintable(r.out));
        }
    }

    void dumpJsonAllThreads_data() { test::addInterpreterRows(test::findInterpreters()); }
    void dumpJsonAllThreads() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "four_threads.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        const RunResult r = runGilscope({"dump", "-a", "--json", QString::number(target.pid())});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        const QJsonObject j = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(j["pid"].toInteger(), target.pid());
        QVERIFY(j["python_version"].toString().startsWith(
            QStringLiteral("3.%1.").arg(interpreter.minor)));
        const QJsonArray threads = j["threads"].toArray();
        QCOMPARE(threads.size(), target.readyInfo()["threads"].toObject().size());
        int mains = 0;
        for (const QJsonValue t : threads) {
            const QJsonObject o = t.toObject();
            if (o["flags"].toArray().contains(QJsonValue("main_thread"))) ++mains;
            QVERIFY(!o["frames"].toArray().isEmpty());
        }
        QCOMPARE(mains, 1);
    }

    void psListsTargets_data() { test::addInterpreterRows(test::findInterpreters()); }
    void psListsTargets() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, "three_deep.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        const RunResult r = runGilscope({"ps", "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QJsonParseError err;
        const QJsonArray list = QJsonDocument::fromJson(r.out.toUtf8(), &err).array();
        QVERIFY2(err.error == QJsonParseError::NoError, qPrintable(err.errorString()));
        bool found = false;
        for (const QJsonValue v : list) {
            const QJsonObject p = v.toObject();
            if (p["pid"].toInteger() != target.pid()) continue;
            found = true;
            QVERIFY2(
                p["version"].toString().startsWith(QStringLiteral("3.%1.").arg(interpreter.minor)),
                qPrintable(p["version"].toString()));
            QCOMPARE(p["can_attach"].toBool(), true);
            QCOMPARE(p["user"].toString(), QString("root"));
            QVERIFY(p["command_line"].toString().contains("three_deep.py"));
        }
        QVERIFY2(found, "the target is missing from gilscope ps --json");
    }

    // gilscope running as `nobody` against a root-owned target: the message must say
    // why (another user, no CAP_SYS_PTRACE) and what to do (sudo / run as that user).
    void anotherUsersProcess() {
        if (::geteuid() != 0) QSKIP("needs root to start a root-owned target and drop to nobody");
        if (QStandardPaths::findExecutable("setpriv").isEmpty()) QSKIP("setpriv is not installed");
        const auto all = test::findInterpreters();
        TargetProcess target(all.front(), "three_deep.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QStringList asNobody = {"--reuid=nobody", "--regid=nogroup", "--clear-groups",
                                      test::gilscopeBinary()};
        RunResult r =
            runProgram("setpriv", asNobody + QStringList{"dump", QString::number(target.pid())});
        QVERIFY2(r.exitCode != -1 &&
                     !r.err.contains("Permission denied: '" + test::gilscopeBinary()),
                 qPrintable(describe(r)));
        QCOMPARE(r.exitCode, 5);
        QVERIFY2(r.err.contains("belongs to user 'root'") && r.err.contains("CAP_SYS_PTRACE") &&
                     r.err.contains("sudo"),
                 qPrintable(describe(r)));
        r = runProgram("setpriv", asNobody + QStringList{"ps", "--json"});
        QCOMPARE(r.exitCode, 0);
        bool found = false;
        for (const QJsonValue v : QJsonDocument::fromJson(r.out.toUtf8()).array()) {
            const QJsonObject p = v.toObject();
            if (p["pid"].toInteger() != target.pid()) continue;
            found = true;
            QCOMPARE(p["can_attach"].toBool(), false);
            QVERIFY2(p["reason"].toString().contains("CAP_SYS_PTRACE"), qPrintable(describe(r)));
        }
        QVERIFY2(found, qPrintable("root's target missing from nobody's ps:\n" + r.out));
    }
};

QTEST_GUILESS_MAIN(TestRemoteCli)
#include "test_remote_cli.moc"
