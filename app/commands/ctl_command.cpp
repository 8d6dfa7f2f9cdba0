// gilscope ctl PATH COMMAND...: the client of a recording's control socket (--control).
#include "app/commands/cli_output.h"
#include "app/commands/command_line.h"
#include "app/commands/command_registry.h"
#include "core/control/control_server.h"
#include "core/util/unique_fd.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <poll.h>
#include <string>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

namespace gilscope::cli {

namespace {

constexpr int kReplyTimeoutMs = 5000;

// One line sent, one line read back (without its newline); an error says which step.
Result<std::string> exchange(int fd, const std::string& command) {
    const std::string line = command + "\n";
    if (::send(fd, line.data(), line.size(), MSG_NOSIGNAL) != ssize_t(line.size()))
        return makeError(ErrorKind::Io, std::string("cannot send: ") + std::strerror(errno));
    // One reply per command, so whatever one read brings belongs to this one.
    std::string reply;
    char buf[64 * 1024];
    while (reply.size() <= control::kMaxSnapshotBytes + 64) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, kReplyTimeoutMs) <= 0)
            return makeError(ErrorKind::Io, "no reply to '" + command + "' within 5 s");
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) return makeError(ErrorKind::Io, "the recording closed the connection");
        reply.append(buf, size_t(n));
        if (const size_t end = reply.find('\n'); end != std::string::npos) {
            reply.resize(end);
            return reply;
        }
    }
    return makeError(ErrorKind::Io, "reply too long");
}

int runCtl(const QStringList& args) {
    CommandLine cli("ctl", "Send commands to a recording's control socket (--control) and print "
                           "each reply: enable, disable, ping, status, quit, mark TEXT, snapshot.");
    QCommandLineParser& parser = cli.parser();
    parser.addPositionalArgument("socket", "unix:PATH or PATH, as given to --control.");
    parser.addPositionalArgument("command", "One or more commands, sent in turn.", "COMMAND...");
    if (auto done = cli.parse(args)) return *done;
    const QStringList positional = parser.positionalArguments();
    if (positional.size() < 2) return cli.usageErrorSeeHelp("expected a socket and a command");
    std::string uri = positional[0].toStdString();
    if (uri.find(':') == std::string::npos) uri = "unix:" + uri;
    auto path = control::parseControlUri(uri);
    if (!path) return fail(path.error());
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path->size() >= sizeof addr.sun_path)
        return fail(makeError(ErrorKind::BadArguments, "socket path too long: " + *path));
    std::memcpy(addr.sun_path, path->data(), path->size());
    UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (!fd || ::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
        return fail(makeError(errno == EACCES ? ErrorKind::PermissionDenied : ErrorKind::Io,
                              "cannot connect to " + *path + ": " + std::strerror(errno) +
                                  " (is a recording running with --control " + uri + "?)"));
    int status = 0;
    for (qsizetype i = 1; i < positional.size(); ++i) {
        auto reply = exchange(fd.get(), positional[i].toStdString());
        if (!reply) return fail(reply.error());
        std::printf("%s\n", reply->c_str());
        if (reply->starts_with("err")) status = 1;
    }
    return status;
}

} // namespace

GILSCOPE_REGISTER_COMMAND(ctl, "ctl", "Send commands to a recording's control socket", runCtl);

} // namespace gilscope::cli
