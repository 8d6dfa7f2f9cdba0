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
    if (command == "quit") {
        target.quit();
        return {"ok", true};
    }
    return {"err unknown_command"};
}

} // namespace gilscope::control
