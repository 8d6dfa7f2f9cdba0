#include "tach_cli_support.h"

#include "tests/support/shared_dir.h"

#include <algorithm>
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

QString geckoDifference(const nlohmann::json& expected, const nlohmann::json& got) {
    if (expected == got) return {};
    const nlohmann::json patch = nlohmann::json::diff(expected, got);
    QString out = QString::number(patch.size()) + " differences; the first:";
    const size_t shown = std::min<size_t>(patch.size(), 8);
    for (size_t i = 0; i < shown; ++i) {
        const auto& op = patch[i];
        const std::string path = op.value("path", "");
        const nlohmann::json::json_pointer ptr(path);
        std::string was = expected.contains(ptr) ? expected.at(ptr).dump() : "(absent)";
        std::string now = op.contains("value") ? op["value"].dump() : "(removed)";
        for (std::string* s : {&was, &now})
            if (s->size() > 200) *s = s->substr(0, 200) + "...";
        out += QString::fromStdString("\n  " + op.value("op", "") + " " + path + ": expected " +
                                      was + ", got " + now);
    }
    return out;
}

QString checkGecko(const std::filesystem::path& path) {
    const QString tool = sharedDir() + "/tools/check-gecko";
    const RunResult r =
        runProgram("python3", {tool, QString::fromStdString(path.string())}, {}, 120000);
    if (r.exitCode == 0) return {};
    return "check-gecko failed (" + QString::number(r.exitCode) + "): " + r.out + r.err;
}

} // namespace gilscope::test
