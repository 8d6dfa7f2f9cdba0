#include "core/collapsed/collapsed_writer.h"

#include "core/util/atomic_file.h"
#include "core/util/file_name.h"

#include <algorithm>
#include <utility>

namespace gilscope {

namespace {

void appendSafe(std::string& out, const std::string& s) {
    for (char c : s) {
        if (c == ';')
            out += ',';
        else if (c == '\n' || c == '\r')
            out += ' ';
        else
            out += c;
    }
}

std::string frameText(const FrameRegistry& registry, FrameId id) {
    const FrameInfo& f = registry.frame(id);
    std::string out;
    appendSafe(out, registry.string(f.funcname));
    out += " (";
    const std::string& file = registry.string(f.filename);
    // A C function names its library as flame graphs do: "qsort (libc.so.6)".
    appendSafe(out, f.native ? std::string(fileName(file)) : file);
    if (f.line != kNoLocation) out += ":" + std::to_string(f.line);
    out += ')';
    return out;
}

} // namespace

size_t CollapsedWriter::StackHash::operator()(const std::vector<FrameId>& v) const noexcept {
    size_t h = 1469598103934665603ull; // FNV-1a over the ids
    for (FrameId id : v) {
        h ^= id.value();
        h *= 1099511628211ull;
    }
    return h;
}

void CollapsedWriter::begin(const FrameRegistry& registry, const RecordingInfo&) {
    registry_ = &registry;
}

void CollapsedWriter::addBatch(const SampleBatch& batch) {
    if (batch.frames.empty() || batch.timestampsUs.empty()) return;
    const uint64_t n = batch.timestampsUs.size();
    total_ += n;
    LastStack& last = lastStacks_[batch.threadId];
    if (last.count && std::equal(last.frames.begin(), last.frames.end(), batch.frames.begin(),
                                 batch.frames.end())) {
        *last.count += n;
        return;
    }
    scratch_.assign(batch.frames.begin(), batch.frames.end());
    auto it = counts_.find(scratch_);
    if (it != counts_.end())
        it->second += n;
    else
        it = counts_.emplace(scratch_, n).first;
    last.frames = scratch_;
    last.count = &it->second;
}

std::string CollapsedWriter::render() const {
    if (!registry_) return {};
    IdVector<FrameId, std::string> frameCache;
    frameCache.resize(registry_->frameCount());
    std::vector<std::pair<std::string, uint64_t>> lines;
    lines.reserve(counts_.size());
    for (const auto& [stack, count] : counts_) {
        std::string line;
        // Stored leaf-first; the format wants root-first.
        for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
            std::string& text = frameCache.cover(*it);
            if (text.empty()) text = frameText(*registry_, *it);
            if (!line.empty()) line += ';';
            line += text;
        }
        lines.emplace_back(std::move(line), count);
    }
    // Frames that differ only in what the format does not show (columns, opcode)
    // render alike: merge them into one line.
    std::sort(lines.begin(), lines.end());
    size_t kept = 0;
    for (size_t i = 0; i < lines.size(); ++i) {
        if (kept > 0 && lines[kept - 1].first == lines[i].first)
            lines[kept - 1].second += lines[i].second;
        else if (kept++ != i)
            lines[kept - 1] = std::move(lines[i]);
    }
    lines.resize(kept);
    std::sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    std::string out;
    for (const auto& [text, count] : lines) {
        out += text;
        out += ' ';
        out += std::to_string(count);
        out += '\n';
    }
    return out;
}

Status CollapsedWriter::writeTo(const std::filesystem::path& path) {
    auto file = AtomicFile::create(path);
    if (!file) return file.error();
    return writeTo(std::move(file.value()));
}

Status CollapsedWriter::writeTo(AtomicFile file) {
    if (Status s = file.write(render()); !s) return s;
    return file.commit();
}

} // namespace gilscope
