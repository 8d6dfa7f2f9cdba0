#include "core/util/atomic_file.h"
#include "core/util/temp_dir.h"
#include "core/util/utf8.h"

#include <QTest>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace gilscope;
namespace fs = std::filesystem;

class TestUtil : public QObject {
    Q_OBJECT
private slots:
    void sanitizeUtf8MatchesPythonReplace() {
        QCOMPARE(sanitizeUtf8("plain"), std::string("plain"));
        QCOMPARE(sanitizeUtf8("\xC3"
                              "func"),
                 std::string("\xEF\xBF\xBD"
                             "func"));
        QCOMPARE(sanitizeUtf8("/srv/\xFF"
                              "bad.py"),
                 std::string("/srv/\xEF\xBF\xBD"
                             "bad.py"));
        // A truncated 3-byte sequence is one maximal subpart: one replacement.
        QCOMPARE(sanitizeUtf8("a\xE2\x82"), std::string("a\xEF\xBF\xBD"));
        // Surrogates encoded in UTF-8 are invalid, byte by byte.
        QCOMPARE(sanitizeUtf8("\xED\xA0\x80"), std::string("\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"));
        QVERIFY(isValidUtf8("\xF0\x9F\x90\x8D"));
        QVERIFY(!isValidUtf8("\xC0\x80"));
    }

    void atomicFileKeepsExistingDestinationWithoutCommit() {
        auto dir = TempDir::create("gilscope-test");
        QVERIFY(dir.ok());
        const fs::path dest = dir->path() / "out.json";
        std::ofstream(dest) << "existing";
        {
            auto f = AtomicFile::create(dest);
            QVERIFY(f.ok());
            QVERIFY(f->write("new content").ok());
            QVERIFY(fs::exists(f->tempPath()));
        }
        std::ifstream in(dest);
        std::string text((std::istreambuf_iterator<char>(in)), {});
        QCOMPARE(text, std::string("existing"));
        int entries = 0;
        for ([[maybe_unused]] auto& e : fs::directory_iterator(dir->path()))
            ++entries;
        QCOMPARE(entries, 1);
    }

    void atomicFileCommitReplaces() {
        auto dir = TempDir::create("gilscope-test");
        QVERIFY(dir.ok());
        const fs::path dest = dir->path() / "out.json";
        std::ofstream(dest) << "existing";
        auto f = AtomicFile::create(dest);
        QVERIFY(f.ok());
        QVERIFY(f->write("new").ok());
        QVERIFY(f->commit().ok());
        std::ifstream in(dest);
        std::string text((std::istreambuf_iterator<char>(in)), {});
        QCOMPARE(text, std::string("new"));
    }

    void atomicFileInUnwritableDirectoryFailsClearly() {
        if (::geteuid() == 0) {
            auto f = AtomicFile::create("/proc/gilscope-no-such-dir/out.json");
            QVERIFY(!f.ok());
            QVERIFY(f.error().message.find("/proc/gilscope-no-such-dir/out.json") !=
                    std::string::npos);
            return;
        }
        auto f = AtomicFile::create("/out-gilscope-test.json");
        QVERIFY(!f.ok());
        QCOMPARE(f.error().kind, ErrorKind::PermissionDenied);
    }

    void tempDirRemovedOnDestruction() {
        fs::path p;
        {
            auto d = TempDir::create("gilscope-test");
            QVERIFY(d.ok());
            p = d->path();
            std::ofstream(p / "x") << "y";
            QVERIFY(fs::exists(p));
        }
        QVERIFY(!fs::exists(p));
    }

    void staleTempDirsOfDeadProcessesAreCleaned() {
        // pid 2^22+1 is above pid_max's default ceiling on these kernels, so it never runs.
        const fs::path stale = systemTempDir() / "gilscope-staletest-4194305-abcdef";
        fs::create_directories(stale / "sub");
        auto live = TempDir::create("gilscope-staletest");
        QVERIFY(live.ok());
        QVERIFY(cleanStaleTempDirs("gilscope-staletest") >= 1);
        QVERIFY(!fs::exists(stale));
        QVERIFY(fs::exists(live->path()));
    }
};

QTEST_GUILESS_MAIN(TestUtil)
#include "test_util.moc"
