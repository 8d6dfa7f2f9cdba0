#include "core/snapshot/source_lines.h"

#include "core/heatmap/source_text.h"
#include "core/remote/proc_files.h"

#include <string_view>
#include <sys/stat.h>

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

SourceLines::SourceLines(int pid) : pid_(pid), started_(remote::readStartTime(pid)) {
}

SourceLines::Line SourceLines::at(const std::string& file, int line) {
    if (line <= 0) return {};
    auto it = files_.find(file);
    if (it == files_.end()) {
        File f;
        const heatmap::SourceText src = heatmap::readSource(file, pid_);
        if (src.ok) {
            f.lines = splitLines(src.bytes);
            struct stat st {};
            f.changed = started_ && ::stat(src.readFrom.c_str(), &st) == 0 &&
                        double(st.st_mtime) > *started_;
        }
        it = files_.emplace(file, std::move(f)).first;
    }
    const File& f = it->second;
    if (size_t(line) > f.lines.size()) return {};
    return {f.lines[size_t(line) - 1], f.changed};
}

} // namespace gilscope
