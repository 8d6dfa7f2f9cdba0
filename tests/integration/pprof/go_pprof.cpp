#include "go_pprof.h"

#include <QRegularExpression>
#include <QStandardPaths>

namespace gilscope::test {

QString goPprofMissing() {
    if (QStandardPaths::findExecutable("go").isEmpty())
        return "`go` is not on PATH (Debian's golang-go; scripts/install-deps.sh installs it)";
    return {};
}

RunResult runGoPprof(const QStringList& args) {
    return runProgram("go", QStringList{"tool", "pprof"} + args);
}

QMap<QString, TopRow> goPprofTop(const QString& file, const QStringList& extra, bool* ok,
                                 QString* error) {
    *ok = false;
    const RunResult r = runGoPprof(
        QStringList{"-top", "-sample_index=samples", "-nodefraction=0", "-nodecount=100000"} +
        extra + QStringList{file});
    QMap<QString, TopRow> rows;
    if (r.exitCode != 0) {
        *error = describe(r);
        return rows;
    }
    //       flat  flat%   sum%        cum   cum%
    //        912 74.63% 74.63%        912 74.63%  busy
    static const QRegularExpression row(
        "^\\s*(\\d+)\\s+[-\\d.]+%\\s+[-\\d.]+%\\s+(\\d+)\\s+[-\\d.]+%\\s+(.+?)\\s*$");
    bool header = false;
    for (const QString& line : r.out.split('\n')) {
        if (line.contains("flat%")) {
            header = true;
            continue;
        }
        if (!header || line.trimmed().isEmpty()) continue;
        const auto m = row.match(line);
        if (!m.hasMatch()) {
            *error = "unexpected -top line: " + line;
            return rows;
        }
        TopRow& t = rows[m.captured(3)];
        t.flat += m.captured(1).toDouble();
        t.cum += m.captured(2).toDouble();
    }
    *ok = header;
    if (!header) *error = "no -top table: " + describe(r);
    return rows;
}

QList<RawSample> goPprofRawSamples(const QString& file, const QStringList& extra, bool* ok,
                                   QString* error) {
    *ok = false;
    QList<RawSample> samples;
    const RunResult r = runGoPprof(QStringList{"-raw"} + extra + QStringList{file});
    if (r.exitCode != 0) {
        *error = describe(r);
        return samples;
    }
    // Samples:
    // samples/count cpu/nanoseconds
    //          3    3000000: 1 2 3
    //                 thread_id:[123] thread_state:[gil]
    // Locations
    static const QRegularExpression value("^\\s*(\\d+)\\s+\\d+: [\\d ]*$");
    static const QRegularExpression label("([A-Za-z_]+):\\[([^\\]]*)\\]");
    enum { Before, Header, Samples } at = Before;
    for (const QString& line : r.out.split('\n')) {
        if (at == Before) {
            if (line == "Samples:") at = Header;
            continue;
        }
        if (at == Header) {
            at = Samples;
            continue;
        }
        if (line.startsWith("Locations")) {
            *ok = true;
            return samples;
        }
        if (const auto m = value.match(line); m.hasMatch()) {
            samples.append(RawSample{m.captured(1).toLongLong(), {}});
        } else if (!samples.isEmpty() && line.startsWith("                ")) {
            for (auto it = label.globalMatch(line); it.hasNext();) {
                const auto l = it.next();
                samples.last().labels[l.captured(1)] = l.captured(2);
            }
        } else {
            *error = "unexpected -raw line: " + line;
            return samples;
        }
    }
    *error = "no Locations section after the samples: " + describe(r);
    return samples;
}

} // namespace gilscope::test
