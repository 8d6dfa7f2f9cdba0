// `gilscope ps` and `gilscope dump` as a user runs them: exit codes, messages, text and
// JSON output, another user's process, and command lines that are not UTF-8.
#include "core/util/temp_dir.h"
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

#include <algorithm>

using namespace gilscope;
using gilscope::test::describe;
using gilscope::test::Interpreter;
using gilscope::test::runGilscope;
using gilscope::test::runProgram;
using gilscope::test::RunResult;
using gilscope::test::TargetOptions;
using gilscope::test::TargetProcess;

namespace {

// What the text output must show for odd_names.py's names: the two invalid bytes as
// U+FFFD each, control characters escaped (docs/cli.md).
const QString kBadBytes = QString(2, QChar(0xFFFD));
const QString kOddArgsText = kBadBytes + QStringLiteral(R"( two\nlines a\ttab)");
const QString kOddFileText = QStringLiteral("odd_") + kBadBytes + QStringLiteral(R"(_\nname.py)");
// The same in JSON, where control characters are JSON escapes and come back decoded.
const QString kOddArgsJson = kBadBytes + QStringLiteral(" two\nlines a\ttab");
const QString kOddFileJson = QStringLiteral("odd_") + kBadBytes + QStringLiteral("_\nname.py");

// A literal's bytes, NULs included.
template <size_t N>
QByteArray bytes(const char (&literal)[N]) {
    return QByteArray(literal, N - 1);
}

// odd_names.py in a directory of its own, removed afterwards with what the script puts
// there (QTemporaryDir could not: that file's name is not UTF-8).
class OddNamesTarget {
public:
    // Starts the script under `interpreter` and checks that the kernel really holds the
    // bytes the tests are about (so they cannot pass against a tamer command line).
    bool start(const Interpreter& interpreter) {
        auto tmp = TempDir::create("test-odd-names");
        if (!tmp) return fail(QString::fromStdString(tmp.error().message));
        tmp_ = std::move(*tmp);
        dir_ = QString::fromStdString(tmp_.path().string());
        TargetOptions options;
        options.args = {dir_};
        options.bindDirs = {dir_};
        process_ = std::make_unique<TargetProcess>(interpreter, "odd_names.py", options);
        if (!process_->start()) return fail(process_->error());
        QFile cmdline(QStringLiteral("/proc/%1/cmdline").arg(process_->pid()));
        const QByteArray raw = cmdline.open(QIODevice::ReadOnly) ? cmdline.readAll() : QByteArray();
        if (!raw.endsWith(bytes("\0\xff\xfe\0two\nlines\0a\ttab\0")) ||
            !raw.contains(bytes("/odd_\xff\xfe_\nname.py\0")))
            return fail("unexpected command line: " + raw.toHex(' '));
        return true;
    }
    QString error() const { return error_; }
    const QString& dir() const { return dir_; }
    qint64 pid() const { return process_->pid(); }
    QJsonObject readyInfo() const { return process_->readyInfo(); }

private:
    bool fail(const QString& what) {
        error_ = what;
        return false;
    }

    TempDir tmp_; // declared first: removed after the process has been stopped
    QString dir_;
    std::unique_ptr<TargetProcess> process_;
    QString error_;
};

} // namespace

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

    // A newline, a tab and bytes that are not UTF-8 in a command line: the table keeps one
    // line per process, JSON stays valid UTF-8 with the process in it.
    void psShowsOddCommandLines_data() { test::addInterpreterRows(test::findInterpreters()); }
    void psShowsOddCommandLines() {
        QFETCH(Interpreter, interpreter);
        OddNamesTarget target;
        QVERIFY2(target.start(interpreter), qPrintable(target.error()));

        const RunResult text = runGilscope({"ps"});
        QVERIFY2(text.exitCode == 0, qPrintable(describe(text)));
        QVERIFY2(test::isUtf8(text.outBytes), text.outBytes.toHex(' ').constData());
        QStringList lines = text.out.split('\n');
        QCOMPARE(lines.takeLast(), QString()); // ends with a newline
        QVERIFY2(lines.takeFirst().startsWith("PID "), qPrintable(text.out));
        QString mine;
        for (const QString& line : lines) {
            if (line.trimmed().startsWith("why not: ")) continue;
            bool isPid = false;
            const qint64 pid = line.section(' ', 0, 0).toLongLong(&isPid);
            QVERIFY2(isPid, qPrintable("not a process line: '" + line + "' in\n" + text.out));
            if (pid != target.pid()) continue;
            QVERIFY2(mine.isEmpty(), qPrintable("listed twice:\n" + text.out));
            mine = line;
        }
        QVERIFY2(!mine.isEmpty(), qPrintable("the target is missing from\n" + text.out));
        QVERIFY2(mine.contains(kOddFileText + " " + kOddArgsText), qPrintable(mine));

        const RunResult json = runGilscope({"ps", "--json"});
        QVERIFY2(json.exitCode == 0, qPrintable(describe(json)));
        QVERIFY2(test::isUtf8(json.outBytes), json.outBytes.toHex(' ').constData());
        QJsonParseError err;
        const QJsonArray list = QJsonDocument::fromJson(json.outBytes, &err).array();
        QVERIFY2(err.error == QJsonParseError::NoError, qPrintable(err.errorString()));
        int found = 0;
        for (const QJsonValue v : list) {
            const QJsonObject p = v.toObject();
            if (p["pid"].toInteger() != target.pid()) continue;
            ++found;
            const QString commandLine = p["command_line"].toString();
            QVERIFY2(commandLine.contains(kOddFileJson + " " + kOddArgsJson),
                     qPrintable(commandLine));
        }
        QCOMPARE(found, 1);
    }

    // The leaf frame's file name has bytes that are not UTF-8 and a newline: dump shows it
    // on its frame's line (text) and as valid UTF-8 (JSON).
    void dumpShowsOddFileNames_data() { test::addInterpreterRows(test::findInterpreters()); }
    void dumpShowsOddFileNames() {
        QFETCH(Interpreter, interpreter);
        OddNamesTarget target;
        QVERIFY2(target.start(interpreter), qPrintable(target.error()));
        const int line = target.readyInfo()["line"].toInt();
        QVERIFY(line > 0);

        const RunResult text = runGilscope({"dump", QString::number(target.pid())});
        QVERIFY2(text.exitCode == 0, qPrintable(describe(text)));
        QVERIFY2(test::isUtf8(text.outBytes), text.outBytes.toHex(' ').constData());
        const QString leaf =
            QStringLiteral("    spin_odd (%1/%2:%3)").arg(target.dir(), kOddFileText).arg(line);
        QVERIFY2(text.out.contains(leaf + "\n"), qPrintable(leaf + " not in\n" + text.out));
        QVERIFY2(text.out.startsWith(QStringLiteral("Process %1: ").arg(target.pid())),
                 qPrintable(text.out));
        QVERIFY2(text.out.section('\n', 0, 0).endsWith(kOddArgsText), qPrintable(text.out));
        // Every line is one of dump's own: nothing from a name starts a line.
        for (const QString& l : text.out.split('\n')) {
            const bool known = l.isEmpty() || l.startsWith("Process ") ||
                               l.startsWith("Python v") || l.startsWith("Thread ") ||
                               (l.startsWith("    ") && l.endsWith(')'));
            QVERIFY2(known, qPrintable("unexpected line '" + l + "' in\n" + text.out));
        }

        const RunResult json = runGilscope({"dump", "--json", QString::number(target.pid())});
        QVERIFY2(json.exitCode == 0, qPrintable(describe(json)));
        QVERIFY2(test::isUtf8(json.outBytes), json.outBytes.toHex(' ').constData());
        QJsonParseError err;
        const QJsonObject j = QJsonDocument::fromJson(json.outBytes, &err).object();
        QVERIFY2(err.error == QJsonParseError::NoError, qPrintable(err.errorString()));
        QCOMPARE(j["pid"].toInteger(), target.pid());
        QVERIFY2(j["command_line"].toString().endsWith(kOddArgsJson),
                 qPrintable(j["command_line"].toString()));
        const QJsonArray frames = j["threads"].toArray().first().toObject()["frames"].toArray();
        QVERIFY(!frames.isEmpty());
        const QJsonObject top = frames.first().toObject();
        QCOMPARE(top["function"].toString(), QString("spin_odd"));
        QCOMPARE(top["filename"].toString(), target.dir() + "/" + kOddFileJson);
        QCOMPARE(top["line"].toInt(), line);
    }

    // Item 10: a real Python whose program file is named to break version parsing
    // (python3.<11 digits>): ps lists it with its real version, dump reads it; before,
    // the name's minor overflowed std::stoi and the exception ended gilscope.
    void versionNamedToOverflow() {
        const auto all = test::findInterpreters(11, 11);
        auto it = std::find_if(all.begin(), all.end(), [](const Interpreter& in) {
            return in.label.contains(QStringLiteral("Debian static"));
        });
        GILSCOPE_REQUIRE(it != all.end(),
                         "needs Debian's static python3.11 (libpython in the program)");
        auto tmp = TempDir::create("test-version-name");
        QVERIFY(tmp);
        const QString renamed =
            QString::fromStdString(tmp->path().string()) + QStringLiteral("/python3.99999999999");
        QVERIFY(QFile::copy(it->hostExecutable, renamed));
        QVERIFY(QFile::setPermissions(renamed, QFile::ReadOwner | QFile::ExeOwner));
        Interpreter hostile = *it;
        hostile.label = QStringLiteral("3.11 named python3.99999999999");
        hostile.executable = hostile.hostExecutable = renamed;
        TargetProcess target(hostile, "mostly_idle.py");
        QVERIFY2(target.start(), qPrintable(target.error()));

        RunResult r = runGilscope({"ps", "--json"});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        bool found = false;
        for (const QJsonValue v : QJsonDocument::fromJson(r.out.toUtf8()).array()) {
            if (v["pid"].toInteger() != target.pid()) continue;
            found = true;
            QVERIFY2(v["version"].toString().startsWith(QStringLiteral("3.11.")),
                     qPrintable(v["version"].toString()));
        }
        QVERIFY2(found, qPrintable("the renamed python is missing from ps:\n" + r.out));
        r = runGilscope({"dump", QString::number(target.pid())});
        QVERIFY2(r.exitCode == 0 && r.out.contains(QStringLiteral("mostly_idle.py")),
                 qPrintable(describe(r)));
    }

    // gilscope running as `nobody` against a root-owned target: the message must say
    // why (another user, no CAP_SYS_PTRACE) and what to do (sudo / run as that user).
    void anotherUsersProcess() {
        GILSCOPE_REQUIRE(::geteuid() == 0,
                         "needs root to start a root-owned target and drop to nobody");
        GILSCOPE_REQUIRE(!QStandardPaths::findExecutable("setpriv").isEmpty(),
                         "setpriv is not installed");
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
