#include "core/control/control_server.h"

#include "core/util/unique_fd.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace gilscope::control {

namespace {

struct Connection {
    UniqueFd fd;
    std::string in, out;
    bool closeAfter = false;
    bool closed = false;
};

// Python's str.strip(): the ASCII whitespace around a command.
std::string_view stripped(std::string_view s) {
    constexpr std::string_view kSpace = " \t\r\n\v\f";
    const size_t a = s.find_first_not_of(kSpace);
    if (a == std::string_view::npos) return {};
    return s.substr(a, s.find_last_not_of(kSpace) - a + 1);
}

} // namespace

Result<std::string> parseControlUri(std::string_view uri) {
    const size_t colon = uri.find(':');
    if (colon == std::string_view::npos)
        return makeError(ErrorKind::BadArguments, "control URI must include a scheme");
    const std::string_view scheme = uri.substr(0, colon), path = uri.substr(colon + 1);
    if (scheme != "unix")
        return makeError(ErrorKind::BadArguments, "unsupported control URI scheme '" +
                                                      std::string(scheme) +
                                                      "'; expected one of: unix");
    if (path.empty())
        return makeError(ErrorKind::BadArguments, "control URI path must not be empty");
    return std::string(path);
}

struct ControlServer::Impl {
    std::string path;
    ControlTarget target;
    UniqueFd listener, wake;
    dev_t dev = 0;
    ino_t ino = 0;
    std::vector<Connection> connections;
    std::thread thread;

    void run();
    void accept();
    void read(Connection& c);
    Reply answerSafely(std::string_view command);
    void flush(Connection& c);
    ~Impl();
};

ControlServer::ControlServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {
}

ControlServer::~ControlServer() = default;

const std::string& ControlServer::path() const {
    return impl_->path;
}

Result<std::unique_ptr<ControlServer>> ControlServer::start(std::string_view uri,
                                                            ControlTarget target) {
    auto path = parseControlUri(uri);
    if (!path) return path.error();
    auto failed = [&](const std::string& why) {
        return makeError(errno == EACCES ? ErrorKind::PermissionDenied : ErrorKind::Io,
                         "failed to start control socket '" + *path + "': " + why);
    };
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    if (path->size() >= sizeof addr.sun_path)
        return makeError(ErrorKind::BadArguments, "control socket path '" + *path +
                                                      "' is longer than a Unix socket allows (" +
                                                      std::to_string(sizeof addr.sun_path - 1) +
                                                      " bytes)");
    std::memcpy(addr.sun_path, path->data(), path->size());
    struct stat st {};
    if (::lstat(path->c_str(), &st) == 0)
        return makeError(ErrorKind::BadArguments,
                         "control socket path '" + *path +
                             "' exists already; another recording may use it (remove it if it "
                             "is a stale socket)");
    auto impl = std::make_unique<Impl>();
    impl->path = *path;
    impl->target = std::move(target);
    impl->listener = UniqueFd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
    if (!impl->listener) return failed(std::strerror(errno));
    // The socket's own mode is the file's: 0600 from the start, never wider for a moment.
    // (No chmod by path after bind: the name may already be another's symlink.)
    ::fchmod(impl->listener.get(), 0600);
    if (::bind(impl->listener.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0)
        return failed(std::strerror(errno));
    if (::lstat(path->c_str(), &st) == 0) {
        impl->dev = st.st_dev;
        impl->ino = st.st_ino;
    }
    if (::listen(impl->listener.get(), SOMAXCONN) != 0) return failed(std::strerror(errno));
    impl->wake = UniqueFd(::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK));
    if (!impl->wake) return failed(std::strerror(errno));
    Impl* raw = impl.get();
    impl->thread = std::thread([raw] {
        // Out of memory or worse here ends the control socket, never the recording.
        try {
            raw->run();
        } catch (const std::exception& e) {
            std::fprintf(stderr, "gilscope: the control socket stopped: %s\n", e.what());
        }
        raw->connections.clear();
    });
    return std::unique_ptr<ControlServer>(new ControlServer(std::move(impl)));
}

ControlServer::Impl::~Impl() {
    if (thread.joinable()) {
        const uint64_t one = 1;
        (void)!::write(wake.get(), &one, sizeof one);
        thread.join();
    }
    connections.clear();
    listener.reset();
    // Removed only if it is still the socket made here (CPython's rule).
    struct stat st {};
    if (ino != 0 && ::lstat(path.c_str(), &st) == 0 && st.st_dev == dev && st.st_ino == ino)
        ::unlink(path.c_str());
}

void ControlServer::Impl::run() {
    std::vector<pollfd> fds;
    for (;;) {
        fds.clear();
        fds.push_back({wake.get(), POLLIN, 0});
        fds.push_back({listener.get(), POLLIN, 0});
        for (const Connection& c : connections)
            fds.push_back({c.fd.get(), short(POLLIN | (c.out.empty() ? 0 : POLLOUT)), 0});
        if (::poll(fds.data(), fds.size(), -1) < 0) {
            if (errno == EINTR) continue;
            return;
        }
        if (fds[0].revents) return; // stopping
        for (size_t i = 0; i < connections.size(); ++i) {
            const short ev = fds[i + 2].revents;
            if (ev & (POLLIN | POLLHUP | POLLERR)) read(connections[i]);
            if (!connections[i].closed && (ev & POLLOUT)) flush(connections[i]);
        }
        std::erase_if(connections, [](const Connection& c) { return c.closed; });
        if (fds[1].revents & POLLIN) accept();
    }
}

void ControlServer::Impl::accept() {
    for (;;) {
        UniqueFd fd(::accept4(listener.get(), nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));
        if (!fd) return; // EAGAIN: none left; other errors: the next poll tries again
        if (connections.size() >= kMaxConnections) continue; // closed at once
        connections.push_back({std::move(fd), {}, {}, false, false});
    }
}

void ControlServer::Impl::read(Connection& c) {
    char buf[kMaxLineBytes];
    const ssize_t n = ::recv(c.fd.get(), buf, sizeof buf, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) return;
    if (n <= 0) { // closed by the client (a line cut short changes nothing), or failed
        c.closed = true;
        return;
    }
    c.in.append(buf, size_t(n));
    // Each line is held to the limit, not what one read brought: pipelined commands
    // are answered one by one.
    size_t start = 0, newline;
    while (!c.closeAfter && (newline = c.in.find('\n', start)) != std::string::npos) {
        if (newline - start > kMaxLineBytes) {
            c.closed = true;
            return;
        }
        const std::string_view line(c.in.data() + start, newline - start);
        start = newline + 1;
        // Replies the client left unread close it, before another is made (a snapshot
        // alone may be larger: it is sent whole).
        if (c.out.size() > kMaxOutBytes) {
            c.closed = true;
            return;
        }
        const Reply reply = answerSafely(stripped(line));
        c.out += reply.line + "\n";
        c.closeAfter = reply.closeAfter;
    }
    c.in.erase(0, start);
    if (c.in.size() > kMaxLineBytes) { // a line that goes on without end
        c.closed = true;
        return;
    }
    flush(c);
}

Reply ControlServer::Impl::answerSafely(std::string_view command) {
    // A command that fails inside (a flush out of memory or disk) is an error reply; the
    // socket goes on.
    try {
        return answer(command, target);
    } catch (const std::exception& e) {
        return {std::string("err internal: ") + e.what()};
    }
}

void ControlServer::Impl::flush(Connection& c) {
    while (!c.out.empty()) {
        const ssize_t sent = ::send(c.fd.get(), c.out.data(), c.out.size(), MSG_NOSIGNAL);
        if (sent < 0 && (errno == EAGAIN || errno == EINTR)) return;
        if (sent <= 0) {
            c.closed = true;
            return;
        }
        c.out.erase(0, size_t(sent));
    }
    if (c.closeAfter) c.closed = true;
}

} // namespace gilscope::control
