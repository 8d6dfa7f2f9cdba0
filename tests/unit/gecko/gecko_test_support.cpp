#include "gecko_test_support.h"

#include "core/util/temp_dir.h"
#include "tests/support/shared_dir.h"

#include <QProcess>
#include <QString>
#include <algorithm>
#include <fstream>
#include <sstream>

namespace gilscope::test {

namespace fs = std::filesystem;

Result<std::vector<ReplayCall>> loadReplay(const fs::path& jsonl, FrameRegistry& registry) {
    std::ifstream in(jsonl);
    if (!in) return makeError(ErrorKind::Io, "cannot open " + jsonl.string());
    std::vector<ReplayCall> calls;
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        const auto j = nlohmann::json::parse(line);
        if (!j.contains("frames"))
            return makeError(ErrorKind::CorruptFile, "replay line without frames");
        ReplayCall c;
        c.threadId = j.at("thread_id").get<uint64_t>();
        c.interpreterId = j.at("interpreter_id").get<uint32_t>();
        c.status = j.at("status").get<uint32_t>();
        c.timestampsUs = j.at("timestamps_us").get<std::vector<uint64_t>>();
        for (const auto& f : j.at("frames")) {
            FrameInfo info;
            info.filename = registry.internString(f.at(0).get<std::string>());
            info.funcname = registry.internString(f.at(2).get<std::string>());
            if (!f.at(1).is_null()) {
                info.line = f.at(1).at(0).get<int32_t>();
                info.endLine = f.at(1).at(1).get<int32_t>();
                info.column = f.at(1).at(2).get<int32_t>();
                info.endColumn = f.at(1).at(3).get<int32_t>();
            }
            if (!f.at(3).is_null()) info.opcode = f.at(3).get<uint8_t>();
            c.frames.push_back(registry.internFrame(info));
        }
        calls.push_back(std::move(c));
    }
    return calls;
}

void feed(SampleSink& sink, const FrameRegistry& registry, const std::vector<ReplayCall>& calls,
          uint64_t intervalUs) {
    RecordingInfo info;
    info.sampleIntervalUs = intervalUs;
    sink.begin(registry, info);
    for (const auto& c : calls) {
        SampleBatch b;
        b.threadId = c.threadId;
        b.interpreterId = c.interpreterId;
        b.status = c.status;
        b.frames = c.frames;
        b.timestampsUs = c.timestampsUs;
        sink.addBatch(b);
    }
    sink.finish(RecordingSummary{});
}

GeckoOptions pinnedOptions() {
    GeckoOptions o;
    o.startTimeMs = 1000000.0;
    o.pid = "4242";
    o.abi = "x86_64";
    o.platform = "Linux";
    o.cpus = 8;
    return o;
}

std::string readFile(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

nlohmann::json readJson(const fs::path& path) {
    return nlohmann::json::parse(readFile(path));
}

CheckResult checkGecko(const fs::path& path) {
    QProcess p;
    p.setProcessChannelMode(QProcess::MergedChannels);
    p.start("python3", {sharedDir() + "/tools/check-gecko", QString::fromStdString(path.string())});
    CheckResult r;
    if (!p.waitForFinished(120000)) {
        r.output = "check-gecko did not finish";
        return r;
    }
    r.output = p.readAll().toStdString();
    r.ok = p.exitStatus() == QProcess::NormalExit && p.exitCode() == 0;
    return r;
}

std::vector<std::string> listDir(const fs::path& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir))
        names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

} // namespace gilscope::test

namespace gilscope::test {

Exported exportAndCheck(GeckoCollector& collector) {
    Exported e;
    auto dir = TempDir::create("gilscope-test");
    if (!dir.ok()) {
        e.status = dir.error();
        return e;
    }
    const fs::path out = dir->path() / "profile.json";
    e.status = collector.exportTo(out);
    if (!e.status.ok()) return e;
    e.profile = readJson(out);
    const CheckResult c = checkGecko(out);
    e.checkOk = c.ok;
    e.checkOutput = c.output;
    return e;
}

bool columnsMatchLength(const nlohmann::json& table, std::string* why) {
    const auto length = table.at("length").get<int64_t>();
    for (const auto& [key, value] : table.items()) {
        if (!value.is_array()) continue;
        if (static_cast<int64_t>(value.size()) != length) {
            if (why)
                *why = key + " has " + std::to_string(value.size()) + " items, length " +
                       std::to_string(length);
            return false;
        }
    }
    return true;
}

} // namespace gilscope::test
