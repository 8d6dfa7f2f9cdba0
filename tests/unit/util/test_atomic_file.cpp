// AtomicFile against what an output path can name: a symlink (followed), a device,
// FIFO or socket (written directly), an existing file (mode and owner kept), a missing
// directory, and the temporary files a killed gilscope left behind.
#include "core/util/atomic_file.h"
#include "core/util/temp_dir.h"
#include "core/util/unique_fd.h"

#include <QTest>

#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace gilscope;
namespace fs = std::filesystem;

namespace {

std::string readText(const fs::path& p) {
    std::ifstream in(p);
    return std::string((std::istreambuf_iterator<char>(in)), {});
}

int entries(const fs::path& dir) {
    int n = 0;
    for ([[maybe_unused]] auto& e : fs::directory_iterator(dir))
        ++n;
    return n;
}

// A pid that ran and is gone: a child that exited and was reaped.
pid_t deadPid() {
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(0);
    ::waitpid(pid, nullptr, 0);
    return pid;
}

} // namespace

class TestAtomicFile : public QObject {
    Q_OBJECT
    TempDir dir_;

private slots:
    void init() {
        auto d = TempDir::create("gilscope-test");
        QVERIFY(d.ok());
        dir_ = std::move(d.value());
    }

    // Old code renamed over the link: the link became a file, its target stayed old.
    void symlinkIsFollowedAndItsTargetReplaced() {
        const fs::path real = dir_.path() / "real.json", link = dir_.path() / "link.json";
        std::ofstream(real) << "old";
        fs::create_symlink("real.json", link);
        auto f = AtomicFile::create(link);
        QVERIFY(f.ok());
        QVERIFY(f->tempPath().parent_path() == dir_.path());
        QVERIFY(f->write("new").ok());
        QVERIFY(f->commit().ok());
        QVERIFY(fs::is_symlink(link));
        QCOMPARE(readText(real), std::string("new"));
        QCOMPARE(entries(dir_.path()), 2);
    }

    void danglingSymlinkCreatesItsTarget() {
        fs::create_directory(dir_.path() / "sub");
        const fs::path link = dir_.path() / "link.txt";
        fs::create_symlink("sub/made.txt", link);
        auto f = AtomicFile::create(link);
        QVERIFY(f.ok());
        QVERIFY(f->write("x").ok());
        QVERIFY(f->commit().ok());
        QVERIFY(fs::is_symlink(link));
        QCOMPARE(readText(dir_.path() / "sub" / "made.txt"), std::string("x"));
    }

    // Old code left a 0644 file owned by whoever ran gilscope.
    void existingFileKeepsModeAndOwner() {
        const fs::path p = dir_.path() / "private.txt";
        std::ofstream(p) << "old";
        ::chmod(p.c_str(), 0600);
        const bool root = ::geteuid() == 0;
        if (root) QCOMPARE(::chown(p.c_str(), 65534, 65534), 0);
        auto f = AtomicFile::create(p);
        QVERIFY(f.ok());
        QVERIFY(f->write("new").ok());
        QVERIFY(f->commit().ok());
        struct stat st {};
        QCOMPARE(::stat(p.c_str(), &st), 0);
        QCOMPARE(st.st_mode & 07777, mode_t(0600));
        if (root) QCOMPARE(st.st_uid, uid_t(65534));
        QCOMPARE(readText(p), std::string("new"));
    }

    void newFileFollowsTheUmask() {
        const mode_t old = ::umask(027);
        auto f = AtomicFile::create(dir_.path() / "new.txt");
        ::umask(old);
        QVERIFY(f.ok());
        QVERIFY(f->commit().ok());
        QCOMPARE(fs::status(dir_.path() / "new.txt").permissions(),
                 fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
    }

    // Old code replaced the FIFO with a regular file; the reader got nothing.
    void fifoIsWrittenDirectly() {
        const fs::path fifo = dir_.path() / "out.fifo";
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        UniqueFd reader(::open(fifo.c_str(), O_RDONLY | O_NONBLOCK));
        QVERIFY(reader.valid());
        for (bool seek : {false, true}) {
            auto f = AtomicFile::create(fifo, {.needsSeek = seek});
            QVERIFY(f.ok());
            QVERIFY(f->direct());
            QVERIFY(f->tempPath().empty());
            QVERIFY(f->write("head-").ok());
            if (seek) QVERIFY(f->pwrite("HEAD", 4, 0).ok()); // staged, patched, then copied
            QVERIFY(f->commit().ok());
            char buf[64] = {};
            const ssize_t n = ::read(reader.get(), buf, sizeof buf);
            QCOMPARE(std::string(buf, n > 0 ? size_t(n) : 0),
                     std::string(seek ? "HEAD-" : "head-"));
        }
        QVERIFY(fs::is_fifo(fifo));
        QCOMPARE(entries(dir_.path()), 1);
    }

    // Old code turned /dev/full into a 17 KB regular file (as root).
    void characterDeviceIsWrittenDirectlyAndErrorsAreClear() {
        fs::path full = "/dev/full";
        if (::geteuid() == 0) { // a private node: a regression must not break /dev/full
            full = dir_.path() / "full";
            QCOMPARE(::mknod(full.c_str(), S_IFCHR | 0666, makedev(1, 7)), 0);
        }
        auto f = AtomicFile::create(full);
        QVERIFY(f.ok());
        QVERIFY(f->direct());
        const Status s = f->write("data");
        QVERIFY(!s.ok());
        QCOMPARE(s.error().kind, ErrorKind::DiskFull);
        QVERIFY(s.error().message.find(full.string()) != std::string::npos);
        f->discard();
        QVERIFY(fs::is_character_file(full));
    }

    void socketIsConnectedTo() {
        const fs::path path = dir_.path() / "out.sock";
        UniqueFd server(::socket(AF_UNIX, SOCK_STREAM, 0));
        sockaddr_un addr{};
        addr.sun_family = AF_UNIX;
        std::strncpy(addr.sun_path, path.c_str(), sizeof addr.sun_path - 1);
        QCOMPARE(::bind(server.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
        QCOMPARE(::listen(server.get(), 1), 0);
        auto f = AtomicFile::create(path);
        QVERIFY(f.ok());
        QVERIFY(f->direct());
        QVERIFY(f->write("over a socket").ok());
        QVERIFY(f->commit().ok());
        UniqueFd conn(::accept(server.get(), nullptr, nullptr));
        char buf[64] = {};
        const ssize_t n = ::read(conn.get(), buf, sizeof buf);
        QCOMPARE(std::string(buf, n > 0 ? size_t(n) : 0), std::string("over a socket"));
        QVERIFY(fs::is_socket(path));
    }

    void missingDirectoryFailsAtCreate() {
        auto f = AtomicFile::create(dir_.path() / "nonexist" / "dir" / "x.json");
        QVERIFY(!f.ok());
        QCOMPARE(f.error().kind, ErrorKind::Io);
        QVERIFY(f.error().message.find("does not exist") != std::string::npos);
    }

    void directoryIsRefused() {
        auto f = AtomicFile::create(dir_.path());
        QVERIFY(!f.ok());
        QCOMPARE(f.error().kind, ErrorKind::BadArguments);
    }

    void temporaryNameCarriesThePid() {
        auto f = AtomicFile::create(dir_.path() / "out.bin");
        QVERIFY(f.ok());
        const std::string name = f->tempPath().filename().string();
        QCOMPARE(name.rfind(".out.bin.tmp-" + std::to_string(::getpid()) + "-", 0), size_t(0));
    }

    // After a SIGKILL the temporary file stayed forever.
    void staleTemporaryFilesOfDeadProcessesAreRemoved() {
        const pid_t dead = deadPid();
        const fs::path stale = dir_.path() / (".out.bin.tmp-" + std::to_string(dead) + "-abcdef");
        const fs::path live =
            dir_.path() / (".out.bin.tmp-" + std::to_string(::getppid()) + "-abcdef");
        const fs::path unrelated = dir_.path() / ".out.bin.tmp-abcdef"; // no pid: not ours
        for (const auto& p : {stale, live, unrelated})
            std::ofstream(p) << "partial";
        fs::path foreign;
        if (::geteuid() == 0) { // root must not remove another user's file
            foreign = dir_.path() / (".x.tmp-" + std::to_string(dead) + "-zzzzzz");
            std::ofstream(foreign) << "theirs";
            QCOMPARE(::chown(foreign.c_str(), 65534, 65534), 0);
        }
        auto f = AtomicFile::create(dir_.path() / "out.bin");
        QVERIFY(f.ok());
        QVERIFY(!fs::exists(stale));
        QVERIFY(fs::exists(live));
        QVERIFY(fs::exists(unrelated));
        if (!foreign.empty()) QVERIFY(fs::exists(foreign));
    }

    void staleTempDirsOfOtherUsersAreKept() {
        const pid_t dead = deadPid();
        const fs::path ours =
            systemTempDir() / (temp_prefix::kGeckoSpill + ("-" + std::to_string(dead)) + "-aaaaaa");
        const fs::path theirs =
            systemTempDir() / (temp_prefix::kLiveCopy + ("-" + std::to_string(dead)) + "-bbbbbb");
        fs::create_directory(ours);
        fs::create_directory(theirs);
        const bool root = ::geteuid() == 0;
        if (root) QCOMPARE(::chown(theirs.c_str(), 65534, 65534), 0);
        cleanStaleGilscopeTempDirs();
        QVERIFY(!fs::exists(ours));
        if (root) QVERIFY(fs::exists(theirs));
        std::error_code ec;
        fs::remove_all(theirs, ec);
    }
};

QTEST_GUILESS_MAIN(TestAtomicFile)
#include "test_atomic_file.moc"
