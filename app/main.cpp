// gilscope: with a subcommand it runs headless on QCoreApplication; without one it
// opens the GUI.
#include "app/commands/cli_arguments.h"
#include "app/commands/command_registry.h"
#include "core/common/error.h"
#include "core/util/atomic_file.h"
#include "core/util/temp_dir.h"

#include <QCoreApplication>
#include <QStringList>

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <memory>

#include <unistd.h>

#include <filesystem>
#include <system_error>

namespace {

void printUsage() {
    std::printf("Usage: gilscope [COMMAND] [OPTIONS]\n       gilscope [FILE.bin]\n\n"
                "With no command, gilscope opens its window (and FILE.bin in it).\n\n"
                "Commands:\n");
    auto commands = gilscope::cli::commandRegistry();
    std::sort(commands.begin(), commands.end(),
              [](const auto& a, const auto& b) { return std::strcmp(a.name, b.name) < 0; });
    for (const auto& c : commands)
        std::printf("  %-10s %s\n", c.name, c.summary);
    std::printf("\nRun 'gilscope COMMAND --help' for a command's options.\n");
}

// What a command printed on stdout is checked once it is done: a full disk or a
// failing device must not pass for success. (A write that failed earlier left the
// stream's error flag; errno then is the best account left of why.)
int checkedStdout(int code) {
    errno = 0;
    if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return code;
    const gilscope::Error e =
        gilscope::ioError(errno ? errno : EIO, "cannot write", "standard output");
    std::fprintf(stderr, "gilscope: %s\n", e.message.c_str());
    return code != 0 ? code : gilscope::exitCodeFor(e.kind);
}

#ifdef GILSCOPE_WITH_GUI
// The window is gilscope-window, beside this binary (app/window_main.cpp says why), run
// with the same arguments in this process.
int openWindow(char** argv) {
    std::error_code ec;
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
    const std::filesystem::path window = self.parent_path() / "gilscope-window";
    if (!ec) ::execv(window.c_str(), argv);
    std::fprintf(stderr, "gilscope: cannot start the window (%s): %s\n", window.c_str(),
                 std::strerror(ec ? ec.value() : errno));
    return 2;
}
#endif

} // namespace

int main(int argc, char** argv) {
    // Whatever runs, first remove the temporary directories of gilscopes that were
    // killed (ours only, and only when their pid is gone).
    gilscope::cleanStaleGilscopeTempDirs();
    if (argc >= 2) {
        const char* first = argv[1];
        for (const auto& c : gilscope::cli::commandRegistry()) {
            if (std::strcmp(first, c.name) != 0) continue;
            QCoreApplication app(argc, argv);
            QCoreApplication::setApplicationName(QStringLiteral("gilscope"));
            QCoreApplication::setApplicationVersion(QStringLiteral(GILSCOPE_VERSION));
            QStringList args = gilscope::cli::decodeArguments(argc, argv);
            args.removeFirst(); // program path; keep the command name as argv[0]
            // The command's boundary: whatever it meets (a target named to break a parser,
            // a bug) ends as a reported error with an exit code, never as std::terminate.
            try {
                return checkedStdout(c.run(args));
            } catch (const std::exception& e) {
                std::fprintf(stderr, "gilscope %s: internal error: %s\n", c.name, e.what());
            } catch (...) {
                std::fprintf(stderr, "gilscope %s: internal error (unknown exception)\n", c.name);
            }
            return gilscope::exitCodeFor(gilscope::ErrorKind::Internal);
        }
        if (std::strcmp(first, "-h") == 0 || std::strcmp(first, "--help") == 0 ||
            std::strcmp(first, "help") == 0) {
            printUsage();
            return 0;
        }
        if (std::strcmp(first, "--version") == 0) {
            std::printf("gilscope %s\n", GILSCOPE_VERSION);
            return 0;
        }
        if (first[0] != '-') {
#ifdef GILSCOPE_WITH_GUI
            // `gilscope FILE.bin` opens the recording in the window.
            struct stat st {};
            if (::stat(first, &st) == 0 && S_ISREG(st.st_mode)) return openWindow(argv);
            if (std::strchr(first, '.') || std::strchr(first, '/')) {
                std::fprintf(stderr, "gilscope: cannot open '%s': %s\n", first,
                             std::strerror(errno ? errno : ENOENT));
                return 2;
            }
#endif
            std::fprintf(stderr, "gilscope: unknown command '%s'\n\n", first);
            printUsage();
            return 2;
        }
    }
#ifdef GILSCOPE_WITH_GUI
    return openWindow(argv);
#else
    std::fprintf(stderr, "gilscope: built without the GUI; give a command\n");
    printUsage();
    return 2;
#endif
}
