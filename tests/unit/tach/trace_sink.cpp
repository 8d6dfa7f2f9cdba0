#include "trace_sink.h"

#include <QByteArray>
#include <QCryptographicHash>

#include <fstream>

namespace gilscope::test {

nlohmann::json frameJson(const FrameRegistry& registry, FrameId id) {
    const FrameInfo& f = registry.frame(id);
    nlohmann::json location = nullptr;
    if (f.line != -1) location = nlohmann::json::array({f.line, f.endLine, f.column, f.endColumn});
    nlohmann::json opcode = nullptr;
    if (f.opcode != 255) opcode = f.opcode;
    return nlohmann::json::array(
        {registry.string(f.filename), location, registry.string(f.funcname), opcode});
}

std::string framesSha256_16(const nlohmann::json& frames) {
    const std::string text = frames.dump(-1, ' ', /*ensure_ascii=*/true);
    const QByteArray digest =
        QCryptographicHash::hash(QByteArray::fromStdString(text), QCryptographicHash::Sha256)
            .toHex();
    return digest.left(16).toStdString();
}

void TraceSink::addBatch(const SampleBatch& batch) {
    nlohmann::json frames = nlohmann::json::array();
    for (FrameId id : batch.frames)
        frames.push_back(frameJson(*registry_, id));
    nlohmann::json call;
    call["interpreter_id"] = batch.interpreterId;
    call["thread_id"] = batch.threadId;
    call["status"] = batch.status;
    call["timestamps_us"] =
        std::vector<uint64_t>(batch.timestampsUs.begin(), batch.timestampsUs.end());
    if (hashed_) {
        call["depth"] = frames.size();
        call["frames_sha256_16"] = framesSha256_16(frames);
        call["leaf"] = frames.empty() ? nlohmann::json(nullptr) : frames[0];
    } else {
        call["frames"] = std::move(frames);
    }
    calls.push_back(std::move(call));
    samples += batch.timestampsUs.size();
}

std::vector<nlohmann::json> readJsonLines(const std::filesystem::path& path) {
    std::vector<nlohmann::json> lines;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        if (!line.empty()) lines.push_back(nlohmann::json::parse(line));
    }
    return lines;
}

nlohmann::json readJson(const std::filesystem::path& path) {
    std::ifstream in(path);
    return nlohmann::json::parse(in);
}

} // namespace gilscope::test
