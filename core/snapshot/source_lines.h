#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace gilscope {

// Each frame's source line, read through the target's own filesystem (/proc/PID/root),
// once per file; "changed" when the file is newer than the process, so the line shown may
// not be the one running.
class SourceLines {
public:
    explicit SourceLines(int pid);
    struct Line {
        std::string text; // stripped of its indentation; empty: none to show
        bool changed = false;
    };
    Line at(const std::string& file, int line);

private:
    struct File {
        std::vector<std::string> lines;
        bool changed = false;
    };
    int pid_;
    std::optional<double> started_;
    std::map<std::string, File> files_;
};

} // namespace gilscope
