#include "tach_cli_support.h"

#include "tests/support/shared_dir.h"

#include <fstream>

namespace gilscope::test {

nlohmann::json normalizedGecko(const std::filesystem::path& path) {
    std::ifstream in(path);
    nlohmann::json j = nlohmann::json::parse(in);
    for (const char* k : {"startTime", "abi", "oscpu", "platform", "physicalCPUs", "logicalCPUs"})
        j["meta"].erase(k);
    for (auto& t : j["threads"])
        t.erase("pid");
    return j;
}

void clampBackwardIntervals(nlohmann::json& profile) {
    for (auto& t : profile["threads"]) {
        auto& m = t["markers"];
        for (size_t i = 0; i < m["startTime"].size(); ++i) {
            const double start = m["startTime"][i], end = m["endTime"][i];
            if (end < start) {
                m["endTime"][i] = start;
                m["data"][i]["duration"] = 0.0;
            }
        }
    }
}

QString checkGecko(const std::filesystem::path& path) {
    const QString tool = sharedDir() + "/tools/check-gecko";
    const RunResult r =
        runProgram("python3", {tool, QString::fromStdString(path.string())}, {}, 120000);
    if (r.exitCode == 0) return {};
    return "check-gecko failed (" + QString::number(r.exitCode) + "): " + r.out + r.err;
}

} // namespace gilscope::test
