#pragma once

// What the .bin unit tests share besides TraceSink: CPython-written fixture paths,
// whole-file reads, and JSON comparisons that print both sides.

#include <QTest>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <string>

namespace gilscope::test {

// ../shared/fixtures/tach/NAME (tests using it start with GILSCOPE_REQUIRE_SHARED).
std::filesystem::path tachFixture(const std::string& name);

std::string readFileBytes(const std::filesystem::path& path);

} // namespace gilscope::test

// QCOMPARE cannot print nlohmann::json; compare and show both dumps.
#define JCOMPARE(actual, expected)                                                                 \
    do {                                                                                           \
        const nlohmann::json a_ = (actual), e_ = (expected);                                       \
        QVERIFY2(a_ == e_, (#actual ": got " + a_.dump() + ", want " + e_.dump()).c_str());        \
    } while (0)
