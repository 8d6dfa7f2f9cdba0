// Issue 47: a target cannot make gilscope show what the target itself could not read in its
// own root. Real Python processes run tests/targets/hostile_sources.py, whose code claims
// file names that lie: a symlink out of its root, ".." past it, a file only root may read
// (the target running as nobody), a FIFO, /dev/zero, a 1 GiB file, a file replaced by a
// symlink after the start; beside them an absolute symlink that stays inside the root and a
// plain file, which are the process's own and are shown. Every output that shows sources
// (dump as text and JSON, --heatmap, --flamegraph, the control socket's snapshot, the
// agent's) must hold none of the secret's bytes, say why a source is not shown, show the
// legitimate file, and end in its usual time.
//
// Targets: the sid chroot's interpreters (another root; as root, and one as nobody), a
// pyenv interpreter in a root of its own (bind-mounted), and Debian's static python3.11 on
// this machine as nobody. Needs root (chroot, setpriv).
#include "tests/support/ci_requirements.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

#include <sys/stat.h>
#include <unistd.h>

using namespace gilscope::test;

namespace {

constexpr uint32_t kNobody = 65534;
// Each command's usual time is a second or two; a hang (a FIFO opened for reading, a
// device read to its end) would blow far past this.
constexpr double kCommandSec = 30;

struct Case {
    Interpreter interpreter;
    bool asNobody = false;
    bool ownRoot = false;
    QString why; // for the row name
};

bool setMode(const QString& path, mode_t mode) {
    return ::chmod(QFile::encodeName(path).constData(), mode) == 0;
}

bool writeFile(const QString& path, const QByteArray& bytes, mode_t mode) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size()) return false;
    f.close();
    return setMode(path, mode);
}

} // namespace

Q_DECLARE_METATYPE(Case)

class TestHostileTargets : public QObject {
    Q_OBJECT

    QByteArray secret_;
    QTemporaryDir secretDir_; // on this machine only, never bound into a target's root
    QString secretFile_;

    // Every bytes of `text` that must not appear: the token, and its start (a half line).
    bool leaks(const QByteArray& text) const {
        return text.contains(secret_) || text.contains(secret_.left(12));
    }

    // Every file under `dir`, concatenated.
    static QByteArray allFiles(const QString& dir) {
        QByteArray all;
        const QDir d(dir);
        for (const QFileInfo& f :
             d.entryInfoList(QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot)) {
            if (f.isDir()) {
                all += allFiles(f.absoluteFilePath());
                continue;
            }
            QFile file(f.absoluteFilePath());
            if (file.open(QIODevice::ReadOnly)) all += file.readAll();
        }
        return all;
    }

private slots:
    void initTestCase() {
        GILSCOPE_REQUIRE(::geteuid() == 0, "needs root (chroot, setpriv and a root-only file)");
        GILSCOPE_REQUIRE(secretDir_.isValid(), "no temp dir");
        secret_ = "GILSCOPE-SECRET-" +
                  QByteArray::number(QRandomGenerator::global()->generate64(), 16) + "-never-shown";
        secretFile_ = secretDir_.filePath("secret.py");
        // Looks like a source file, line for line, so a leak would land under the frames.
        QByteArray text;
        for (int i = 1; i <= 8; ++i)
            text += secret_ + " line " + QByteArray::number(i) + "\n";
        QVERIFY(writeFile(secretFile_, text, 0600));
        QVERIFY(setMode(secretDir_.path(), 0700));
        printTestedInterpreters(findInterpreters());
    }

    void noSecretInAnyOutput_data() {
        QTest::addColumn<Case>("c");
        const QList<Interpreter> all = findInterpreters();
        bool nobodyInChroot = false, pyenvDone = false;
        for (const Interpreter& in : all) {
            if (in.inChroot) {
                QTest::newRow(qPrintable(in.label + " in its chroot, as root"))
                    << Case{in, false, false, "chroot"};
                if (!nobodyInChroot) {
                    QTest::newRow(qPrintable(in.label + " in its chroot, as nobody"))
                        << Case{in, true, false, "chroot nobody"};
                    nobodyInChroot = true;
                }
            } else if (in.label.contains("Debian static")) {
                QTest::newRow(qPrintable(in.label + " on this machine, as nobody"))
                    << Case{in, true, false, "nobody"};
            } else if (in.label.contains("pyenv") && in.minor >= 12 && !pyenvDone) {
                QTest::newRow(qPrintable(in.label + " in a bind-mounted root, as root"))
                    << Case{in, false, true, "own root"};
                pyenvDone = true;
            }
        }
        if (!nobodyInChroot || !pyenvDone)
            qInfo("note: some hostile-target rows are missing (no chroot or pyenv 3.12+ here)");
    }

    void noSecretInAnyOutput() {
        QFETCH(Case, c);
        QTemporaryDir dir; // bound into the target's root at the same path
        QVERIFY(dir.isValid());
        QVERIFY(setMode(dir.path(), 0755));
        const QString legit = dir.filePath("legit.py");
        QVERIFY(writeFile(legit,
                          "def spin():\n    LEGIT_LINE_2 = 2\n    LEGIT_LINE_3 = 3\n"
                          "    LEGIT_LINE_4 = 4\n",
                          0644));
        const auto link = [&](const QString& name, const QString& to) {
            const QString path = dir.filePath(name);
            return ::symlink(QFile::encodeName(to).constData(),
                             QFile::encodeName(path).constData()) == 0
                       ? path
                       : QString();
        };
        const QString escape = link("escape.py", secretFile_);    // out of the root (absolute)
        const QString inside = link("inside.py", legit);          // absolute, inside the root
        const QString climb = "/../../../../../.." + secretFile_; // ".." past the root
        const QString fifo = dir.filePath("fifo.py");
        QVERIFY(::mkfifo(QFile::encodeName(fifo).constData(), 0666) == 0);
        const QString huge = dir.filePath("huge.py");
        {
            QFile f(huge);
            QVERIFY(f.open(QIODevice::WriteOnly) && f.resize(qint64(1) << 30));
        }
        QVERIFY(setMode(huge, 0644));
        const QString replaced = dir.filePath("replaced.py");
        QVERIFY(writeFile(replaced, "def spin():\n    x = 2\n    x = 3\n    x = 4\n", 0644));
        QStringList names{escape, climb, inside, fifo, "/dev/zero", huge, replaced, legit};
        // A file only root may read: the process running as nobody must not get it shown.
        const QString rootOnly = dir.filePath("root_only.py");
        if (c.asNobody) {
            QFile s(secretFile_);
            QVERIFY(s.open(QIODevice::ReadOnly));
            QVERIFY(writeFile(rootOnly, s.readAll(), 0600));
            names << rootOnly;
        }
        QVERIFY(!escape.isEmpty() && !inside.isEmpty());

        TargetOptions options;
        options.args = names;
        options.bindDirs = {dir.path()};
        options.ownRoot = c.ownRoot;
        if (c.asNobody) options.runAsUid = kNobody;
        TargetProcess target(c.interpreter, "hostile_sources.py", options);
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QString pid = QString::number(target.pid());
        // After the start: the name the code carries now leads out of the root.
        QVERIFY(QFile::remove(replaced));
        QVERIFY(!link("replaced.py", secretFile_).isEmpty());

        const auto ran = [&](const RunResult& r, const char* what) {
            QVERIFY2(r.finished && r.exitCode == 0, qPrintable(QString(what) + ": " + describe(r)));
            QVERIFY2(r.wallSec < kCommandSec,
                     qPrintable(QString("%1 took %2 s").arg(what).arg(r.wallSec)));
            QVERIFY2(!leaks(r.outBytes) && !leaks(r.errBytes),
                     qPrintable(QString(what) + " printed the secret"));
        };

        // dump, as text: the legitimate file's line under its frame, a note for the others.
        const RunResult text = runGilscope({"dump", "-a", pid}, {}, 60000);
        ran(text, "dump");
        QVERIFY2(text.out.contains("LEGIT_LINE_"), qPrintable(text.out.left(3000)));
        QVERIFY2(text.out.contains("source not shown: " + fifo + " is not a regular file"),
                 qPrintable(text.out.left(3000)));
        // (A root of our own making has no /dev.)
        QVERIFY(text.out.contains("source not shown: /dev/zero is not a regular file") ||
                (c.ownRoot && text.out.contains("source not shown: /dev/zero does not exist")));
        QVERIFY(text.out.contains("source not shown: " + huge + " is larger than 8 MiB"));
        if (c.asNobody)
            QVERIFY2(text.out.contains("source not shown: " + rootOnly +
                                       " is not readable by the process's user"),
                     qPrintable(text.out.left(4000)));
        // dump --json: the same, as source_note.
        const RunResult json = runGilscope({"dump", "-a", "--json", pid}, {}, 60000);
        ran(json, "dump --json");
        int shown = 0, notes = 0;
        for (const QJsonValue& t : QJsonDocument::fromJson(json.outBytes)["threads"].toArray())
            for (const QJsonValue& f : t["frames"].toArray()) {
                if (f["source"].toString().contains("LEGIT_LINE_")) ++shown;
                if (f["source_note"].toString().startsWith("source not shown: ")) ++notes;
            }
        QVERIFY2(shown >= 2, qPrintable(json.out.left(3000))); // legit.py and inside.py
        QVERIFY2(notes >= 5, qPrintable(json.out.left(3000)));

        // --heatmap: whole files are embedded; the legitimate one is there.
        const QString heatmap = dir.filePath("heatmap");
        ran(runGilscope({"attach", "-a", "-d", "1", "--heatmap", "-o", heatmap, pid}, {}, 60000),
            "attach --heatmap");
        const QByteArray pages = allFiles(heatmap);
        QVERIFY(!leaks(pages));
        QVERIFY(pages.contains("LEGIT_LINE_2"));
        QVERIFY(pages.contains("Source not shown: "));
        // --flamegraph: names and lines only, and still none of the secret.
        const QString flame = dir.filePath("flame.html");
        ran(runGilscope({"attach", "-a", "-d", "1", "--flamegraph", "-o", flame, pid}, {}, 60000),
            "attach --flamegraph");
        QFile flameFile(flame);
        QVERIFY(flameFile.open(QIODevice::ReadOnly));
        QVERIFY(!leaks(flameFile.readAll()));

        // The control socket's snapshot, during a recording.
        const QString sock = dir.filePath("ctl.sock");
        auto recorder = startGilscope({"attach", "-a", "--control", "unix:" + sock, "--collapsed",
                                       "-o", dir.filePath("out.txt"), pid});
        QVERIFY(recorder);
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(sock), 30000);
        const RunResult snap = runGilscope({"ctl", sock, "snapshot", "quit"}, {}, 60000);
        ran(snap, "ctl snapshot");
        QVERIFY2(snap.out.startsWith("ok {") && snap.out.contains("LEGIT_LINE_") &&
                     snap.out.contains("source not shown: "),
                 qPrintable(snap.out.left(2000)));
        QVERIFY(recorder->waitForFinished(60000));
        QVERIFY(!leaks(recorder->readAll()));
    }

    // The agent's snapshot of a process it records goes through the same door.
    void agentSnapshotShowsNoSecret() {
        QList<Interpreter> chroot;
        for (const Interpreter& in : findInterpreters())
            if (in.inChroot) chroot << in;
        GILSCOPE_REQUIRE(!chroot.isEmpty(),
                         "no chroot interpreter (scripts/setup-python-chroot.sh)");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(setMode(dir.path(), 0755));
        const QString escape = dir.filePath("agent_escape.py");
        QVERIFY(::symlink(QFile::encodeName(secretFile_).constData(),
                          QFile::encodeName(escape).constData()) == 0);
        TargetOptions options;
        options.args = {escape};
        options.bindDirs = {dir.path()};
        TargetProcess target(chroot.last(), "hostile_sources.py", options);
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QString pid = QString::number(target.pid());
        const QString sock = dir.filePath("agent.sock");
        auto agent =
            startGilscope({"agent", "--push", "http://127.0.0.1:9", "--match", "agent_escape.py",
                           "--push-queue", dir.filePath("queue"), "--control", "unix:" + sock},
                          dir.path(), QProcess::MergedChannels);
        QVERIFY(agent);
        QString log;
        QVERIFY2(waitForStdoutLine(
                     *agent,
                     [&](const QString& line) { return line.contains("recording process " + pid); },
                     &log, 120000),
                 qPrintable(log));
        const RunResult snap = runGilscope({"ctl", sock, "snapshot " + pid, "quit"}, {}, 60000);
        QVERIFY2(snap.exitCode == 0, qPrintable(describe(snap)));
        QVERIFY2(snap.out.startsWith("ok {") &&
                     snap.out.contains("source not shown: " + escape + " does not exist"),
                 qPrintable(snap.out.left(2000)));
        QVERIFY(!leaks(snap.outBytes));
        QVERIFY(agent->waitForFinished(60000));
        QVERIFY(!leaks(agent->readAll()));
    }

    // A recorded process exits and a new one is forced onto its pid (ns_last_pid) before the
    // next sample, with the same memory layout (no ASLR for either): the recording ends as
    // "process exited" with what it had, and holds not one sample of the successor.
    void aPidTakenByAnotherProcessIsNeverRead() {
        QList<Interpreter> hosts;
        for (const Interpreter& in : findInterpreters())
            if (!in.inChroot) hosts << in;
        GILSCOPE_REQUIRE(!hosts.isEmpty(), "no host Python interpreter");
        const Interpreter& python = hosts.last();
        const auto spawn = [&](const QString& role) {
            auto p = std::make_unique<QProcess>();
            p->setProgram("setarch");
            p->setArguments({"-R", python.executable, "-u", targetScript("pid_reuse.py"), role});
            p->start();
            return p;
        };
        const auto ready = [](QProcess& p) {
            while (p.waitForReadyRead(30000) || p.canReadLine())
                if (p.readLine().startsWith("READY ")) return true;
            return false;
        };
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        // Other processes of the machine may take the pid first: a few tries.
        for (int attempt = 1; attempt <= 10; ++attempt) {
            auto first = spawn("first");
            QVERIFY(ready(*first));
            const qint64 pid = first->processId();
            const QString out = dir.filePath(QString("reuse-%1.txt").arg(attempt));
            // Two samples a second: the successor is running well before the next one.
            QString seen;
            auto recorder = startGatedGilscope(
                {"attach", "-r", "2", "--collapsed", "-o", out, QString::number(pid)}, {},
                dir.filePath("gate"), &seen);
            QVERIFY2(recorder, qPrintable(seen));
            first->kill(); // SIGKILL, reaped by waitForFinished: the pid is free
            QVERIFY(first->waitForFinished(30000));
            QFile last("/proc/sys/kernel/ns_last_pid");
            QVERIFY(last.open(QIODevice::WriteOnly));
            last.write(QByteArray::number(pid - 1));
            last.close();
            auto successor = spawn("successor");
            QVERIFY(successor->waitForStarted(30000));
            const bool samePid = successor->processId() == pid;
            QVERIFY(ready(*successor));
            QVERIFY(recorder->waitForFinished(60000));
            seen += QString::fromUtf8(recorder->readAll());
            successor->kill();
            successor->waitForFinished(30000);
            if (!samePid) continue; // another process took it: try again
            QCOMPARE(recorder->exitCode(), 0);
            QVERIFY2(seen.contains("has exited"), qPrintable(seen));
            QFile collapsed(out);
            QVERIFY(collapsed.open(QIODevice::ReadOnly));
            const QByteArray stacks = collapsed.readAll();
            QVERIFY2(stacks.contains("spin_first"), stacks.constData());
            QVERIFY2(!stacks.contains("spin_successor"), stacks.constData());
            qInfo("the successor got pid %lld at attempt %d", pid, attempt);
            return;
        }
        QSKIP("the pid was taken by another process at every try (a busy machine)");
    }
};

QTEST_GUILESS_MAIN(TestHostileTargets)
#include "test_hostile_targets.moc"
