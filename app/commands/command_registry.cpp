#include "app/commands/command_registry.h"

namespace gilscope::cli {

std::vector<Command>& commandRegistry() {
    static std::vector<Command> commands;
    return commands;
}

} // namespace gilscope::cli
