#include "core/snapshot/source_lines.h"

#include "core/analysis/line_heat.h"
#include "core/heatmap/source_text.h"
#include "core/target/attached_process.h"

#include <string_view>

namespace gilscope {

namespace {

std::vector<std::string> splitLines(const std::string& bytes) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= bytes.size()) {
        size_t end = bytes.find('\n', start);
        if (end == std::string::npos) end = bytes.size();
        std::string_view l(bytes.data() + start, end - start);
        while (!l.empty() && (l.back() == '\r' || l.back() == ' ' || l.back() == '\t'))
            l.remove_suffix(1);
        const size_t indent = l.find_first_not_of(" \t");
        out.emplace_back(indent == std::string_view::npos ? std::string_view() : l.substr(indent));
        start = end + 1;
    }
    return out;
}

} // namespace

SourceLines::SourceLines(std::shared_ptr<const target::AttachedProcess> door)
    : door_(std::move(door)) {
}

SourceLines::Line SourceLines::at(const std::string& file, int line) {
    if (line <= 0) return {};
    auto it = files_.find(file);
    if (it == files_.end()) {
        File f;
        const heatmap::SourceText src = heatmap::readSource(file, door_.get());
        if (src.ok) {
            f.lines = splitLines(src.bytes);
            const auto started = door_ ? door_->startTime() : std::nullopt;
            f.changed = started && src.modified && *src.modified > *started;
        } else if (isSourceFile(file)) {
            f.note = src.why;
        }
        it = files_.emplace(file, std::move(f)).first;
    }
    const File& f = it->second;
    if (!f.note.empty()) return {{}, false, f.note};
    if (size_t(line) > f.lines.size()) return {};
    return {f.lines[size_t(line) - 1], f.changed, {}};
}

} // namespace gilscope
