#include "core/control/control_commands.h"

namespace gilscope::control {

namespace {

// What follows a command's word, without its leading spaces.
std::string_view argument(std::string_view command, size_t wordLength) {
    std::string_view rest = command.substr(wordLength);
    while (!rest.empty() && rest.front() == ' ')
        rest.remove_prefix(1);
    return rest;
}

} // namespace

Reply answer(std::string_view command, const ControlTarget& target) {
    if (command == "enable") {
        target.setEnabled(true);
        return {"ok"};
    }
    if (command == "disable") {
        target.setEnabled(false);
        return {"ok"};
    }
    if (command == "ping") return {"ok"};
    if (command == "status") // Python's spelling of the boolean, as CPython replies
        return {target.enabled() ? "ok enabled=True" : "ok enabled=False"};
    if (command == "mark" || command.starts_with("mark ")) {
        if (!target.mark) return {"err not_supported"};
        const std::string_view text = argument(command, 4);
        if (text.empty()) return {"err mark_needs_text"};
        target.mark(std::string(text));
        return {"ok"};
    }
    if (command == "snapshot" || command.starts_with("snapshot ")) {
        if (!target.snapshot) return {"err not_supported"};
        auto json = target.snapshot(argument(command, 8));
        if (!json) return {"err snapshot_failed: " + json.error().message};
        if (json->size() > kMaxSnapshotBytes) return {"err snapshot_too_large"};
        return {"ok " + *json};
    }
    if (command == "flush") {
        if (!target.flush) return {"err not_supported"};
        auto said = target.flush();
        if (!said) return {"err flush_failed: " + said.error().message};
        return {"ok " + *said};
    }
    if (command == "quit") {
        target.quit();
        return {"ok", true};
    }
    return {"err unknown_command"};
}

} // namespace gilscope::control
