#pragma once

#include <QStringList>

#include <vector>

namespace gilscope::cli {

// A headless subcommand. `args` holds the subcommand name first, then its arguments,
// ready for CommandLine::parse().
struct Command {
    const char* name;
    const char* summary;
    int (*run)(const QStringList& args);
};

std::vector<Command>& commandRegistry();

struct CommandRegistration {
    explicit CommandRegistration(Command c) { commandRegistry().push_back(c); }
};

} // namespace gilscope::cli

#define GILSCOPE_REGISTER_COMMAND(ident, name, summary, fn)                                        \
    static const ::gilscope::cli::CommandRegistration ident##_registration {                       \
        ::gilscope::cli::Command {                                                                 \
            name, summary, fn                                                                      \
        }                                                                                          \
    }
