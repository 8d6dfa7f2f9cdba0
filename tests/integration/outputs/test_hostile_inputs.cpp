// The hostile-input run CI executes (well under 2 minutes): a seeded set of truncated
// and bit-flipped `.bin` files, from CPython's fixtures and from files this test writes,
// each replayed and inspected by the real binary; and `-o` aimed at a symlink, a
// device, a FIFO, a read-only directory and a missing one. Every case must end with
// CPython's message or a clear one of ours: never a crash, a hang, an "internal
// error" (exit 1), or a half-written output.
#include "core/common/error.h"
#include "core/sample/frame_registry.h"
#include "core/tach/tach_writer.h"
#include "core/util/temp_dir.h"
#include "core/util/unique_fd.h"
#include "output_test_support.h"
#include "tests/integration/record/record_test_helpers.h"
#include "tests/support/run_gilscope.h"
#include "tests/support/shared_dir.h"

#include <QTest>

#include <fcntl.h>
#include <filesystem>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

using namespace gilscope;
using namespace gilscope::test;
namespace fs = std::filesystem;

namespace {

constexpr uint32_t kSeed = 20261130;
constexpr int kMutationsPerFile = 24;
constexpr int kRunMs = 20000; // one replay of a fixture takes milliseconds

QString q(const fs::path& p) {
    return QString::fromStdString(p.string());
}

FrameId makeFrame(FrameRegistry& r, const std::string& file, const std::string& func, int line) {
    FrameInfo f;
    f.filename = r.internString(file);
    f.funcname = r.internString(func);
    f.line = f.endLine = line;
    return r.internFrame(f);
}

// A .bin of a few threads and stacks, written by gilscope's own writer.
std::string ownBin(const fs::path& dir, TachCompression compression) {
    FrameRegistry registry;
    std::vector<FrameId> frames;
    for (int i = 0; i < 6; ++i)
        frames.push_back(makeFrame(registry, "mod" + std::to_string(i % 2) + ".py",
                                   "f" + std::to_string(i), 10 + i));
    const fs::path path =
        dir / (compression == TachCompression::Zstd ? "own-zstd.bin" : "own-raw.bin");
    TachWriterOptions options;
    options.compression = compression;
    auto writer = TachWriter::create(path, options);
    if (!writer.ok()) return {};
    RecordingInfo info;
    info.sampleIntervalUs = 1000;
    info.startTimeUs = 5;
    (*writer)->begin(registry, info);
    std::mt19937 rng(kSeed);
    for (uint64_t t = 0; t < 2000; ++t) {
        const size_t depth = 1 + rng() % frames.size();
        const uint64_t ts = 5 + t * 1000;
        SampleBatch b;
        b.threadId = 100 + rng() % 3;
        b.status = rng() % 16;
        b.frames = std::span<const FrameId>(frames.data(), depth);
        b.timestampsUs = std::span<const uint64_t>(&ts, 1);
        (*writer)->addBatch(b);
    }
    RecordingSummary summary;
    summary.durationSec = 2;
    summary.sampleRate = 1000;
    (*writer)->finish(summary);
    if (!(*writer)->finalize().ok()) return {};
    return readText(path);
}

struct Mutation {
    QString name;
    std::string bytes;
};

std::vector<Mutation> mutate(const QString& base, const std::string& good, std::mt19937& rng) {
    std::vector<Mutation> out;
    if (good.empty()) return out;
    const size_t n = good.size();
    for (int i = 0; i < kMutationsPerFile; ++i) {
        std::string bytes = good;
        QString what;
        switch (i % 5) {
        case 0: { // truncation anywhere
            const size_t at = rng() % n;
            bytes.resize(at);
            what = QString("truncated at %1").arg(at);
            break;
        }
        case 1:   // a flip in the header (counts, offsets, flags)
        case 2: { // ... or in the tables and footer at the end
            const size_t span = std::min<size_t>(n, 64);
            const size_t at = i % 5 == 1 ? rng() % span : n - 1 - rng() % span;
            const int bit = static_cast<int>(rng() % 8);
            bytes[at] = static_cast<char>(bytes[at] ^ (1 << bit));
            what = QString("bit %1 of byte %2 flipped").arg(bit).arg(at);
            break;
        }
        case 3: { // a few flips anywhere (the record stream)
            what = "flips at";
            for (int k = 0; k < 4; ++k) {
                const size_t at = rng() % n;
                bytes[at] = static_cast<char>(bytes[at] ^ (1 << (rng() % 8)));
                what += QString(" %1").arg(at);
            }
            break;
        }
        default: { // a 32-bit field overwritten with a huge count or offset
            const size_t at = (rng() % std::max<size_t>(1, n / 4)) * 4 % std::max<size_t>(1, n - 4);
            const uint32_t v = (rng() % 2) ? 0xFFFFFFFFu : 0x7FFFFFF0u;
            std::memcpy(bytes.data() + at, &v, 4);
            what = QString("u32 at %1 set to %2").arg(at).arg(v);
            break;
        }
        }
        out.push_back({base + ": " + what, std::move(bytes)});
    }
    return out;
}

// What every outcome must look like.
QString judge(const RunResult& r, const fs::path& outDir, bool replay) {
    if (!r.finished) return "did not finish (hang or crash): " + describe(r);
    if (r.exitCode == 0) {
        if (!replay) return {};
        bool ok = false;
        parseCollapsed(QByteArray::fromStdString(readText(outDir / "out.txt")), &ok);
        if (!ok) return "exit 0 but the output is malformed";
        return {};
    }
    static const QList<int> allowed = {exitCodeFor(ErrorKind::CorruptFile),
                                       exitCodeFor(ErrorKind::NoSamples)};
    if (!allowed.contains(r.exitCode)) return "unexpected exit code: " + describe(r);
    const QString last = r.err.trimmed().split('\n').last();
    if (!last.startsWith("gilscope: ") || last.size() > 400)
        return "no clear message: " + describe(r);
    if (replay && !entriesOf(outDir).isEmpty())
        return "a failed replay left files: " + entriesOf(outDir).join(' ');
    return {};
}

} // namespace

class TestHostileInputs : public QObject {
    Q_OBJECT

private slots:
    void mutatedRecordings() {
        auto dir = TempDir::create("gilscope-hostile");
        QVERIFY(dir.ok());
        std::vector<std::pair<QString, std::string>> seeds = {
            {"own-zstd", ownBin(dir->path(), TachCompression::Zstd)},
            {"own-raw", ownBin(dir->path(), TachCompression::None)}};
        if (haveSharedDir())
            for (const char* f :
                 {"tiny", "rle-long", "stats", "unicode", "utf8-replace", "real-315"})
                seeds.push_back({f, readText(tachFixture(QString(f) + ".bin").toStdString())});
        else
            qInfo("../shared is missing: only self-written files are mutated");
        std::mt19937 rng(kSeed);
        const fs::path outDir = dir->path() / "out";
        int cases = 0;
        QStringList failures;
        for (const auto& [name, good] : seeds) {
            QVERIFY2(!good.empty(), qPrintable(name));
            for (const Mutation& m : mutate(name, good, rng)) {
                const fs::path input = dir->path() / "input.bin";
                writeText(input, m.bytes);
                fs::remove_all(outDir);
                fs::create_directory(outDir);
                // info (reads only) runs beside replay: the run takes half the time.
                auto infoProcess = startGilscope({"info", q(input)}, q(outDir));
                const auto replay =
                    runGilscope({"replay", q(input), "--collapsed", "-o", q(outDir / "out.txt")},
                                q(outDir), kRunMs);
                if (QString why = judge(replay, outDir, true); !why.isEmpty())
                    failures << m.name + " (replay): " + why;
                RunResult info;
                info.started = infoProcess != nullptr;
                info.finished = info.started && infoProcess->waitForFinished(kRunMs) &&
                                infoProcess->exitStatus() == QProcess::NormalExit;
                if (info.finished) {
                    info.exitCode = infoProcess->exitCode();
                    info.errBytes = infoProcess->readAllStandardError();
                    info.err = QString::fromUtf8(info.errBytes);
                } else if (infoProcess) {
                    infoProcess->kill();
                    infoProcess->waitForFinished();
                }
                if (QString why = judge(info, outDir, false); !why.isEmpty())
                    failures << m.name + " (info): " + why;
                ++cases;
            }
        }
        qInfo("%d mutated recordings, each through info and replay", cases);
        QVERIFY2(failures.isEmpty(), qPrintable(failures.join("\n")));
    }

    void hostileOutputPaths() {
        GILSCOPE_REQUIRE_SHARED();
        auto dir = TempDir::create("gilscope-hostile");
        QVERIFY(dir.ok());
        const fs::path d = dir->path();
        const QString input = tachFixture("medium.bin");
        auto replayTo = [&](const fs::path& out) {
            return runGilscope({"replay", input, "--collapsed", "-o", q(out)}, q(d), kRunMs);
        };

        // A symlink: followed, the link stays.
        writeText(d / "real.txt", "old");
        fs::create_symlink("real.txt", d / "link.txt");
        auto r = replayTo(d / "link.txt");
        QVERIFY2(r.exitCode == 0 && fs::is_symlink(d / "link.txt") &&
                     readText(d / "real.txt") != "old",
                 qPrintable(describe(r)));

        // A device: written directly, a clear error, the node stays.
        const fs::path full = fullDevice(d);
        r = replayTo(full);
        QVERIFY2(r.exitCode == exitCodeFor(ErrorKind::DiskFull) && fs::is_character_file(full) &&
                     r.err.contains("No space left on device"),
                 qPrintable(describe(r)));

        // A FIFO: its reader gets the output.
        const fs::path fifo = d / "out.fifo";
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        UniqueFd reader(::open(fifo.c_str(), O_RDONLY | O_NONBLOCK));
        auto p = startGilscope({"replay", input, "--collapsed", "-o", q(fifo)});
        QVERIFY(p);
        QByteArray got;
        char buf[65536];
        for (;;) {
            const ssize_t n = ::read(reader.get(), buf, sizeof buf);
            if (n > 0) got.append(buf, n);
            if (n == 0 && p->state() == QProcess::NotRunning) break;
            if (n <= 0) p->waitForFinished(20);
        }
        bool ok = false;
        QVERIFY(p->exitCode() == 0 && totalSamples(parseCollapsed(got, &ok)) > 0 && ok);
        QVERIFY(fs::is_fifo(fifo));

        // A read-only directory and a missing one: a clear error, nothing created.
        const fs::path ro = d / "ro";
        TmpfsMount mount(ro, 1 << 20, true);
        if (!mount.mounted()) {
            fs::create_directory(ro);
            ::chmod(ro.c_str(), 0555);
        }
        r = replayTo(ro / "x.txt");
        QVERIFY2(r.exitCode == exitCodeFor(ErrorKind::PermissionDenied) && entriesOf(ro).isEmpty(),
                 qPrintable(describe(r)));
        r = replayTo(d / "missing" / "x.txt");
        QVERIFY2(r.exitCode == exitCodeFor(ErrorKind::Io) && r.err.contains("does not exist") &&
                     !fs::exists(d / "missing"),
                 qPrintable(describe(r)));
    }
};

QTEST_GUILESS_MAIN(TestHostileInputs)
#include "test_hostile_inputs.moc"
