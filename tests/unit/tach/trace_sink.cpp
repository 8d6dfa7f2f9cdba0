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

namespace {
std::string sha256_16(const std::string& text) {
    const QByteArray digest =
        QCryptographicHash::hash(QByteArray::fromStdString(text), QCryptographicHash::Sha256)
            .toHex();
    return digest.left(16).toStdString();
}
} // namespace

std::string framesSha256_16(const nlohmann::json& frames) {
    return sha256_16(frames.dump(-1, ' ', /*ensure_ascii=*/true));
}

void TraceSink::addBatch(const SampleBatch& batch) {
    // A replay repeats its frames (and often its stacks) many times: each frame is made
    // JSON once and each stack hashed once, which keeps the sanitizer runs of the big
    // fixtures short. A compact array's text is its items' texts joined by commas.
    auto [at, fresh] =
        stacks_.try_emplace(std::vector<FrameId>(batch.frames.begin(), batch.frames.end()));
    StackJson& stack = at->second;
    if (fresh) {
        std::string text = "[";
        nlohmann::json frames = nlohmann::json::array();
        for (FrameId id : batch.frames) {
            auto [frame, made] = frames_.try_emplace(id);
            if (made) {
                frame->second.json = frameJson(*registry_, id);
                frame->second.text = frame->second.json.dump(-1, ' ', /*ensure_ascii=*/true);
            }
            if (text.size() > 1) text += ',';
            text += frame->second.text;
            if (!hashed_) frames.push_back(frame->second.json);
        }
        text += ']';
        if (hashed_) {
            stack.sha256_16 = sha256_16(text);
            stack.leaf =
                batch.frames.empty() ? nlohmann::json(nullptr) : frames_[batch.frames[0]].json;
        } else {
            stack.frames = std::move(frames);
        }
    }
    nlohmann::json call;
    call["interpreter_id"] = batch.interpreterId;
    call["thread_id"] = batch.threadId;
    call["status"] = batch.status;
    call["timestamps_us"] =
        std::vector<uint64_t>(batch.timestampsUs.begin(), batch.timestampsUs.end());
    if (hashed_) {
        call["depth"] = batch.frames.size();
        call["frames_sha256_16"] = stack.sha256_16;
        call["leaf"] = stack.leaf;
    } else {
        call["frames"] = stack.frames;
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
