// What the shell gets: resources/completion/gilscope.bash in a real bash, over the gilscope
// under test (the commands and each command's options come from gilscope's own --help, a
// running Python target's PID is offered to attach and dump, --control offers its
// scheme), and the man page help2man made from the same help, every command in it.
#include "tests/support/ci_requirements.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"
#include "tests/support/shared_dir.h"

#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>
#include <QTest>

using namespace gilscope::test;

namespace {

QString completionScript() {
    return sourceDir() + QStringLiteral("/resources/completion/gilscope.bash");
}

// What bash offers for the command line `words` (the last one is being completed).
QStringList complete(const QStringList& words) {
    QString line = "source '" + completionScript() + "'; COMP_WORDS=(";
    for (const QString& w : words)
        line += " '" + w + "'";
    line += "); COMP_CWORD=" + QString::number(words.size() - 1) +
            "; _gilscope; printf '%s\\n' \"${COMPREPLY[@]}\"";
    QStringList env = QProcess::systemEnvironment();
    const QString dir = QFileInfo(gilscopeBinary()).absolutePath(); // `gilscope` on the PATH
    env.replaceInStrings(QRegularExpression("^PATH="), "PATH=" + dir + ":");
    QProcess bash;
    bash.setEnvironment(env);
    bash.start("bash", {"--norc", "-c", line});
    if (!bash.waitForFinished(60000)) return {"<bash did not finish>"};
    return QString::fromUtf8(bash.readAllStandardOutput()).split('\n', Qt::SkipEmptyParts);
}

} // namespace

class TestShellHelp : public QObject {
    Q_OBJECT
private slots:
    void commandsAndOptionsComeFromHelp() {
        QCOMPARE(complete({"gilscope", "at"}), QStringList{"attach"});
        const QStringList commands = complete({"gilscope", ""});
        for (const char* c : {"agent", "attach", "ctl", "diff", "dump", "info", "open", "ps",
                              "replay", "report", "run"})
            QVERIFY2(commands.contains(c), qPrintable(commands.join(' ')));
        QCOMPARE(complete({"gilscope", "dump", "--lo"}), QStringList{"--locals"});
        QCOMPARE(complete({"gilscope", "attach", "--native"}),
                 QStringList({"--native", "--native-stacks"}));
        QVERIFY(complete({"gilscope", "run", "--"}).contains("--python"));
        QCOMPARE(complete({"gilscope", "attach", "--control", ""}), QStringList{"unix:"});
    }

    void manPageHasEveryCommand() {
        QFile page(QString::fromLocal8Bit(qgetenv("GILSCOPE_MAN_PAGE"))); // from CTest
        GILSCOPE_REQUIRE(page.exists(),
                         "no man page: help2man is missing (scripts/install-deps.sh)");
        QVERIFY(page.open(QIODevice::ReadOnly));
        const QString roff = QString::fromUtf8(page.readAll());
        QVERIFY2(roff.contains(".TH GILSCOPE \"1\""), qPrintable(roff.left(300)));
        for (const QString& command : complete({"gilscope", ""})) {
            if (command.endsWith(".bin")) continue; // a recording in this folder
            QVERIFY2(roff.contains(".SS " + command + "\n"), qPrintable(command));
        }
        // Each command's options, as its --help says them, in roff (\- for an ASCII dash).
        QVERIFY(roff.contains("  \\-\\-native\\-stacks "));
        QVERIFY(roff.contains("  \\-\\-async\\-aware "));
        QVERIFY(!roff.contains("\nUsage: /")); // the build's path is not the program's name
    }

    void attachOffersPythonProcesses() {
        const QList<Interpreter> found = findInterpreters();
        GILSCOPE_REQUIRE(!found.isEmpty(), "no Python interpreter");
        TargetProcess target(found.first(), "deep30.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QString pid = QString::number(target.pid());
        for (const char* command : {"attach", "dump"}) {
            const QStringList offered = complete({"gilscope", command, pid.left(1)});
            QVERIFY2(offered.contains(pid), qPrintable(offered.join(' ')));
        }
    }
};

QTEST_GUILESS_MAIN(TestShellHelp)
#include "test_shell_help.moc"
