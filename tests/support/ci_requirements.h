#pragma once

// What the suite needs to be complete. Outside CI a test without it skips and says why;
// in CI (CI=true) it fails, so a suite cannot go green by skipping (a missing
// interpreter, ../shared, the sid chroot, root, dbus-daemon).

#include <QString>
#include <QStringList>
#include <QTest>

namespace gilscope::test {

// CI=true (or 1, yes) in the environment.
bool inCi();

// The supported interpreter matrix that is absent here: pyenv 3.8-3.13, Debian's static
// python3.11, the sid chroot's 3.14 and 3.15. Empty when all are present.
QStringList missingInterpreters();

} // namespace gilscope::test

// Skips with `why` outside CI; fails with it in CI.
#define GILSCOPE_REQUIRE(condition, why)                                                           \
    do {                                                                                           \
        if (!(condition)) {                                                                        \
            const QByteArray why_ = QString(why).toUtf8();                                         \
            if (::gilscope::test::inCi())                                                          \
                QFAIL(qPrintable("CI needs this: " + QString::fromUtf8(why_)));                    \
            QSKIP(why_.constData());                                                               \
        }                                                                                          \
    } while (0)

// In CI, every interpreter of the supported matrix must be there.
#define GILSCOPE_REQUIRE_MATRIX()                                                                  \
    do {                                                                                           \
        const QStringList missing_ = ::gilscope::test::missingInterpreters();                      \
        if (!missing_.isEmpty() && ::gilscope::test::inCi())                                       \
            QFAIL(qPrintable("CI needs every supported interpreter; missing: " +                   \
                             missing_.join(QStringLiteral(", "))));                                \
    } while (0)
