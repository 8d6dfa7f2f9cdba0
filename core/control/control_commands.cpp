#include "core/control/control_commands.h"

namespace gilscope::control {

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
        std::string_view text = command.substr(4);
        while (!text.empty() && text.front() == ' ')
            text.remove_prefix(1);
        if (text.empty() || !target.mark) return {"err mark_needs_text"};
        target.mark(std::string(text));
        return {"ok"};
    }
    if (command == "snapshot" && target.snapshot) {
        auto json = target.snapshot();
        if (!json) return {"err snapshot_failed: " + json.error().message};
        if (json->size() > kMaxSnapshotBytes) return {"err snapshot_too_large"};
        return {"ok " + *json};
    }
    if (command == "flush" && target.flush) {
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
