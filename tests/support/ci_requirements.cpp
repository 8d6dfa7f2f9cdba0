#include "tests/support/ci_requirements.h"

#include "tests/support/python_interpreters.h"

namespace gilscope::test {

bool inCi() {
    const QByteArray ci = qgetenv("CI").toLower();
    return ci == "true" || ci == "1" || ci == "yes";
}

QStringList missingInterpreters() {
    const QList<Interpreter> all = findInterpreters();
    const auto have = [&](int minor, const QString& kind) {
        for (const Interpreter& in : all)
            if (in.minor == minor && in.label.endsWith(kind)) return true;
        return false;
    };
    QStringList missing;
    for (int minor = 8; minor <= 13; ++minor)
        if (!have(minor, QStringLiteral("(pyenv)")))
            missing << QStringLiteral("3.%1 (pyenv)").arg(minor);
    if (!have(11, QStringLiteral("(Debian static)")))
        missing << QStringLiteral("3.11 (Debian static)");
    for (int minor : {14, 15})
        if (!have(minor, QStringLiteral("(sid chroot)")))
            missing << QStringLiteral("3.%1 (sid chroot)").arg(minor);
    return missing;
}

} // namespace gilscope::test
