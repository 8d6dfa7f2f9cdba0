#pragma once

#include "tests/support/ci_requirements.h"

#include <QString>

namespace gilscope::test {

// The checkout these tests were built from (its targets, scripts, resources).
QString sourceDir();

// ../shared beside the checkout (specs, CPython-written fixtures, checkers). A user's
// clone has none: tests that need it skip with a message; in CI they fail.
QString sharedDir();
bool haveSharedDir();
QString fixturePath(const QString& relative); // relative to shared/fixtures

// Path of the gilscope executable under test (set by CTest as GILSCOPE_BIN).
QString gilscopeBinary();

} // namespace gilscope::test

#define GILSCOPE_REQUIRE_SHARED()                                                                  \
    do {                                                                                           \
        GILSCOPE_REQUIRE(::gilscope::test::haveSharedDir(),                                        \
                         "../shared is not beside this checkout; CI provides it");                 \
    } while (0)
