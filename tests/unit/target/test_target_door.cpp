// core/target: the one door to a process. Real child processes (forked here) stand for
// the target: one that became nobody, one in a chroot of its own. What the door opens is
// what that child could open itself, in its own root, and nothing else.
#include "core/remote/remote_memory.h"
#include "core/target/attached_process.h"
#include "core/target/process_credentials.h"
#include "tests/support/ci_requirements.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <grp.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace gilscope;
using namespace gilscope::target;

namespace {

constexpr uid_t kNobody = 65534;

// A child that takes its identity and root, says so through a pipe, and waits for a signal.
class Child {
public:
    struct Setup {
        bool nobody = false;
        std::string root; // chroot here
        std::string cwd;  // then chdir here
    };
    explicit Child(const Setup& setup) {
        int fds[2];
        if (::pipe(fds) != 0) return;
        pid_ = ::fork();
        if (pid_ == 0) {
            ::close(fds[0]);
            bool ok = true;
            if (!setup.root.empty()) ok = ::chroot(setup.root.c_str()) == 0 && ::chdir("/") == 0;
            if (ok && !setup.cwd.empty()) ok = ::chdir(setup.cwd.c_str()) == 0;
            if (ok && setup.nobody)
                ok = ::setgroups(0, nullptr) == 0 && ::setgid(kNobody) == 0 &&
                     ::setuid(kNobody) == 0;
            const char c = ok ? '1' : '0';
            (void)!::write(fds[1], &c, 1);
            ::close(fds[1]);
            for (;;)
                ::pause();
        }
        ::close(fds[1]);
        char c = 0;
        ready_ = ::read(fds[0], &c, 1) == 1 && c == '1';
        ::close(fds[0]);
    }
    ~Child() {
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
    }
    bool ready() const { return ready_; }
    int pid() const { return pid_; }
    void killAndKeepZombie() { ::kill(pid_, SIGKILL); }

private:
    int pid_ = -1;
    bool ready_ = false;
};

bool write(const QString& path, const QByteArray& bytes, mode_t mode) {
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(bytes) != bytes.size()) return false;
    f.close();
    return ::chmod(QFile::encodeName(path).constData(), mode) == 0;
}

} // namespace

class TestTargetDoor : public QObject {
    Q_OBJECT
private slots:
    void credentialsAreParsed() {
        const std::string status = "Name:\tx\nUid:\t1000\t1001\t1002\t1003\nGid:\t50\t51\t52\t53\n"
                                   "Groups:\t4 24 27 \nCapEff:\t0000000000000006\n";
        const auto c = credentialsFromStatus(status);
        QVERIFY(c);
        QCOMPARE(c->fsuid, 1003u); // the filesystem ids are the ones the kernel checks
        QCOMPARE(c->fsgid, 53u);
        QCOMPARE(c->groups, (std::vector<uint32_t>{4, 24, 27}));
        QCOMPARE(c->capEffective, uint64_t(6));
        QVERIFY(c->inGroup(24) && c->inGroup(53) && !c->inGroup(0));
        // Capabilities held in another user namespace do not reach our files.
        QVERIFY(!c->mayOverrideFileModes());
        auto same = *c;
        same.sameUserNamespace = true;
        QVERIFY(same.mayOverrideFileModes() && same.mayReadAnyFile());
        QVERIFY(!credentialsFromStatus("Uid:\t1\t2\t3\nGid:\t1\t2\t3\t4\nGroups:\nCapEff:\t0\n"));
        QVERIFY(!credentialsFromStatus("Uid:\t1\t2\t3\t4\nGid:\t1\t2\t3\t4\nGroups:\n"));
        QVERIFY(
            !credentialsFromStatus("Uid:\tx\t2\t3\t4\nGid:\t1\t2\t3\t4\nGroups:\nCapEff:\t0\n"));
    }

    // The pidfd tells a live process from one that ended, zombie included, and reads through
    // /proc/PID fail once it has ended.
    void theDoorKnowsWhenTheProcessEnded() {
        Child child({});
        QVERIFY(child.ready());
        auto door = AttachedProcess::open(child.pid());
        QVERIFY2(door, door.error().message.c_str());
        QVERIFY((*door)->stillAttached());
        QVERIFY((*door)->proc().read("stat").has_value());
        QVERIFY(!(*door)->proc().tasks().empty());
        QVERIFY((*door)->startTime().has_value());
        child.killAndKeepZombie();
        QTRY_VERIFY(!(*door)->stillAttached()); // a zombie has ended
        QVERIFY(!AttachedProcess::open(-1));
        QCOMPARE(AttachedProcess::open(-1).error().kind, ErrorKind::ProcessNotFound);
    }

    // The door's identity mark is the process's AT_RANDOM bytes. A fork has its parent's,
    // at the same address: ours.
    void theIdentityMarkIsTheProcesssRandomBytes() {
        Child child({});
        QVERIFY(child.ready());
        auto door = AttachedProcess::open(child.pid());
        QVERIFY2(door, door.error().message.c_str());
        const auto& mark = (*door)->identityMark();
        QVERIFY(mark.has_value());
        const uint64_t ours = ::getauxval(AT_RANDOM);
        QCOMPARE(mark->addr, ours);
        QVERIFY(std::memcmp(mark->bytes.data(), reinterpret_cast<const void*>(ours), 16) == 0);
    }

    // Memory read through the door's mark is the attached process's or nothing: once the
    // process has exec'd (same pid, same process, another memory) every read fails with
    // ESTALE, where a read by the bare pid reads the new image. A process that got the pid
    // after the target ended looks the same to the read.
    void memoryReadsFailOnceThePidHoldsAnotherMemory() {
        int go[2];
        QVERIFY(::pipe(go) == 0);
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::close(go[1]);
            char c;
            if (::read(go[0], &c, 1) == 1) ::execl("/bin/sleep", "sleep", "60", nullptr);
            ::_exit(1);
        }
        ::close(go[0]);
        auto door = AttachedProcess::open(pid);
        QVERIFY2(door, door.error().message.c_str());
        remote::RemoteMemory marked(**door);
        QVERIFY(marked.readsProveIdentity());
        QVERIFY(!remote::RemoteMemory(pid).readsProveIdentity());
        const uint64_t here = reinterpret_cast<uint64_t>(&go); // same address in the fork
        int read[2] = {};
        QVERIFY(marked.readValue(here, read));
        QCOMPARE(read[1], go[1]);
        iovec local{read, sizeof read}, remote{reinterpret_cast<void*>(here), sizeof read};
        QCOMPARE(marked.readMany({&local, 1}, {&remote, 1}), size_t(1));

        QCOMPARE(::write(go[1], "x", 1), ssize_t(1));
        ::close(go[1]);
        QTRY_COMPARE_WITH_TIMEOUT((*door)->proc().readLink("exe").value_or(""),
                                  std::string("/usr/bin/sleep"), 30000);
        // The exec has replaced the memory (exe changes with it): new random bytes. The kernel
        // switches exe before it writes the new auxv, so wait for the auxv too.
        auto openedWithMark = [pid]() -> std::shared_ptr<AttachedProcess> {
            auto opened = AttachedProcess::open(pid);
            return opened && (*opened)->identityMark() ? *opened : nullptr;
        };
        QTRY_VERIFY_WITH_TIMEOUT(openedWithMark() != nullptr, 30000);
        const auto now = openedWithMark();
        QVERIFY(now);
        const uint64_t newMark = now->identityMark()->addr;
        QVERIFY((*door)->stillAttached()); // the same process
        uint64_t word = 0;
        QVERIFY(!marked.readValue(newMark, word));
        QCOMPARE(marked.lastErrno(), ESTALE);
        QCOMPARE(marked.readMany({&local, 1}, {&remote, 1}), size_t(0));
        QCOMPARE(marked.lastErrno(), ESTALE);
        QVERIFY(!marked.processGone());
        remote::RemoteMemory bare(pid);
        QVERIFY(bare.readValue(newMark, word)); // the bare pid reads whatever has it now
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
    }

    // As nobody, the child may read what nobody may read, and nothing that only root may.
    void filesAreOpenedAsTheProcessItself() {
        GILSCOPE_REQUIRE(::geteuid() == 0, "needs root (a child that becomes nobody)");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QVERIFY(::chmod(QFile::encodeName(dir.path()).constData(), 0755) == 0);
        QVERIFY(write(dir.filePath("open.py"), "print('open')\n", 0644));
        QVERIFY(write(dir.filePath("root_only.py"), "SECRET\n", 0600));
        QVERIFY(::mkfifo(QFile::encodeName(dir.filePath("fifo.py")).constData(), 0666) == 0);
        {
            QFile big(dir.filePath("big.py"));
            QVERIFY(big.open(QIODevice::WriteOnly) && big.resize(9 << 20));
        }
        QVERIFY(::symlink("/proc/self/root/etc/hostname",
                          QFile::encodeName(dir.filePath("magic.py")).constData()) == 0);
        Child child({true, {}, dir.path().toStdString()});
        QVERIFY(child.ready());
        auto door = AttachedProcess::open(child.pid());
        QVERIFY2(door, door.error().message.c_str());
        const TargetFiles& files = (*door)->files();
        auto open = files.readFile(dir.filePath("open.py").toStdString(), 8 << 20);
        QVERIFY2(open, open.error().message.c_str());
        QCOMPARE(*open, std::string("print('open')\n"));
        // A name relative to the process's working directory.
        QVERIFY(files.readFile("open.py", 8 << 20));
        auto secret = files.readFile(dir.filePath("root_only.py").toStdString(), 8 << 20);
        QVERIFY(!secret);
        QCOMPARE(secret.error().kind, ErrorKind::PermissionDenied);
        QVERIFY2(secret.error().message.find("not readable by the process's user (uid 65534)") !=
                     std::string::npos,
                 secret.error().message.c_str());
        auto fifo = files.openFile(dir.filePath("fifo.py").toStdString()); // and no hang
        QVERIFY(!fifo);
        QVERIFY(fifo.error().message.find("is not a regular file") != std::string::npos);
        QVERIFY(!files.openFile("/dev/zero"));
        auto big = files.readFile(dir.filePath("big.py").toStdString(), 8 << 20);
        QVERIFY(!big);
        QVERIFY(big.error().message.find("larger than 8 MiB") != std::string::npos);
        auto magic = files.openFile(dir.filePath("magic.py").toStdString());
        QVERIFY(!magic);
        QVERIFY2(magic.error().message.find("outside the process's root") != std::string::npos,
                 magic.error().message.c_str());
        QVERIFY(!files.openFile(std::string("open.py\0x", 9))); // a NUL cuts no name short
    }

    // In a chroot, a name means what it means to the process: an absolute symlink or a ".."
    // stays inside its root, and this machine's file of the same name is never read.
    void namesResolveInTheProcesssRoot() {
        GILSCOPE_REQUIRE(::geteuid() == 0, "needs root (a child in a chroot)");
        QTemporaryDir host, root;
        QVERIFY(host.isValid() && root.isValid());
        QVERIFY(write(host.filePath("secret.py"), "HOST SECRET\n", 0600));
        QVERIFY(QDir(root.path()).mkpath("srv"));
        QVERIFY(write(root.filePath("srv/app.py"), "inside\n", 0644));
        const QByteArray out = QFile::encodeName(host.filePath("secret.py"));
        QVERIFY(::symlink(out.constData(),
                          QFile::encodeName(root.filePath("srv/out.py")).constData()) == 0);
        QVERIFY(::symlink("/srv/app.py",
                          QFile::encodeName(root.filePath("srv/in.py")).constData()) == 0);
        Child child({false, root.path().toStdString(), "/srv"});
        QVERIFY(child.ready());
        auto door = AttachedProcess::open(child.pid());
        QVERIFY2(door, door.error().message.c_str());
        const TargetFiles& files = (*door)->files();
        QCOMPARE(files.readFile("/srv/app.py", 1024).value(), std::string("inside\n"));
        QCOMPARE(files.readFile("/srv/in.py", 1024).value(), std::string("inside\n"));
        QCOMPARE(files.readFile("app.py", 1024).value(), std::string("inside\n")); // cwd /srv
        QVERIFY(!files.readFile("/srv/out.py", 1024));
        QVERIFY(!files.readFile("/../../../../.." + out.toStdString(), 1024));
        QVERIFY(!files.readFile(out.toStdString(), 1024));
        auto outside = files.readFile("/srv/out.py", 1024);
        QVERIFY(outside.error().message.find("does not exist in the process's root") !=
                std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestTargetDoor)
#include "test_target_door.moc"
