#include "tests/support/split_recording.h"

#include "tests/support/run_gilscope.h"

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

} // namespace gilscope::test
