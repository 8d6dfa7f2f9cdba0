#include "tests/support/split_recording.h"

#include "tests/support/run_gilscope.h"

#include <QDateTime>
#include <QFile>

#include <csignal>

namespace gilscope::test {

SplitRecording recordSplit(const Interpreter& interpreter, const QString& dir, const QString& name,
                           int heavyPct, double seconds, const QStringList& extra) {
    SplitRecording out;
    TargetOptions options;
    options.args = {QString::number(seconds + 2), QString::number(heavyPct)};
    TargetProcess target(interpreter, targetScript("heavy_light_split.py"), options);
    if (!target.start()) {
        out.error = target.error();
        return out;
    }
    out.bin = dir + "/" + name + ".bin";
    QStringList args{"attach", "--binary", "--rt-priority", "1", "-d", QString::number(seconds),
                     "-o",     out.bin};
    args << extra << QString::number(target.pid());
    const RunResult r = runGilscope(args, dir);
    if (r.exitCode != 0) {
        out.error = describe(r);
        return out;
    }
    const auto share = target.readLine(60000);
    if (!share || !share->startsWith("SHARE ")) {
        out.error = "the target did not report its split: " + share.value_or("(nothing)");
        return out;
    }
    out.heavyPct = share->mid(6).toDouble();
    return out;
}

GatedRun recordGated(const Interpreter& interpreter, const QString& dir, int heavyPct,
                     const QStringList& args) {
    GatedRun run;
    const QString gate = dir + "/go-" + QString::number(heavyPct) + "-" +
                         QString::number(QDateTime::currentMSecsSinceEpoch());
    TargetOptions options;
    options.args = {"3", QString::number(heavyPct), gate};
    options.bindDirs = {dir};
    TargetProcess target(interpreter, targetScript("heavy_light_split.py"), options);
    if (!target.start()) return {0, {}, target.error()};
    auto gilscope = startGatedGilscope(QStringList{"attach", "--rt-priority", "1"} + args +
                                           QStringList{QString::number(target.pid())},
                                       dir, gate, &run.output);
    if (!gilscope) return {0, run.output, "gilscope did not start sampling: " + run.output};
    const auto share = target.readLine(60000);
    if (!share || !share->startsWith("SHARE "))
        return {0, run.output, "the target did not report its split: " + share.value_or("")};
    run.heavyPct = share->mid(6).toDouble();
    // Ctrl-C while the target waits for the gate to go, then let it exit.
    ::kill(static_cast<pid_t>(gilscope->processId()), SIGINT);
    const bool ended = gilscope->waitForFinished(60000);
    QFile::remove(gate);
    if (!ended) return {0, run.output, "gilscope did not end"};
    run.output += QString::fromUtf8(gilscope->readAll());
    if (gilscope->exitStatus() != QProcess::NormalExit || gilscope->exitCode() != 0)
        run.error = "gilscope failed: " + run.output;
    return run;
}

} // namespace gilscope::test
