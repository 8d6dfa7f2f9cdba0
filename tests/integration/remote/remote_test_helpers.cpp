#include "tests/integration/remote/remote_test_helpers.h"

namespace gilscope::test {

bool readOnce(StackSource& src, Snapshot& out, QString* error, int attempts) {
    QString last;
    for (int i = 0; i < attempts; ++i) {
        switch (src.read(out.threads, out.count)) {
        case ReadOutcome::Ok:
            return true;
        case ReadOutcome::ProcessEnded:
            *error = QStringLiteral("process ended");
            return false;
        case ReadOutcome::Error:
            last = QString::fromStdString(src.why());
            break;
        }
    }
    *error = QStringLiteral("no good read in %1 attempts; last error: %2").arg(attempts).arg(last);
    return false;
}

QStringList functionNames(const StackSource& src, const ThreadStack& t) {
    auto& reg = const_cast<StackSource&>(src).registry();
    QStringList names;
    for (FrameId id : t.frames)
        names << QString::fromStdString(reg.string(reg.frame(id).funcname));
    return names;
}

QString frameText(const StackSource& src, FrameId id) {
    auto& reg = const_cast<StackSource&>(src).registry();
    const FrameInfo& f = reg.frame(id);
    return QStringLiteral("%1 (%2:%3)")
        .arg(QString::fromStdString(reg.string(f.funcname)),
             QString::fromStdString(reg.string(f.filename)))
        .arg(f.line);
}

} // namespace gilscope::test
