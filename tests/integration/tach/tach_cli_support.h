#pragma once

#include "tests/support/run_gilscope.h"

#include <QString>

#include <nlohmann/json.hpp>

#include <filesystem>

namespace gilscope::test {

// Parses a Gecko profile and drops what depends on the exporting machine: meta
// startTime/abi/oscpu/platform/CPU counts and the threads' pid.
nlohmann::json normalizedGecko(const std::filesystem::path& path);

// CPython closes intervals still open at export at the last collect() time even when
// that is before their start (see docs/gecko-differences.md); gilscope closes them at
// their start. Applies gilscope's rule to a CPython profile so contents can be compared.
void clampBackwardIntervals(nlohmann::json& profile);

// Empty when the two profiles are equal; else the first few JSON-patch operations that
// turn `expected` into `got`, with the values on both sides, so a failure says where.
QString geckoDifference(const nlohmann::json& expected, const nlohmann::json& got);

// ../shared/tools/check-gecko on a file: empty when it passes, else its report.
QString checkGecko(const std::filesystem::path& path);

} // namespace gilscope::test
