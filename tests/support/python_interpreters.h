#pragma once

// Real Python interpreters for tests: discovery (pyenv 3.8-3.13, Debian's static
// python3.11, the sid chroot's 3.14/3.15) and TargetProcess, which runs one of the
// scripts in tests/targets under one of them and owns the process until the end of
// the test.

#include "tests/support/ci_requirements.h"

#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QProcess>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <memory>
#include <optional>

namespace gilscope::test {

struct Interpreter {
    QString label; // "3.11.7 (pyenv)", "3.11.2 (Debian static)", "3.15.2 (sid chroot)"
    int major = 0;
    int minor = 0;
    QString executable; // as the process sees it: for chroot ones, the path inside the chroot
    bool inChroot = false;
    QString hostExecutable; // the same binary as seen from the host (== executable unless chroot)
    bool freeThreaded = false; // python3.13t, built in the chroot (no GIL)
};

// Every interpreter present whose minor version is in [minMinor, maxMinor] (3.x only),
// ordered by version. Discovery runs once per test process and is cached. Only GIL
// builds: the free-threaded ones come from findFreeThreadedInterpreters().
QList<Interpreter> findInterpreters(int minMinor = 8, int maxMinor = 99);

// The free-threaded interpreters scripts/setup-python-chroot.sh built in the chroot
// (its .gilscope-ft-stamp: "python3.13t 3.13.15" per line), each checked to run without
// a GIL. 3.13t is in CI's required matrix (missingInterpreters()).
QList<Interpreter> findFreeThreadedInterpreters();
// Both: for checks that hold with a GIL or without one.
QList<Interpreter> findEveryBuild();

// The sid chroot (GILSCOPE_CHROOT_DIR or /var/cache/gilscope/sid-python), and whether
// scripts/setup-python-chroot.sh has completed there.
QString chrootDir();
bool chrootReady();

// tests/targets in the source tree.
QString targetsDir();
QString targetScript(const QString& name);

// Prints one line per interpreter ("tested: 3.11.7 (pyenv)  /root/.pyenv/...") so the
// test log records what was covered.
void printTestedInterpreters(const QList<Interpreter>& interpreters);

// For data-driven tests: adds a column "interpreter" and one row per interpreter,
// named by its label. Fetch with QFETCH(gilscope::test::Interpreter, interpreter).
void addInterpreterRows(const QList<Interpreter>& interpreters);

struct TargetOptions {
    QStringList args;     // passed to the script
    QStringList bindDirs; // host dirs that must be visible inside a chroot (e.g. a temp dir)
    int readyTimeoutMs = 30000;
    // Runs the script as this user and group, with no supplementary groups (setpriv, or
    // chroot --userspec): a target that is not root.
    std::optional<uint32_t> runAsUid = std::nullopt;
    // A host interpreter in a root of its own: an empty directory where the system's
    // /usr and /etc, the interpreter's prefix, the targets and bindDirs are bind-mounted
    // (the sid chroot's interpreters have one already).
    bool ownRoot = false;
};

// A timed target gated on a file (it starts its run once the file exists, so a test can
// start recording first): the script gets `args` and then the gate's path, which lies in
// `dir` and is visible inside a chroot too. runGatedGilscope makes the gate.
TargetOptions gatedTarget(const QTemporaryDir& dir, QStringList args);
QString gatePath(const QTemporaryDir& dir);

// A Python script running under one interpreter. pid() is the Python process itself
// (for chroot interpreters the unshare/sh/chroot chain execs into it), and a host pid.
// Scripts print "READY <pid> [json]" on stdout once they are in the state the test
// needs; start() waits for that line. The destructor terminates and reaps the process;
// a crashing test cannot leak it either (it gets SIGKILL when the test dies).
class TargetProcess {
public:
    TargetProcess(Interpreter interpreter, QString script, TargetOptions options = {});
    ~TargetProcess();
    TargetProcess(const TargetProcess&) = delete;
    TargetProcess& operator=(const TargetProcess&) = delete;

    // Starts the script and waits for READY. On failure returns false and error() says
    // what happened, including the script's stderr.
    bool start();
    QString error() const { return error_; }

    qint64 pid() const { return pid_; }
    QJsonObject readyInfo() const { return readyInfo_; } // the JSON after "READY <pid>"
    const Interpreter& interpreter() const { return interpreter_; }

    // The next stdout line, or nullopt on timeout / end of output.
    std::optional<QString> readLine(int timeoutMs = 10000);
    // The JSON object of the next line, which must start with `prefix` ("TIMES "): what a
    // timed target measured of itself once its run is over. nullopt (and error()) if not.
    std::optional<QJsonObject> readTimedJson(const QString& prefix, int timeoutMs = 60000);

    bool isRunning() const;
    // Waits for the process to exit on its own; returns its exit code, or nullopt on
    // timeout or when it was killed by a signal.
    std::optional<int> waitForExit(int timeoutMs = 60000);
    // SIGTERM, then SIGKILL if needed; reaps. Safe to call twice.
    void terminate();

private:
    QStringList commandLine(QString* program) const;
    bool fail(const QString& what);

    Interpreter interpreter_;
    QString script_;
    TargetOptions options_;
    std::unique_ptr<QProcess> process_;
    qint64 pid_ = 0;
    QJsonObject readyInfo_;
    QString error_;
    QStringList chrootMountPoints_; // mount points we created inside the chroot
    QString ownRoot_;               // TargetOptions::ownRoot: the root made for it
    QStringList ownRootEntries_;    // what was made in it, removed (only if empty) at the end
};

} // namespace gilscope::test

Q_DECLARE_METATYPE(gilscope::test::Interpreter)

#define GILSCOPE_REQUIRE_INTERPRETERS(list)                                                        \
    do {                                                                                           \
        GILSCOPE_REQUIRE_MATRIX();                                                                 \
        if ((list).isEmpty())                                                                      \
            QFAIL("no Python interpreter found: install pyenv versions 3.8-3.13, "                 \
                  "python3.11, or run scripts/setup-python-chroot.sh");                            \
    } while (0)

// The initTestCase of a suite that runs targets: logs which interpreters it covers and
// fails when there is none.
#define GILSCOPE_PRINT_AND_REQUIRE_INTERPRETERS()                                                  \
    do {                                                                                           \
        const auto all_ = ::gilscope::test::findInterpreters();                                    \
        ::gilscope::test::printTestedInterpreters(all_);                                           \
        GILSCOPE_REQUIRE_INTERPRETERS(all_);                                                       \
    } while (0)
