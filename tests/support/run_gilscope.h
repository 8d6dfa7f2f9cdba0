#pragma once

// Runs the gilscope executable under test (or any program) to completion and captures
// what a user would see: exit code, stdout, stderr, wall time.

#include <QByteArray>
#include <QByteArrayList>
#include <QJsonObject>
#include <QProcess>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

namespace gilscope::test {

// How long a run may take; then it is killed and RunResult::finished is false.
constexpr int kRunTimeoutMs = 60000;

struct RunResult {
    bool started = false;
    bool finished = false;         // false: it did not start, or was killed at the timeout
    int exitCode = -1;             // -1 unless it exited normally
    QByteArray outBytes, errBytes; // exactly what it wrote, for checks on the bytes
    QString out, err;              // the same decoded as UTF-8
    double wallSec = 0;
};

RunResult runProgram(const QString& program, const QStringList& args, const QString& workDir = {},
                     int timeoutMs = kRunTimeoutMs);
// QProcess passes QString arguments as UTF-8, so a byte that is not UTF-8 cannot reach
// the program that way; these arguments are passed as the exact bytes given.
RunResult runProgramBytes(const QByteArray& program, const QByteArrayList& args,
                          const QString& workDir = {}, int timeoutMs = kRunTimeoutMs);

RunResult runGilscope(const QStringList& args, const QString& workDir = {},
                      int timeoutMs = kRunTimeoutMs);
RunResult runGilscopeBytes(const QByteArrayList& args, const QString& workDir = {},
                           int timeoutMs = kRunTimeoutMs);

// Starts gilscope and returns at once (for Ctrl-C tests); null if it did not start.
// MergedChannels lets waitForStdoutLine() see what it prints on stderr too.
std::unique_ptr<QProcess>
startGilscope(const QStringList& args, const QString& workDir = {},
              QProcess::ProcessChannelMode channels = QProcess::SeparateChannels);

// Reads a started process's stdout until a line satisfies `done` (true), the process ends
// or `timeoutMs` passes (false). What was read is appended to `seen`. Tests wait for what
// the program says, never for a fixed time.
bool waitForStdoutLine(QProcess& p, const std::function<bool(const QString&)>& done, QString* seen,
                       int timeoutMs = kRunTimeoutMs);

// Starts `gilscope ARGS` (which must attach to a target gated on `gate`, a file it waits
// for before its timed run) with --realtime-stats, and makes the gate once gilscope samples.
// A loaded machine that attaches late can then neither miss the run nor find the target
// gone. Null when gilscope did not start, or ended or never sampled (what it printed is in
// `seen`, its stdout and stderr merged).
std::unique_ptr<QProcess> startGatedGilscope(const QStringList& args, const QString& workDir,
                                             const QString& gate, QString* seen);
// The same, then waits for gilscope to end with the target. out holds what it printed.
RunResult runGatedGilscope(const QStringList& args, const QString& workDir, const QString& gate);

// The share of its ticks a recording's sampler missed, as it printed it ("missed N samples
// ... (P%)"); 0 when it printed none. A sampler starved of a core misses ticks, and the
// shares of what ran meanwhile drift: the truth tests judge a recording only below a bound.
double samplerMissedPct(const RunResult& r);

// "exit 3\nstdout: ...\nstderr: ..." (and whether it timed out) for assertion messages.
QString describe(const RunResult& r);

// `gilscope report BIN --json -l 0 EXTRA...`'s object; empty, with the run described in
// *error, when the command fails.
QJsonObject reportJson(const QString& bin, const QStringList& extra, QString* error);
// The "total" of `function`'s row in a report's JSON (0 without one).
double rowTotal(const QJsonObject& report, const QString& function);

// Whether bytes are well-formed UTF-8 (checked by Qt's decoder, not gilscope's code).
bool isUtf8(const QByteArray& bytes);

} // namespace gilscope::test
