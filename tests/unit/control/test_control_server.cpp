// The control socket's own rules against a misbehaving client or command (issue 47):
// pipelined commands are each answered (the 4 KiB limit is per line, not per read), a
// line past the limit closes its connection only, a command that throws inside is an
// error reply and the socket goes on, and the socket is 0600 from the start.
#include "core/control/control_server.h"
#include "core/util/temp_dir.h"
#include "core/util/unique_fd.h"

#include <QTest>

#include <atomic>
#include <new>
#include <poll.h>
#include <stdexcept>
#include <string>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using namespace gilscope;
using namespace gilscope::control;

namespace {

struct Server {
    std::unique_ptr<TempDir> dir;
    std::unique_ptr<ControlServer> server;
    std::atomic<bool> on{true};
    Server() {
        auto d = TempDir::create("gilscope-test-control-");
        QVERIFY(d);
        dir = std::make_unique<TempDir>(std::move(*d));
        ControlTarget t;
        t.setEnabled = [this](bool v) { on = v; };
        t.enabled = [this] { return on.load(); };
        t.quit = [] {};
        t.flush = []() -> Result<std::string> { throw std::bad_alloc(); };
        t.snapshot = [](std::string_view) -> Result<std::string> {
            throw std::runtime_error("no space left on device");
        };
        auto s = ControlServer::start("unix:" + (dir->path() / "c.sock").string(), std::move(t));
        QVERIFY2(s, s ? "" : s.error().message.c_str());
        server = std::move(*s);
    }
    UniqueFd connect() const {
        UniqueFd fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        const std::string& p = server->path();
        std::copy(p.begin(), p.end(), addr.sun_path);
        if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return {};
        return fd;
    }
};

bool sendAll(int fd, const std::string& data) {
    size_t off = 0;
    while (off < data.size()) {
        const ssize_t n = ::send(fd, data.data() + off, data.size() - off, MSG_NOSIGNAL);
        if (n <= 0) return false;
        off += size_t(n);
    }
    return true;
}

// Reads until `lines` newlines came, the peer closed, or 20 s passed.
std::string readLines(int fd, size_t lines) {
    std::string got;
    for (;;) {
        if (size_t(std::count(got.begin(), got.end(), '\n')) >= lines) return got;
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 20000) <= 0) return got;
        char buf[4096];
        const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) return got;
        got.append(buf, size_t(n));
    }
}

} // namespace

class TestControlServer : public QObject {
    Q_OBJECT
private slots:
    void pipelinedCommandsAreEachAnswered() {
        Server s;
        if (QTest::currentTestFailed()) return;
        UniqueFd c = s.connect();
        QVERIFY(c);
        std::string many;
        for (int i = 0; i < 2000; ++i)
            many += "ping\n";
        QVERIFY(sendAll(c.get(), many)); // 10,000 bytes at once
        const std::string replies = readLines(c.get(), 2000);
        QCOMPARE(std::count(replies.begin(), replies.end(), '\n'), 2000L);
        QVERIFY(replies.find("err") == std::string::npos);
    }

    void aLineTooLongClosesOnlyItsConnection() {
        Server s;
        if (QTest::currentTestFailed()) return;
        UniqueFd bad = s.connect(), good = s.connect();
        QVERIFY(bad && good);
        QVERIFY(sendAll(bad.get(), std::string(ControlServer::kMaxLineBytes + 10, 'x') + "\n"));
        QCOMPARE(readLines(bad.get(), 1), std::string()); // closed, no reply
        QVERIFY(sendAll(good.get(), "status\n"));
        QCOMPARE(readLines(good.get(), 1), std::string("ok enabled=True\n"));
    }

    void aCommandThatThrowsIsAnErrorReply() {
        Server s;
        if (QTest::currentTestFailed()) return;
        UniqueFd c = s.connect();
        QVERIFY(c);
        QVERIFY(sendAll(c.get(), "flush\nsnapshot\nping\n"));
        const std::string replies = readLines(c.get(), 3);
        QVERIFY2(replies.starts_with("err internal: "), replies.c_str());
        QVERIFY2(replies.find("\nerr internal: no space left on device\nok\n") != std::string::npos,
                 replies.c_str());
    }

    void theSocketIsOnlyItsOwners() {
        Server s;
        if (QTest::currentTestFailed()) return;
        struct stat st {};
        QCOMPARE(::lstat(s.server->path().c_str(), &st), 0);
        QVERIFY(S_ISSOCK(st.st_mode));
        QCOMPARE(st.st_mode & 0777, 0600u);
    }
};

QTEST_GUILESS_MAIN(TestControlServer)
#include "test_control_server.moc"
