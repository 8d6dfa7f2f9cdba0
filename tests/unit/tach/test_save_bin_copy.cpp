// saveBinCopy(): a recording's `.bin` copy saved for the user is byte-identical and
// readable; a cancel or a write error leaves no partial file and an existing file as
// it was; missing source or directory are explained.
#include "core/sample/frame_registry.h"
#include "core/tach/recording_copy.h"
#include "core/tach/save_bin_copy.h"
#include "core/tach/tach_reader.h"
#include "core/tach/tach_writer.h"
#include "core/util/temp_dir.h"
#include "tests/support/file_size_limit.h"

#include <QTest>

#include <fstream>
#include <random>
#include <string>

using namespace gilscope;
namespace fs = std::filesystem;

namespace {

std::string readAll(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

void writeAll(const fs::path& p, const std::string& bytes) {
    std::ofstream(p, std::ios::binary) << bytes;
}

// Bytes that zstd cannot shrink, several copy chunks long.
std::string randomBytes(size_t n) {
    std::mt19937 rng(42);
    std::string s(n, '\0');
    for (char& c : s)
        c = static_cast<char>(rng());
    return s;
}

int entriesIn(const fs::path& dir) {
    int n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir))
        ++n;
    return n;
}

class CountingSink : public SampleSink {
public:
    void addBatch(const SampleBatch& b) override { samples += b.timestampsUs.size(); }
    uint64_t samples = 0;
};

// A small real recording: two threads, `ticks` samples each.
Status writeRecording(const fs::path& path, int ticks) {
    FrameRegistry registry;
    FrameInfo f;
    f.filename = registry.internString("/app/work.py");
    f.funcname = registry.internString("spin");
    f.line = 3;
    const FrameId frame = registry.internFrame(f);
    RecordingInfo info;
    info.startTimeUs = 1'000'000;
    info.pythonMajor = 3;
    info.pythonMinor = 12;
    auto writer = TachWriter::create(path);
    if (!writer) return writer.error();
    (*writer)->begin(registry, info);
    for (int tick = 0; tick < ticks; ++tick) {
        const uint64_t ts = info.startTimeUs + 1000 * uint64_t(tick);
        for (uint64_t thread : {1, 2}) {
            SampleBatch b;
            b.threadId = thread;
            b.frames = std::span<const FrameId>(&frame, 1);
            b.timestampsUs = std::span<const uint64_t>(&ts, 1);
            (*writer)->addBatch(b);
        }
    }
    (*writer)->finish({});
    return (*writer)->finalize();
}

} // namespace

class TestSaveBinCopy : public QObject {
    Q_OBJECT
private slots:
    void savedRecordingIsIdenticalAndReadable() {
        auto dir = TempDir::create("gilscope-test");
        QVERIFY(dir.ok());
        const fs::path source = dir->path() / "private.bin";
        const Status written = writeRecording(source, 500);
        QVERIFY2(written, written ? "" : written.error().message.c_str());
        const fs::path dest = dir->path() / "saved.bin";
        uint64_t lastDone = 0, lastTotal = 0;
        const Status saved =
            saveBinCopy(source, dest, [&](uint64_t d, uint64_t t) { lastDone = d, lastTotal = t; });
        QVERIFY2(saved, saved ? "" : saved.error().message.c_str());
        QCOMPARE(readAll(dest), readAll(source));
        QCOMPARE(lastTotal, uint64_t(fs::file_size(source)));
        QCOMPARE(lastDone, lastTotal);
        QCOMPARE(entriesIn(dir->path()), 2); // no temporary file left behind

        auto reader = TachReader::open(dest);
        QVERIFY2(reader, reader ? "" : reader.error().message.c_str());
        QCOMPARE(reader->info().sampleCount, uint64_t(1000));
        QCOMPARE(int(reader->info().pythonMinor), 12);
        CountingSink sink;
        auto replayed = reader->replay(sink);
        QVERIFY2(replayed, replayed ? "" : replayed.error().message.c_str());
        QCOMPARE(sink.samples, uint64_t(1000));
    }

    void cancelLeavesNoFileAndKeepsTheExistingOne() {
        auto dir = TempDir::create("gilscope-test");
        QVERIFY(dir.ok());
        const fs::path source = dir->path() / "private.bin";
        writeAll(source, randomBytes(3 << 20));
        const fs::path dest = dir->path() / "saved.bin";
        writeAll(dest, "an older recording");
        CancelToken cancel;
        uint64_t copied = 0;
        const Status saved = saveBinCopy(
            source, dest,
            [&](uint64_t done, uint64_t) {
                copied = done;
                if (done > 0) cancel.cancel(); // after the first chunk
            },
            &cancel);
        QVERIFY(!saved);
        QCOMPARE(saved.error().kind, ErrorKind::Cancelled);
        QVERIFY(copied > 0 && copied < fs::file_size(source));
        QCOMPARE(readAll(dest), std::string("an older recording"));
        QCOMPARE(entriesIn(dir->path()), 2);
    }

    void writeErrorLeavesNoFileAndKeepsTheExistingOne() {
        auto dir = TempDir::create("gilscope-test");
        QVERIFY(dir.ok());
        const fs::path source = dir->path() / "private.bin";
        writeAll(source, randomBytes(3 << 20));
        const fs::path dest = dir->path() / "saved.bin";
        writeAll(dest, "an older recording");
        Status saved;
        {
            test::FileSizeLimit limit(1 << 20);
            QVERIFY(limit.active());
            saved = saveBinCopy(source, dest);
        }
        QVERIFY(!saved);
        QVERIFY(saved.error().kind != ErrorKind::Cancelled);
        QVERIFY2(saved.error().message.find(dest.string()) != std::string::npos,
                 saved.error().message.c_str());
        QCOMPARE(readAll(dest), std::string("an older recording"));
        QCOMPARE(entriesIn(dir->path()), 2);
    }

    void missingSourceOrDirectoryIsExplained() {
        auto dir = TempDir::create("gilscope-test");
        QVERIFY(dir.ok());
        const fs::path missing = dir->path() / "gone.bin";
        const fs::path dest = dir->path() / "saved.bin";
        const Status noSource = saveBinCopy(missing, dest);
        QVERIFY(!noSource);
        QVERIFY2(noSource.error().message.find(missing.string()) != std::string::npos,
                 noSource.error().message.c_str());
        QVERIFY(!fs::exists(dest));

        const fs::path source = dir->path() / "private.bin";
        writeAll(source, "bytes");
        const fs::path nowhere = dir->path() / "no-such-dir" / "saved.bin";
        const Status noDir = saveBinCopy(source, nowhere);
        QVERIFY(!noDir);
        QVERIFY2(noDir.error().message.find(nowhere.string()) != std::string::npos,
                 noDir.error().message.c_str());
        QCOMPARE(entriesIn(dir->path()), 1);
    }

    // Issue 18 item 1: a recording whose export failed is kept beside the destination
    // (never over an existing file), else in the cache directory; the note says where
    // and the replay command that finishes the job.
    void rescueGoesBesideTheDestinationElseIntoTheCache() {
        auto dir = TempDir::create("gilscope-test");
        QVERIFY(dir.ok());
        const fs::path copy = dir->path() / "private.bin";
        writeAll(copy, "a recording");
        const fs::path out = dir->path() / "out dir";
        fs::create_directories(out);
        writeAll(out / "p.json.rescued.bin", "an older rescue");

        auto beside = rescueRecording(copy, out / "p.json");
        QVERIFY2(beside.ok(), beside.ok() ? "" : beside.error().message.c_str());
        QCOMPARE(beside->string(), (out / "p.json.rescued-2.bin").string());
        QCOMPARE(readAll(*beside), std::string("a recording"));
        QCOMPARE(readAll(out / "p.json.rescued.bin"), std::string("an older rescue"));
        const std::string note = rescueNote(beside, "--gecko", out / "p.json");
        QVERIFY2(note.find("gilscope replay '" + beside->string() + "' --gecko -o '" +
                           (out / "p.json").string() + "'") != std::string::npos,
                 note.c_str());

        // The destination's directory cannot take it: the cache can.
        const QByteArray savedCache = qgetenv("XDG_CACHE_HOME");
        qputenv("XDG_CACHE_HOME", QByteArray::fromStdString((dir->path() / "cache").string()));
        auto cached = rescueRecording(copy, dir->path() / "missing" / "p.json");
        if (savedCache.isNull())
            qunsetenv("XDG_CACHE_HOME");
        else
            qputenv("XDG_CACHE_HOME", savedCache);
        QVERIFY2(cached.ok(), cached.ok() ? "" : cached.error().message.c_str());
        QCOMPARE(cached->string(),
                 (dir->path() / "cache" / "gilscope" / "rescued" / "p.json.rescued.bin").string());
        QCOMPARE(readAll(*cached), std::string("a recording"));
    }
};

QTEST_GUILESS_MAIN(TestSaveBinCopy)
#include "test_save_bin_copy.moc"
