#include "tests/support/run_gilscope.h"

#include "tests/support/shared_dir.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QStringDecoder>

#include <algorithm>
#include <unistd.h>
#include <vector>

namespace gilscope::test {

namespace {

// Starts an already configured QProcess and waits for it, killing it at the timeout.
RunResult runToCompletion(QProcess& p, const QString& workDir, int timeoutMs) {
    RunResult r;
    if (!workDir.isEmpty()) p.setWorkingDirectory(workDir);
    QElapsedTimer timer;
    timer.start();
    p.start();
    if (!p.waitForStarted(60000)) {
        r.err = QStringLiteral("cannot start %1: %2").arg(p.program(), p.errorString());
        r.errBytes = r.err.toUtf8();
        return r;
    }
    r.started = true;
    r.finished = p.waitForFinished(timeoutMs);
    r.wallSec = double(timer.elapsed()) / 1000.0;
    if (!r.finished) {
        p.kill();
        p.waitForFinished(5000);
    }
    r.exitCode = r.finished && p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1;
    r.outBytes = p.readAllStandardOutput();
    r.errBytes = p.readAllStandardError();
    r.out = QString::fromUtf8(r.outBytes);
    r.err = QString::fromUtf8(r.errBytes);
    return r;
}

} // namespace

RunResult runProgram(const QString& program, const QStringList& args, const QString& workDir,
                     int timeoutMs) {
    QProcess p;
    p.setProgram(program);
    p.setArguments(args);
    return runToCompletion(p, workDir, timeoutMs);
}

RunResult runProgramBytes(const QByteArray& program, const QByteArrayList& args,
                          const QString& workDir, int timeoutMs) {
    // The child execs the byte argv itself, after QProcess has set up its pipes and
    // working directory. Everything is built here: after fork only execv runs.
    QByteArrayList storage = args;
    storage.prepend(program);
    std::vector<char*> argv;
    for (QByteArray& a : storage)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    QProcess p;
    p.setProgram(QFile::decodeName(program));
    p.setChildProcessModifier([&argv] {
        ::execv(argv[0], argv.data());
        ::_exit(127);
    });
    return runToCompletion(p, workDir, timeoutMs);
}

RunResult runGilscope(const QStringList& args, const QString& workDir, int timeoutMs) {
    return runProgram(gilscopeBinary(), args, workDir, timeoutMs);
}

RunResult runGilscopeBytes(const QByteArrayList& args, const QString& workDir, int timeoutMs) {
    return runProgramBytes(QFile::encodeName(gilscopeBinary()), args, workDir, timeoutMs);
}

std::unique_ptr<QProcess> startGilscope(const QStringList& args, const QString& workDir,
                                        QProcess::ProcessChannelMode channels) {
    auto p = std::make_unique<QProcess>();
    p->setProcessChannelMode(channels);
    if (!workDir.isEmpty()) p->setWorkingDirectory(workDir);
    p->start(gilscopeBinary(), args);
    if (!p->waitForStarted(60000)) return nullptr;
    return p;
}

bool waitForStdoutLine(QProcess& p, const std::function<bool(const QString&)>& done, QString* seen,
                       int timeoutMs) {
    QElapsedTimer timer;
    timer.start();
    p.setReadChannel(QProcess::StandardOutput);
    for (;;) {
        while (p.canReadLine()) {
            const QString line = QString::fromUtf8(p.readLine()).trimmed();
            if (seen) *seen += line + QLatin1Char('\n');
            if (done(line)) return true;
        }
        const qint64 left = timeoutMs - timer.elapsed();
        if (left <= 0 || p.state() == QProcess::NotRunning) return false;
        p.waitForReadyRead(int(std::min<qint64>(left, 1000)));
    }
}

std::unique_ptr<QProcess> startGatedGilscope(const QStringList& args, const QString& workDir,
                                             const QString& gate, QString* seen) {
    auto p = startGilscope(QStringList{args.first(), "--realtime-stats"} + args.mid(1), workDir,
                           QProcess::MergedChannels);
    if (!p) return nullptr;
    QFile go(gate);
    if (!waitForStdoutLine(
            *p, [](const QString& l) { return l.contains("sampling stats"); }, seen) ||
        !go.open(QIODevice::WriteOnly)) {
        p->kill();
        p->waitForFinished();
        *seen += QString::fromUtf8(p->readAll()) + QStringLiteral("(gilscope never sampled)\n");
        return nullptr;
    }
    return p;
}

RunResult runGatedGilscope(const QStringList& args, const QString& workDir, const QString& gate) {
    RunResult r;
    QString seen;
    auto p = startGatedGilscope(args, workDir, gate, &seen);
    r.started = p != nullptr;
    if (p) {
        r.finished = p->waitForFinished(kRunTimeoutMs);
        if (!r.finished) {
            p->kill();
            p->waitForFinished();
        }
        seen += QString::fromUtf8(p->readAll());
        if (r.finished && p->exitStatus() == QProcess::NormalExit) r.exitCode = p->exitCode();
    }
    r.out = seen;
    r.outBytes = seen.toUtf8();
    return r;
}

QString describe(const RunResult& r) {
    QString state = QString::number(r.exitCode);
    if (!r.started)
        state += QStringLiteral(" (did not start)");
    else if (!r.finished)
        state += QStringLiteral(" (timed out, killed)");
    return QStringLiteral("exit %1\nstdout: %2\nstderr: %3").arg(state, r.out, r.err);
}

bool isUtf8(const QByteArray& bytes) {
    QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
    const QString text = decoder.decode(bytes); // decodes on conversion
    Q_UNUSED(text);
    return !decoder.hasError();
}

QJsonObject reportJson(const QString& bin, const QStringList& extra, QString* error) {
    QStringList args{"report", bin, "--json", "-l", "0"};
    args << extra;
    const RunResult r = runGilscope(args);
    if (r.exitCode != 0) {
        *error = describe(r);
        return {};
    }
    return QJsonDocument::fromJson(r.outBytes).object();
}

double samplerMissedPct(const RunResult& r) {
    static const QRegularExpression missed(
        QStringLiteral("missed [0-9]+ samples.*\\(([0-9.]+)%\\)"));
    const QRegularExpressionMatch m = missed.match(r.out + r.err);
    return m.hasMatch() ? m.captured(1).toDouble() : 0;
}

double rowTotal(const QJsonObject& report, const QString& function) {
    for (const QJsonValue& row : report["rows"].toArray())
        if (row["function"].toString() == function) return row["total"].toDouble();
    return 0;
}

} // namespace gilscope::test
