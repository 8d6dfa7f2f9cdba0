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
    // Free-threaded: 3.13t builds from Debian's source; 3.14t/3.15t not yet (their source
    // is not served), so they are not required.
    bool have313t = false;
    for (const Interpreter& in : findFreeThreadedInterpreters())
        have313t = have313t || in.minor == 13;
    if (!have313t) missing << QStringLiteral("3.13t (sid chroot, scripts/setup-python-chroot.sh)");
    return missing;
}

} // namespace gilscope::test
