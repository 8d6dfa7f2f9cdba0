#include "tests/support/python_interpreters.h"
#include "tests/support/shared_dir.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QTest>
#include <QTextStream>

#include <algorithm>
#include <csignal>
#include <sys/prctl.h>

namespace gilscope::test {
namespace {

QString pyenvRoot() {
    const QByteArray env = qgetenv("PYENV_ROOT");
    if (!env.isEmpty()) return QString::fromLocal8Bit(env);
    return QDir::homePath() + QStringLiteral("/.pyenv");
}

// "3.11.7" -> (3, 11); false when the text is not a 3.x version.
bool parseVersion(const QString& version, int* major, int* minor) {
    static const QRegularExpression re(QStringLiteral("^(\\d+)\\.(\\d+)"));
    const auto m = re.match(version);
    if (!m.hasMatch()) return false;
    *major = m.captured(1).toInt();
    *minor = m.captured(2).toInt();
    return *major == 3;
}

// Asks the interpreter itself: directory names and stamps can lie, the binary cannot.
QString runVersionQuery(const QString& executable) {
    QProcess p;
    p.start(executable, {QStringLiteral("-c"),
                         QStringLiteral("import platform; print(platform.python_version())")});
    if (!p.waitForFinished(60000) || p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0)
        return {};
    return QString::fromUtf8(p.readAllStandardOutput()).trimmed();
}

void addPyenv(QList<Interpreter>& out) {
    const QDir versions(pyenvRoot() + QStringLiteral("/versions"));
    for (const QString& name : versions.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        Interpreter in;
        if (!parseVersion(name, &in.major, &in.minor)) continue;
        in.executable = versions.filePath(name) + QStringLiteral("/bin/python3.%1").arg(in.minor);
        if (!QFileInfo(in.executable).isExecutable()) continue;
        in.hostExecutable = in.executable;
        in.label = name + QStringLiteral(" (pyenv)");
        out.append(in);
    }
}

void addDebianStatic(QList<Interpreter>& out) {
    const QString exe = QStringLiteral("/usr/bin/python3.11");
    if (!QFileInfo(exe).isExecutable()) return;
    Interpreter in;
    const QString version = runVersionQuery(exe);
    if (!parseVersion(version, &in.major, &in.minor)) return;
    in.executable = in.hostExecutable = exe;
    in.label = version + QStringLiteral(" (Debian static)");
    out.append(in);
}

// The stamp written by scripts/setup-python-chroot.sh: "python3.15 3.15.2" per line.
void addChroot(QList<Interpreter>& out) {
    if (!chrootReady()) return;
    QFile stamp(chrootDir() + QStringLiteral("/.gilscope-stamp"));
    if (!stamp.open(QIODevice::ReadOnly | QIODevice::Text)) return;
    QTextStream lines(&stamp);
    while (!lines.atEnd()) {
        const QStringList parts = lines.readLine().split(QLatin1Char(' '), Qt::SkipEmptyParts);
        if (parts.size() != 2) continue;
        Interpreter in;
        if (!parseVersion(parts[1], &in.major, &in.minor)) continue;
        in.executable = QStringLiteral("/usr/bin/") + parts[0];
        in.hostExecutable = chrootDir() + in.executable;
        if (!QFileInfo(in.hostExecutable).isExecutable()) continue;
        in.inChroot = true;
        in.label = parts[1] + QStringLiteral(" (sid chroot)");
        out.append(in);
    }
}

// The free-threaded builds' stamp: "python3.13t 3.13.15" per line.
QList<Interpreter> chrootFreeThreaded() {
    QList<Interpreter> out;
    if (!chrootReady()) return out;
    QFile stamp(chrootDir() + QStringLiteral("/.gilscope-ft-stamp"));
    if (!stamp.open(QIODevice::ReadOnly | QIODevice::Text)) return out;
    QTextStream lines(&stamp);
    while (!lines.atEnd()) {
        const QStringList parts = lines.readLine().split(QLatin1Char(' '), Qt::SkipEmptyParts);
        if (parts.size() != 2 || !parts[0].endsWith(QLatin1Char('t'))) continue;
        Interpreter in;
        if (!parseVersion(parts[1], &in.major, &in.minor)) continue;
        in.executable = QStringLiteral("/usr/local/bin/") + parts[0];
        in.hostExecutable =
            chrootDir() + QStringLiteral("/opt/") + parts[0] + QStringLiteral("/bin/") + parts[0];
        if (!QFileInfo(in.hostExecutable).isExecutable()) continue;
        in.inChroot = true;
        in.freeThreaded = true;
        in.label = parts[1] + QStringLiteral("t (sid chroot)");
        out.append(in);
    }
    return out;
}

const QList<Interpreter>& allInterpreters() {
    static const QList<Interpreter> all = [] {
        QList<Interpreter> out;
        addPyenv(out);
        addDebianStatic(out);
        addChroot(out);
        std::stable_sort(out.begin(), out.end(), [](const Interpreter& a, const Interpreter& b) {
            return std::pair(a.major, a.minor) < std::pair(b.major, b.minor);
        });
        return out;
    }();
    return all;
}

QString shellQuote(const QString& s) {
    QString q = s;
    q.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + q + QLatin1Char('\'');
}

} // namespace

QList<Interpreter> findInterpreters(int minMinor, int maxMinor) {
    QList<Interpreter> out;
    for (const Interpreter& in : allInterpreters())
        if (in.minor >= minMinor && in.minor <= maxMinor) out.append(in);
    return out;
}

QList<Interpreter> findFreeThreadedInterpreters() {
    static const QList<Interpreter> all = chrootFreeThreaded();
    return all;
}

TargetOptions gatedTarget(const QTemporaryDir& dir, QStringList args) {
    TargetOptions options;
    options.args = std::move(args) << gatePath(dir);
    options.bindDirs = {dir.path()};
    return options;
}

QString gatePath(const QTemporaryDir& dir) {
    return dir.filePath(QStringLiteral("go"));
}

QList<Interpreter> findEveryBuild() {
    return findInterpreters() + findFreeThreadedInterpreters();
}

QString chrootDir() {
    const QByteArray env = qgetenv("GILSCOPE_CHROOT_DIR");
    if (!env.isEmpty()) return QString::fromLocal8Bit(env);
    return QStringLiteral("/var/cache/gilscope/sid-python");
}

bool chrootReady() {
    return QFileInfo::exists(chrootDir() + QStringLiteral("/.gilscope-stamp"));
}

QString targetsDir() {
    return sourceDir() + QStringLiteral("/tests/targets");
}

QString targetScript(const QString& name) {
    return targetsDir() + QLatin1Char('/') + name;
}

void printTestedInterpreters(const QList<Interpreter>& interpreters) {
    for (const Interpreter& in : interpreters)
        qInfo("tested: %-24s %s", qPrintable(in.label), qPrintable(in.hostExecutable));
    if (!chrootReady())
        qInfo("note: no sid chroot at %s (3.14/3.15 untested); run scripts/setup-python-chroot.sh",
              qPrintable(chrootDir()));
}

void addInterpreterRows(const QList<Interpreter>& interpreters) {
    QTest::addColumn<Interpreter>("interpreter");
    for (const Interpreter& in : interpreters)
        QTest::newRow(qPrintable(in.label)) << in;
}

TargetProcess::TargetProcess(Interpreter interpreter, QString script, TargetOptions options)
    : interpreter_(std::move(interpreter)), script_(std::move(script)),
      options_(std::move(options)) {
    if (QFileInfo(script_).isRelative()) script_ = targetScript(script_);
}

TargetProcess::~TargetProcess() {
    terminate();
    // The mount namespace died with the process; remove the empty mount points we made.
    // rmdir only, never a recursive removal: a mount still in place must not be emptied.
    for (auto it = chrootMountPoints_.crbegin(); it != chrootMountPoints_.crend(); ++it)
        QDir().rmdir(*it);
    for (auto it = ownRootEntries_.crbegin(); it != ownRootEntries_.crend(); ++it)
        if (QFileInfo(*it).isSymLink())
            QFile::remove(*it);
        else
            QDir().rmdir(*it);
}

namespace {

// The interpreter's installation: /root/.pyenv/versions/3.12.1 for .../bin/python3.12.
QString prefixOf(const QString& executable) {
    QDir bin = QFileInfo(executable).absoluteDir();
    bin.cdUp();
    return bin.absolutePath();
}

// System directories a host interpreter needs in a root of its own.
const QStringList kSystemDirs = {QStringLiteral("/usr"), QStringLiteral("/etc")};
const QStringList kSystemLinks = {QStringLiteral("/bin"), QStringLiteral("/lib"),
                                  QStringLiteral("/lib64"), QStringLiteral("/sbin")};

} // namespace

// Host interpreters run directly (through setpriv for runAsUid). Chroot ones, and host
// ones with ownRoot, run as
//   unshare --mount sh -c 'mount proc; bind-mount dirs; exec chroot DIR python ...'
// unshare, sh, setpriv and chroot exec rather than fork, so the pid we start is the
// Python process.
QStringList TargetProcess::commandLine(QString* program) const {
    QStringList python = {interpreter_.executable, QStringLiteral("-u"), script_};
    python += options_.args;
    const QString uid = options_.runAsUid ? QString::number(*options_.runAsUid) : QString();
    if (!interpreter_.inChroot && !options_.ownRoot) {
        if (!uid.isEmpty()) {
            *program = QStringLiteral("setpriv");
            return QStringList{QStringLiteral("--reuid=") + uid, QStringLiteral("--regid=") + uid,
                               QStringLiteral("--clear-groups")} +
                   python;
        }
        *program = python.takeFirst();
        return python;
    }
    const QString root = interpreter_.inChroot ? chrootDir() : ownRoot_;
    QStringList binds = options_.bindDirs;
    binds.prepend(targetsDir());
    if (!interpreter_.inChroot)
        binds = kSystemDirs + QStringList{prefixOf(interpreter_.executable)} + binds;
    QString sh = QStringLiteral("set -e; mount -t proc proc %1/proc; ").arg(shellQuote(root));
    for (const QString& dir : binds) {
        const QString abs = QFileInfo(dir).absoluteFilePath();
        sh += QStringLiteral("mount --bind %1 %2; ").arg(shellQuote(abs), shellQuote(root + abs));
    }
    sh += QStringLiteral("exec chroot");
    if (!uid.isEmpty()) sh += QStringLiteral(" --userspec=%1:%1").arg(uid);
    sh += QLatin1Char(' ') + shellQuote(root);
    for (const QString& arg : python)
        sh += QLatin1Char(' ') + shellQuote(arg);
    *program = QStringLiteral("unshare");
    return {QStringLiteral("--mount"), QStringLiteral("--propagation"),
            QStringLiteral("private"), QStringLiteral("sh"),
            QStringLiteral("-c"),      sh};
}

bool TargetProcess::fail(const QString& what) {
    QString stderrText;
    if (process_) {
        process_->waitForFinished(200);
        stderrText = QString::fromUtf8(process_->readAllStandardError()).trimmed();
    }
    error_ = QStringLiteral("%1 under %2: %3")
                 .arg(QFileInfo(script_).fileName(), interpreter_.label, what);
    if (!stderrText.isEmpty()) error_ += QStringLiteral("\nstderr:\n") + stderrText;
    terminate();
    return false;
}

bool TargetProcess::start() {
    if (process_) return fail(QStringLiteral("start() called twice"));
    if (!QFileInfo::exists(script_)) return fail(QStringLiteral("no such script ") + script_);
    if (options_.ownRoot && !interpreter_.inChroot) {
        // An empty root: mount points for the system's directories, links as the system
        // has them (merged /usr), /proc. Entries are remembered and removed at the end.
        ownRoot_ = QDir::tempPath() + QStringLiteral("/gilscope-root-") +
                   QString::number(QCoreApplication::applicationPid()) + QLatin1Char('-') +
                   QString::number(quintptr(this), 16);
        const auto make = [&](const QString& inside) {
            QStringList missing;
            for (QString at = inside; !QFileInfo::exists(at) && at != ownRoot_;
                 at = QFileInfo(at).absolutePath())
                missing.prepend(at);
            if (!QDir().mkpath(inside)) return false;
            ownRootEntries_ += missing;
            return true;
        };
        if (!QDir().mkpath(ownRoot_)) return fail(QStringLiteral("cannot create ") + ownRoot_);
        ownRootEntries_ += ownRoot_;
        QStringList dirs = kSystemDirs + QStringList{prefixOf(interpreter_.executable),
                                                     targetsDir(), QStringLiteral("/proc")};
        for (const QString& d : options_.bindDirs)
            dirs += QFileInfo(d).absoluteFilePath();
        for (const QString& d : dirs)
            if (!make(ownRoot_ + d)) return fail(QStringLiteral("cannot create ") + ownRoot_ + d);
        for (const QString& link : kSystemLinks) {
            const QFileInfo host(link);
            if (!host.isSymLink()) continue;
            if (!QFile::link(host.symLinkTarget(), ownRoot_ + link))
                return fail(QStringLiteral("cannot link ") + ownRoot_ + link);
            ownRootEntries_ += ownRoot_ + link;
        }
    }
    if (interpreter_.inChroot) {
        // Mount points must exist inside the chroot; remember the ones we create.
        QStringList binds = options_.bindDirs;
        binds.prepend(targetsDir());
        for (const QString& dir : binds) {
            const QString inside = chrootDir() + QFileInfo(dir).absoluteFilePath();
            if (QFileInfo(inside).isDir()) continue;
            if (!QDir().mkpath(inside))
                return fail(QStringLiteral("cannot create mount point ") + inside);
            // The targets dir stays (shared by concurrent tests); per-test dirs go.
            if (dir != targetsDir()) chrootMountPoints_.append(inside);
        }
    }
    QString program;
    const QStringList args = commandLine(&program);
    process_ = std::make_unique<QProcess>();
    process_->setProgram(program);
    process_->setArguments(args);
    // Dies with the test (SIGKILL) even if the test crashes; survives exec.
    process_->setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGKILL); });
    process_->start();
    if (!process_->waitForStarted(60000))
        return fail(QStringLiteral("cannot start %1: %2").arg(program, process_->errorString()));
    pid_ = process_->processId();

    while (true) {
        const auto line = readLine(options_.readyTimeoutMs);
        if (!line) {
            return fail(
                process_->state() == QProcess::NotRunning
                    ? QStringLiteral("exited (code %1) before printing READY")
                          .arg(process_->exitCode())
                    : QStringLiteral("no READY line within %1 ms").arg(options_.readyTimeoutMs));
        }
        if (!line->startsWith(QStringLiteral("READY "))) continue; // scripts may log first
        const QStringList parts = line->split(QLatin1Char(' '));
        if (parts.value(1).toLongLong() != pid_)
            return fail(QStringLiteral("READY reports pid %1 but we started pid %2: the launch "
                                       "chain forked instead of exec'ing")
                            .arg(parts.value(1))
                            .arg(pid_));
        const QString json = line->section(QLatin1Char(' '), 2);
        if (!json.isEmpty()) {
            QJsonParseError err;
            readyInfo_ = QJsonDocument::fromJson(json.toUtf8(), &err).object();
            if (err.error != QJsonParseError::NoError)
                return fail(QStringLiteral("bad READY json: ") + err.errorString());
        }
        return true;
    }
}

std::optional<QString> TargetProcess::readLine(int timeoutMs) {
    if (!process_) return std::nullopt;
    QElapsedTimer timer;
    timer.start();
    while (!process_->canReadLine()) {
        const qint64 left = timeoutMs - timer.elapsed();
        if (left <= 0) return std::nullopt;
        if (!process_->waitForReadyRead(int(left)) && !process_->canReadLine()) {
            if (process_->state() == QProcess::NotRunning) {
                // Output may remain after exit, but without a newline it is not a line.
                return std::nullopt;
            }
        }
    }
    return QString::fromUtf8(process_->readLine()).trimmed();
}

std::optional<QJsonObject> TargetProcess::readTimedJson(const QString& prefix, int timeoutMs) {
    const std::optional<QString> line = readLine(timeoutMs);
    if (!line || !line->startsWith(prefix)) {
        error_ = QStringLiteral("expected a line starting %1, got: %2")
                     .arg(prefix, line.value_or(QStringLiteral("(none)")));
        return std::nullopt;
    }
    QJsonParseError parse;
    const QJsonDocument doc = QJsonDocument::fromJson(line->mid(prefix.size()).toUtf8(), &parse);
    if (!doc.isObject()) {
        error_ = QStringLiteral("not a JSON object after %1: %2").arg(prefix, parse.errorString());
        return std::nullopt;
    }
    return doc.object();
}

bool TargetProcess::isRunning() const {
    return process_ && process_->state() != QProcess::NotRunning;
}

std::optional<int> TargetProcess::waitForExit(int timeoutMs) {
    if (!process_) return std::nullopt;
    if (process_->state() != QProcess::NotRunning && !process_->waitForFinished(timeoutMs))
        return std::nullopt;
    if (process_->exitStatus() != QProcess::NormalExit) return std::nullopt;
    return process_->exitCode();
}

void TargetProcess::terminate() {
    if (!process_ || process_->state() == QProcess::NotRunning) return;
    process_->terminate();
    if (!process_->waitForFinished(3000)) {
        process_->kill();
        process_->waitForFinished(3000);
    }
}

} // namespace gilscope::test
