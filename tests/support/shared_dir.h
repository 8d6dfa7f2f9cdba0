#pragma once

#include <QString>

namespace gilscope::test {

// ../shared beside the checkout (specs, CPython-written fixtures, checkers). A user's
// clone has none: tests that need it QSKIP with a message; CI has it.
QString sharedDir();
bool haveSharedDir();
QString fixturePath(const QString& relative); // relative to shared/fixtures

// Path of the gilscope executable under test (set by CTest as GILSCOPE_BIN).
QString gilscopeBinary();

} // namespace gilscope::test

#define GILSCOPE_REQUIRE_SHARED()                                                                  \
    do {                                                                                           \
        if (!::gilscope::test::haveSharedDir())                                                    \
            QSKIP("../shared is not beside this checkout; CI provides it");                        \
    } while (0)
