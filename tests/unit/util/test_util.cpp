#include "core/analysis/analysis_ids.h"
#include "core/common/error.h"
#include "core/sample/frame_registry.h"
#include "core/util/atomic_file.h"
#include "core/util/guarded_thread.h"
#include "core/util/temp_dir.h"
#include "core/util/utf8.h"

#include <QTest>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <random>
#include <stdexcept>
#include <stop_token>
#include <sys/wait.h>
#include <thread>
#include <type_traits>
#include <unistd.h>

using namespace gilscope;
namespace fs = std::filesystem;

// Whether table[key] compiles (a trait, not a concept: moc reads this file).
template <class Table, class Key, class = void>
struct IndexableByTrait : std::false_type {};
template <class Table, class Key>
struct IndexableByTrait<Table, Key,
                        std::void_t<decltype(std::declval<Table&>()[std::declval<Key>()])>>
    : std::true_type {};
template <class Table, class Key>
constexpr bool IndexableBy = IndexableByTrait<Table, Key>::value;

class TestUtil : public QObject {
    Q_OBJECT
private slots:
    // A helper thread's exception ends that thread alone (issue 47): without the guard,
    // std::terminate took the recording with it.
    void aHelperThreadsExceptionEndsOnlyIt() {
        bool ranAfter = false;
        std::thread t(guardedThreadBody("a test helper", [] { throw std::bad_alloc(); }));
        t.join();
        std::jthread j(guardedThreadBody("a stoppable helper", [&](std::stop_token stop) {
            ranAfter = !stop.stop_requested();
            throw std::runtime_error("boom");
        }));
        j.join();
        QVERIFY(ranAfter);
    }

    // Each id is its own type: none converts to another or from a plain integer, and a
    // per-id table takes only its id. (A plain `using FrameId = uint32_t` fails here.)
    void typedIdsDoNotMix() {
        static_assert(!std::is_convertible_v<FrameId, StringId>);
        static_assert(!std::is_convertible_v<StringId, FrameId>);
        static_assert(!std::is_convertible_v<uint32_t, FrameId>);
        static_assert(!std::is_convertible_v<FrameId, uint32_t>);
        static_assert(!std::is_convertible_v<StackId, FrameId>);
        static_assert(!std::is_convertible_v<int, ThreadIndex>);
        static_assert(IndexableBy<IdVector<FrameId, int>, FrameId>);
        static_assert(!IndexableBy<IdVector<FrameId, int>, StringId>);
        static_assert(!IndexableBy<IdVector<FrameId, int>, uint32_t>);
        static_assert(sizeof(ThreadIndex) == 2);

        FrameRegistry registry;
        const StringId file = registry.internString("a.py");
        const FrameId f = registry.internFrame({file, registry.internString("f")});
        const FrameId g = registry.internFrame({file, registry.internString("g")});
        QVERIFY(f != g);
        QCOMPARE(registry.internFrame({file, registry.internString("f")}), f);
        QVERIFY(registry.has(g));
        QVERIFY(!registry.has(FrameId{g.value() + 1}));

        IdVector<FrameId, int8_t> cache;
        QVERIFY(!cache.contains(g));
        QCOMPARE(cache.cover(g, -1), int8_t(-1)); // grows to reach g, filled
        QCOMPARE(cache.size(), g.index() + 1);
        cache[f] = 5;
        QCOMPARE(cache.cover(f, -1), int8_t(5)); // present: kept, not refilled
        QCOMPARE(cache.push_back(7), FrameId::fromIndex(g.index() + 1));
    }

    // The value of an error Result is a bug, and says so in release builds too: the child
    // that reads it aborts, naming the error.
    void resultMisuseAbortsLoudly() {
        const auto misuse = [](auto read, const char* expected) {
            int pipeFds[2];
            QVERIFY(pipe(pipeFds) == 0);
            const pid_t child = fork();
            QVERIFY(child >= 0);
            if (child == 0) {
                dup2(pipeFds[1], STDERR_FILENO);
                read();
                _exit(0); // not reached when the misuse is caught
            }
            close(pipeFds[1]);
            char text[512] = {};
            size_t got = 0;
            for (ssize_t n; (n = ::read(pipeFds[0], text + got, sizeof text - 1 - got)) > 0;)
                got += size_t(n);
            close(pipeFds[0]);
            int status = 0;
            QCOMPARE(waitpid(child, &status, 0), child);
            QVERIFY2(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT, text);
            QVERIFY2(QString(text).contains(expected), text);
        };
        misuse(
            [] {
                Result<int> r = makeError(ErrorKind::Io, "the disk said no");
                (void)r.value();
            },
            "Result::value() misused (the disk said no)");
        Result<int> fine = 7;
        QCOMPARE(fine.value(), 7);
        // error() of a value is empty, never a crash: tests pass it as QVERIFY2's message,
        // which is read whatever the outcome.
        QVERIFY(Status().error().message.empty());
    }

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

    void escapeForDisplayKeepsOneLine() {
        QCOMPARE(escapeForDisplay("/srv/app.py --flag"), std::string("/srv/app.py --flag"));
        QCOMPARE(escapeForDisplay("a\nb\tc\rd"), std::string(R"(a\nb\tc\rd)"));
        QCOMPARE(escapeForDisplay(R"(C:\dir)"), std::string(R"(C:\\dir)"));
        QCOMPARE(escapeForDisplay("\x1b[31mred\x7f"), std::string(R"(\x1b[31mred\x7f)"));
        // C1 controls (U+009B is a one-byte CSI) are escaped; other non-ASCII stays.
        QCOMPARE(escapeForDisplay("\xC2\x9B"
                                  "2J"),
                 std::string(R"(\x9b2J)"));
        QCOMPARE(escapeForDisplay("\xC2\xA0\xC3\xA9\xE6\x9D\xB1"),
                 std::string("\xC2\xA0\xC3\xA9\xE6\x9D\xB1"));
        QCOMPARE(escapeForDisplay("\xFF\xFE"), std::string("\xEF\xBF\xBD\xEF\xBF\xBD"));
        // Every string of two bytes comes out as valid UTF-8 without control characters.
        for (int a = 0; a < 256; ++a) {
            for (int b = 0; b < 256; ++b) {
                const char in[2] = {static_cast<char>(a), static_cast<char>(b)};
                const std::string out = escapeForDisplay(std::string_view(in, 2));
                QVERIFY(isValidUtf8(out));
                for (size_t i = 0; i < out.size(); ++i) {
                    const auto c = static_cast<uint8_t>(out[i]);
                    const bool c1 =
                        c == 0xC2 && i + 1 < out.size() && static_cast<uint8_t>(out[i + 1]) <= 0x9F;
                    if (c < 0x20 || c == 0x7F || c1)
                        QFAIL(qPrintable(
                            QStringLiteral("control character from %1 %2").arg(a).arg(b)));
                }
            }
        }
    }

    void surrogateEscapeMatchesPython() {
        // b.decode("utf-8", "surrogateescape") in Python gives these.
        QCOMPARE(decodeUtf8SurrogateEscape("\xFF"), std::u16string(u"\xDCFF"));
        QCOMPARE(decodeUtf8SurrogateEscape("a\xE2\x82"), std::u16string(u"a\xDCE2\xDC82"));
        QCOMPARE(decodeUtf8SurrogateEscape("\xED\xA0\x80"), std::u16string(u"\xDCED\xDCA0\xDC80"));
        // Valid UTF-8 decodes as any decoder does.
        const char* valid = "plain \xC3\xA9 \xE6\x9D\xB1 \xF0\x9F\x90\x8D";
        QCOMPARE(QString::fromStdU16String(decodeUtf8SurrogateEscape(valid)),
                 QString::fromUtf8(valid));
        // Surrogates that are not escaped bytes cannot be encoded: U+FFFD, not garbage.
        QCOMPARE(encodeUtf8SurrogateEscape(u"\xD800x\xDC41"),
                 std::string("\xEF\xBF\xBDx\xEF\xBF\xBD"));
    }

    void surrogateEscapeRoundTripsAnyBytes() {
        std::mt19937 rng(42);
        for (int n = 0; n < 20000; ++n) {
            std::string bytes(rng() % 9, '\0');
            for (char& c : bytes)
                c = static_cast<char>(rng() % 4 == 0 ? 0x80 + rng() % 0x80 : rng() % 256);
            const std::u16string text = decodeUtf8SurrogateEscape(bytes);
            if (encodeUtf8SurrogateEscape(text) != bytes)
                QFAIL(
                    qPrintable("no round trip for " + QByteArray::fromStdString(bytes).toHex(' ')));
        }
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
