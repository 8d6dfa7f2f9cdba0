#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace gilscope::target {
class AttachedProcess;
}

namespace gilscope {

// Each frame's source line, read through the target's door (in its root, as its user may
// read it), once per file; "changed" when the file is newer than the process, so the line
// shown may not be the one running.
class SourceLines {
public:
    explicit SourceLines(std::shared_ptr<const target::AttachedProcess> door);
    struct Line {
        std::string text; // stripped of its indentation; empty: none to show
        bool changed = false;
        std::string note; // when a source file is not shown: why ("source not shown: ...")
    };
    Line at(const std::string& file, int line);

private:
    struct File {
        std::vector<std::string> lines;
        bool changed = false;
        std::string note;
    };
    std::shared_ptr<const target::AttachedProcess> door_;
    std::map<std::string, File> files_;
};

} // namespace gilscope
