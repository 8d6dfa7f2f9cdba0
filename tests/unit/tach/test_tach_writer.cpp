// The writer follows CPython's algorithm: fed CPython's own replay it reproduces the
// fixture files byte for byte, its statistics match CPython's writer, and whatever it
// writes our reader (and CPython's, see tests/integration/tach) reads back unchanged.
#include "core/sample/thread_status.h"
#include "core/tach/tach_reader.h"
#include "core/tach/tach_writer.h"
#include "core/tach/thread_names_file.h"
#include "core/util/temp_dir.h"
#include "tach_fixtures.h"
#include "tests/support/shared_dir.h"
#include "trace_sink.h"

#include <QTest>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <span>

using namespace gilscope;
using namespace gilscope::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

TachWriterOptions options(TachCompression compression) {
    TachWriterOptions o;
    o.compression = compression;
    return o;
}

// Replays into a writer as well as the caller's sink, so a test can inspect the
// writer's statistics just before finalize() as CPython's fixtures recorded them.
struct ForwardSink : SampleSink {
    TachWriter* writer;
    void begin(const FrameRegistry& r, const RecordingInfo& i) override { writer->begin(r, i); }
    void addBatch(const SampleBatch& b) override { writer->addBatch(b); }
    void finish(const RecordingSummary& s) override { writer->finish(s); }
};

// Feeds X.replay.jsonl calls to a sink as batches, with frames interned in `registry`.
void feedTrace(const std::vector<json>& calls, FrameRegistry& registry, const RecordingInfo& info,
               SampleSink& sink) {
    sink.begin(registry, info);
    std::vector<FrameId> frames;
    std::vector<uint64_t> timestamps;
    for (const json& c : calls) {
        frames.clear();
        for (const json& f : c["frames"]) {
            FrameInfo fi;
            fi.filename = registry.internString(f[0].get<std::string>());
            fi.funcname = registry.internString(f[2].get<std::string>());
            if (!f[1].is_null()) {
                fi.line = f[1][0];
                fi.endLine = f[1][1];
                fi.column = f[1][2];
                fi.endColumn = f[1][3];
            }
            if (!f[3].is_null()) fi.opcode = f[3].get<uint8_t>();
            frames.push_back(registry.internFrame(fi));
        }
        timestamps = c["timestamps_us"].get<std::vector<uint64_t>>();
        SampleBatch b;
        b.threadId = c["thread_id"];
        b.interpreterId = c["interpreter_id"];
        b.status = c["status"];
        b.frames = frames;
        b.timestampsUs = timestamps;
        sink.addBatch(b);
    }
}

// One thread-sample, with frames as strings, for order-insensitive-per-thread checks.
using FlatSample =
    std::tuple<uint64_t, uint32_t, uint64_t, uint32_t, json>; // tid, interp, ts, status, frames

std::vector<FlatSample> flatten(const std::vector<json>& calls) {
    std::vector<FlatSample> out;
    for (const json& c : calls)
        for (uint64_t ts : c["timestamps_us"])
            out.emplace_back(c["thread_id"], c["interpreter_id"], ts, c["status"], c["frames"]);
    // Per-thread order is chronological in both; file order across threads is not.
    std::stable_sort(out.begin(), out.end(), [](const FlatSample& a, const FlatSample& b) {
        return std::tie(std::get<0>(a), std::get<1>(a)) < std::tie(std::get<0>(b), std::get<1>(b));
    });
    return out;
}

// One frame in `registry`.
FrameId internTestFrame(FrameRegistry& registry, const char* file, const char* func, int line,
                        bool native = false) {
    FrameInfo f;
    f.filename = registry.internString(file);
    f.funcname = registry.internString(func);
    f.line = f.endLine = line;
    f.native = native;
    return registry.internFrame(f);
}

// A recording of one sample of thread 7 with `frames` (leaf first), at `out`.
bool writeOneSample(const fs::path& out, FrameRegistry& registry, std::span<const FrameId> frames) {
    auto writer = TachWriter::create(out);
    if (!writer.ok()) return false;
    (*writer)->begin(registry, RecordingInfo{});
    const uint64_t ts = 1000;
    SampleBatch b;
    b.threadId = 7;
    b.frames = frames;
    b.timestampsUs = std::span<const uint64_t>(&ts, 1);
    (*writer)->addBatch(b);
    (*writer)->finish(RecordingSummary{});
    return (*writer)->finalize().ok();
}

// The marks and thread names a replay hands on.
struct MarkerSink : TraceSink {
    std::vector<std::pair<uint64_t, std::string>> marks;
    std::map<uint64_t, std::string> names;
    void addMarker(uint64_t us, const std::string& text) override { marks.emplace_back(us, text); }
    void nameThread(uint64_t tid, const std::string& name) override { names[tid] = name; }
};

// Each replayed frame's FrameInfo::native, in order.
struct NativeFlags : SampleSink {
    const FrameRegistry* registry = nullptr;
    std::vector<bool> native;
    void begin(const FrameRegistry& r, const RecordingInfo&) override { registry = &r; }
    void addBatch(const SampleBatch& batch) override {
        for (FrameId f : batch.frames)
            native.push_back(registry->frame(f).native);
    }
};

} // namespace

class TestTachWriter : public QObject {
    Q_OBJECT
private slots:
    // CPython's writer made these uncompressed files; replaying them into ours must
    // reproduce every byte (same interning, encodings, deferred runs, footer, header).
    void rewritesUncompressedFixturesByteForByte_data() {
        QTest::addColumn<QString>("name");
        for (const char* n : {"tiny", "rle-long", "unicode"})
            QTest::newRow(n) << n;
    }
    void rewritesUncompressedFixturesByteForByte() {
        GILSCOPE_REQUIRE_SHARED();
        QFETCH(QString, name);
        const std::string base = name.toStdString();
        auto dir = TempDir::create("gilscope-tach-test");
        QVERIFY(dir.ok());
        const fs::path out = dir->path() / "out.bin";
        auto reader = TachReader::open(tachFixture(base + ".bin"));
        QVERIFY(reader.ok());
        auto writer = TachWriter::create(out, options(TachCompression::None));
        QVERIFY(writer.ok());
        ForwardSink forward;
        forward.writer = writer->get();
        QVERIFY(reader->replay(forward).ok());

        const json ws = readJson(tachFixture(base + ".info.json"))["writer_stats_before_finalize"];
        const TachRecordStats& s = (*writer)->stats();
        JCOMPARE(s.repeatRecords, ws["repeat_records"]);
        JCOMPARE(s.repeatSamples, ws["repeat_samples"]);
        JCOMPARE(s.fullRecords, ws["full_records"]);
        JCOMPARE(s.suffixRecords, ws["suffix_records"]);
        JCOMPARE(s.popPushRecords, ws["pop_push_records"]);
        JCOMPARE(s.totalRecords(), ws["total_records"]);
        JCOMPARE(s.totalSamples, ws["total_samples"]);
        JCOMPARE(s.totalFramesWritten, ws["total_frames_written"]);
        JCOMPARE(s.framesSaved, ws["frames_saved"]);
        JCOMPARE(s.bytesWritten, ws["bytes_written"]);
        JCOMPARE(s.frameCompressionPct(), ws["frame_compression_pct"]);

        QVERIFY(!fs::exists(out)); // nothing appears before finalize()
        auto done = (*writer)->finalize();
        QVERIFY2(done.ok(), done.ok() ? "" : done.error().message.c_str());
        QVERIFY(readFileBytes(out) == readFileBytes(tachFixture(base + ".bin")));
    }

    // Compressed fixtures: same records, read back through zstd, same calls.
    void zstdRoundTripKeepsCPythonCalls_data() {
        QTest::addColumn<QString>("name");
        for (const char* n : {"medium", "stats", "tiny", "unicode", "rle-long", "utf8-replace"})
            QTest::newRow(n) << n;
    }
    void zstdRoundTripKeepsCPythonCalls() {
        GILSCOPE_REQUIRE_SHARED();
        QFETCH(QString, name);
        const std::string base = name.toStdString();
        auto dir = TempDir::create("gilscope-tach-test");
        QVERIFY(dir.ok());
        const fs::path out = dir->path() / "out.bin";
        auto reader = TachReader::open(tachFixture(base + ".bin"));
        QVERIFY(reader.ok());
        auto writer = TachWriter::create(out);
        QVERIFY(writer.ok());
        ForwardSink forward;
        forward.writer = writer->get();
        QVERIFY(reader->replay(forward).ok());
        QVERIFY((*writer)->finalize().ok());

        auto again = TachReader::open(out);
        QVERIFY2(again.ok(), again.ok() ? "" : again.error().message.c_str());
        QCOMPARE(again->info().compression, 1u);
        const TachInfo &a = reader->info(), &b = again->info();
        QCOMPARE(b.sampleCount, a.sampleCount);
        QCOMPARE(b.threadCount, a.threadCount);
        QCOMPARE(b.startTimeUs, a.startTimeUs);
        QCOMPARE(b.sampleIntervalUs, a.sampleIntervalUs);
        QVERIFY(b.mode == a.mode);
        QVERIFY(b.captureFeatures == a.captureFeatures);
        QCOMPARE(b.stats.has_value(), a.stats.has_value());
        if (a.stats) {
            QCOMPARE(b.stats->durationSec, a.stats->durationSec);
            QVERIFY(b.stats->errorRatePct == a.stats->errorRatePct);
            QVERIFY(b.stats->missedPct == a.stats->missedPct);
        }
        TraceSink original(base == "medium"), rewritten(base == "medium");
        QVERIFY(reader->replay(original).ok());
        QVERIFY(again->replay(rewritten).ok());
        QCOMPARE(rewritten.calls.size(), original.calls.size());
        QVERIFY(rewritten.calls == original.calls);
        JCOMPARE(again->recordStats().totalRecords(), reader->recordStats().totalRecords());
    }

    // The samples of CPython's replay trace, written by us and read back, are the same.
    void replayTraceRoundTrips_data() {
        QTest::addColumn<QString>("name");
        for (const char* n : {"tiny", "stats", "unicode", "rle-long", "utf8-replace"})
            QTest::newRow(n) << n;
    }
    void replayTraceRoundTrips() {
        GILSCOPE_REQUIRE_SHARED();
        QFETCH(QString, name);
        const auto calls = readJsonLines(tachFixture(name.toStdString() + ".replay.jsonl"));
        auto dir = TempDir::create("gilscope-tach-test");
        QVERIFY(dir.ok());
        const fs::path out = dir->path() / "trace.bin";
        FrameRegistry registry;
        RecordingInfo info;
        info.startTimeUs = 5000000000;
        auto writer = TachWriter::create(out);
        QVERIFY(writer.ok());
        feedTrace(calls, registry, info, **writer);
        QVERIFY((*writer)->finalize().ok());
        auto reader = TachReader::open(out);
        QVERIFY(reader.ok());
        TraceSink back;
        QVERIFY(reader->replay(back).ok());
        QCOMPARE(back.calls.size(), calls.size());
        for (size_t i = 0; i < calls.size(); ++i)
            QVERIFY2(back.calls[i] == calls[i],
                     (back.calls[i].dump() + "\n" + calls[i].dump()).c_str());
    }

    // Live-like input: several threads and interpreters, one timestamp per batch,
    // stacks that grow, shrink, repeat and exceed 256 frames, ids and times near limits.
    void liveLikeSamplesRoundTrip() {
        auto dir = TempDir::create("gilscope-tach-test");
        QVERIFY(dir.ok());
        const fs::path out = dir->path() / "live.bin";
        FrameRegistry registry;
        std::vector<FrameId> pool;
        for (int i = 0; i < 400; ++i) {
            FrameInfo f;
            f.filename = registry.internString("/app/mod" + std::to_string(i % 7) + ".py");
            f.funcname = registry.internString("fn_" + std::to_string(i) +
                                               (i % 11 == 0 ? "_\xc3\xa9\xf0\x9f\x90\x8d" : ""));
            f.line = i % 13 == 0 ? -1 : i;
            f.endLine = f.line == -1 ? -1 : i + 2;
            f.column = i % 5 == 0 ? -1 : 4;
            f.endColumn = f.column == -1 ? -1 : 20;
            f.opcode = i % 3 == 0 ? 255 : static_cast<uint8_t>(i % 200);
            pool.push_back(registry.internFrame(f));
        }
        RecordingInfo info;
        info.startTimeUs = 1'000'000;
        info.sampleIntervalUs = 100;
        info.mode = 3;
        info.captureFeatures = 13;
        info.pythonMajor = 3;
        info.pythonMinor = 13;
        info.pythonMicro = 1;
        auto writer = TachWriter::create(out);
        QVERIFY(writer.ok());
        (*writer)->begin(registry, info);

        std::mt19937 rng(7);
        const std::vector<std::pair<uint64_t, uint32_t>> threads = {
            {1, 0}, {UINT64_MAX, 0}, {1, 1}, {424242, UINT32_MAX}};
        std::map<size_t, std::vector<FrameId>> stacks;
        std::vector<json> expected;
        uint64_t now = info.startTimeUs;
        for (int tick = 0; tick < 6000; ++tick) {
            now += 1 + rng() % 300;
            for (size_t t = 0; t < threads.size(); ++t) {
                auto& st = stacks[t];
                const unsigned r = rng() % 100;
                if (r < 60) { // unchanged
                } else if (r < 75)
                    st.insert(st.begin(), pool[rng() % pool.size()]); // call
                else if (r < 85 && !st.empty())
                    st.erase(st.begin()); // return
                else if (r < 95) {        // new leaf chain
                    st.resize(rng() % (st.size() + 1));
                    for (unsigned k = rng() % 5; k > 0; --k)
                        st.insert(st.begin(), pool[rng() % pool.size()]);
                } else { // something entirely different, sometimes very deep
                    st.clear();
                    for (unsigned k = rng() % (tick % 997 == 0 ? 400 : 30); k > 0; --k)
                        st.push_back(pool[rng() % pool.size()]);
                }
                const uint32_t status = (rng() % 4 == 0 ? ThreadStatus::HasGil : 0) |
                                        (t == 0 ? ThreadStatus::MainThread : 0);
                // A thread that goes back in time once (clock skew) must survive too.
                const uint64_t ts = (t == 3 && tick == 3000) ? now - 50000 : now;
                SampleBatch b;
                b.threadId = threads[t].first;
                b.interpreterId = threads[t].second;
                b.status = status;
                b.frames = st;
                b.timestampsUs = std::span<const uint64_t>(&ts, 1);
                (*writer)->addBatch(b);
                json frames = json::array();
                for (size_t k = 0; k < std::min<size_t>(st.size(), 256); ++k)
                    frames.push_back(frameJson(registry, st[k]));
                expected.push_back({{"interpreter_id", b.interpreterId},
                                    {"thread_id", b.threadId},
                                    {"status", status},
                                    {"timestamps_us", {ts}},
                                    {"frames", frames}});
            }
        }
        RecordingSummary summary;
        summary.durationSec = 2.5;
        summary.sampleRate = 8000;
        summary.hasErrorRate = true;
        summary.errorRatePct = 1.25;
        (*writer)->finish(summary);
        QVERIFY((*writer)->finalize().ok());

        auto reader = TachReader::open(out);
        QVERIFY2(reader.ok(), reader.ok() ? "" : reader.error().message.c_str());
        QCOMPARE(reader->info().sampleCount, uint64_t{24000});
        QCOMPARE(reader->info().threadCount, 4u);
        QCOMPARE(reader->info().pythonMinor, uint8_t{13});
        QVERIFY(reader->info().mode == 3);
        QVERIFY(reader->info().captureFeatures == 13);
        QVERIFY(reader->info().stats.has_value());
        QCOMPARE(reader->info().stats->sampleRate, 8000.0);
        QVERIFY(reader->info().stats->errorRatePct == 1.25);
        QVERIFY(!reader->info().stats->missedPct.has_value());
        TraceSink back;
        QVERIFY(reader->replay(back).ok());
        QVERIFY(back.calls.size() < expected.size()); // run-length records were used
        const auto got = flatten(back.calls), want = flatten(expected);
        QCOMPARE(got.size(), want.size());
        for (size_t i = 0; i < want.size(); ++i) {
            if (got[i] != want[i]) QFAIL(("sample " + std::to_string(i) + " differs").c_str());
        }
    }

    // A header that declares fewer threads than the records hold: CPython's message.
    void moreThreadsThanDeclaredIsAnError() {
        auto dir = TempDir::create("gilscope-tach-test");
        QVERIFY(dir.ok());
        const fs::path out = dir->path() / "threads.bin";
        FrameRegistry registry;
        const FrameId id = internTestFrame(registry, "a.py", "f", 0);
        auto writer = TachWriter::create(out, options(TachCompression::None));
        QVERIFY(writer.ok());
        (*writer)->begin(registry, {});
        for (uint64_t tid : {7, 8}) {
            const uint64_t ts = 100;
            SampleBatch b;
            b.threadId = tid;
            b.frames = std::span<const FrameId>(&id, 1);
            b.timestampsUs = std::span<const uint64_t>(&ts, 1);
            (*writer)->addBatch(b);
        }
        QVERIFY((*writer)->finalize().ok());
        std::string bytes = readFileBytes(out);
        bytes[36] = 1; // thread_count u32 at offset 36
        std::ofstream(out, std::ios::binary | std::ios::trunc) << bytes;
        auto reader = TachReader::open(out);
        QVERIFY(reader.ok());
        TraceSink sink;
        auto n = reader->replay(sink);
        QVERIFY(!n.ok());
        QCOMPARE(n.error().message,
                 std::string("Invalid thread count: sample data contains more unique threads than "
                             "declared in header (declared 1, found at least 2)"));
        QCOMPARE(sink.calls.size(), size_t{1});
    }

    void abandonedWriterLeavesNoFile() {
        auto dir = TempDir::create("gilscope-tach-test");
        QVERIFY(dir.ok());
        const fs::path out = dir->path() / "abandoned.bin";
        {
            auto writer = TachWriter::create(out);
            QVERIFY(writer.ok());
            FrameRegistry registry;
            (*writer)->begin(registry, {});
            const uint64_t ts = 5;
            SampleBatch b;
            b.timestampsUs = std::span<const uint64_t>(&ts, 1);
            (*writer)->addBatch(b);
        }
        QVERIFY(fs::is_empty(dir->path()));
    }

    void unwritableDestinationIsReported() {
        auto writer = TachWriter::create("/nonexistent-dir/out.bin");
        QVERIFY(!writer.ok());
        QVERIFY(writer.error().message.find("/nonexistent-dir") != std::string::npos);
    }

    void misuseIsAnErrorNotACrash() {
        auto dir = TempDir::create("gilscope-tach-test");
        QVERIFY(dir.ok());
        auto writer = TachWriter::create(dir->path() / "x.bin");
        QVERIFY(writer.ok());
        const uint64_t ts = 5;
        SampleBatch b;
        b.timestampsUs = std::span<const uint64_t>(&ts, 1);
        (*writer)->addBatch(b); // before begin()
        QVERIFY((*writer)->failed());
        QVERIFY(!(*writer)->finalize().ok());
        QVERIFY(!(*writer)->finalize().ok());
        QVERIFY(!fs::exists(dir->path() / "x.bin"));
    }

    // A .bin has no native flag: with the side file's "native_frames", --native-stacks' C
    // frames come back native from how they look (a library, no line), and Python or
    // synthetic frames without a line do not.
    void nativeFramesComeBackNative() {
        auto dir = TempDir::create("gilscope-tach-test");
        QVERIFY(dir.ok());
        const fs::path out = dir->path() / "native.bin";
        FrameRegistry registry;
        auto frame = [&](const char* file, const char* func, int line, bool native) {
            return internTestFrame(registry, file, func, line, native);
        };
        const std::vector<std::pair<FrameId, bool>> stack = {
            {frame("/app/cb.py", "py_cmp", 3, false), false},
            {frame("/usr/lib/x86_64-linux-gnu/libc.so.6", "msort_with_tmp", -1, true), true},
            {frame("/opt/libdemo.so", "demo::Visitor<int>::visit(int (*)(int), int)", -1, true),
             true},
            {frame("python3.11", "python3.11+0x1f2e0", -1, true), true},
            {frame("/app/no_line.py", "sort_forever", -1, false), false},
            {frame("/usr/bin/tool", "<module>", -1, false), false},
            {frame("~", "<GC>", -1, false), false},
            {frame("<frozen runpy>", "_run_code", -1, false), false}};
        std::vector<FrameId> ids;
        for (const auto& [id, native] : stack)
            ids.push_back(id);
        QVERIFY(writeOneSample(out, registry, ids));
        NativeFlags back;
        auto reader = TachReader::open(out);
        QVERIFY(reader.ok());
        QVERIFY(reader->replay(back).ok());
        QCOMPARE(back.native.size(), stack.size());
        for (size_t i = 0; i < stack.size(); ++i)
            QVERIFY2(back.native[i] == stack[i].second, std::to_string(i).c_str());

        // Without the side file that says it holds C frames, it is read as CPython's own
        // recordings are: every frame Python's.
        QVERIFY(fs::remove(threadNamesPath(out)));
        back.native.clear();
        auto bare = TachReader::open(out);
        QVERIFY(bare.ok());
        QVERIFY(!bare->info().nativeFrames);
        QVERIFY(bare->replay(back).ok());
        QCOMPARE(back.native.size(), stack.size());
        QVERIFY(std::none_of(back.native.begin(), back.native.end(), [](bool n) { return n; }));
    }

    // A recording without C frames keeps a frame that only looks like one Python's: CPython's
    // sampler can store a torn frame as file "__init__", function "__init__", no line
    // (seen in a CPython 3.15 recording; CPython's replay shows it as Python code).
    void lookalikeFrameStaysPythonWithoutNativeStacks() {
        auto dir = TempDir::create("gilscope-tach-test");
        QVERIFY(dir.ok());
        const fs::path out = dir->path() / "plain.bin";
        FrameRegistry registry;
        const FrameId id = internTestFrame(registry, "__init__", "__init__", -1);
        QVERIFY(writeOneSample(out, registry, std::span<const FrameId>(&id, 1)));
        QVERIFY(!fs::exists(threadNamesPath(out))); // nothing to say beside it
        auto reader = TachReader::open(out);
        QVERIFY(reader.ok());
        NativeFlags back;
        QVERIFY(reader->replay(back).ok());
        QCOMPARE(back.native, std::vector<bool>{false});
    }

    // The control socket's flush: a checkpoint is a whole file of the samples so far (with
    // its names and marks beside it), taken while the writer goes on; the writer's own file
    // still holds every sample. Stacks that run on across a checkpoint (pending runs), a
    // deep stack and both compressions.
    void checkpointsAreWholeFilesWhileTheWriterGoesOn_data() {
        QTest::addColumn<int>("compression");
        QTest::newRow("zstd") << int(TachCompression::Zstd);
        QTest::newRow("raw") << int(TachCompression::None);
    }
    void checkpointsAreWholeFilesWhileTheWriterGoesOn() {
        QFETCH(int, compression);
        auto dir = TempDir::create("gilscope-tach-test");
        QVERIFY(dir.ok());
        const fs::path out = dir->path() / "whole.bin";
        FrameRegistry registry;
        std::vector<FrameId> pool;
        for (int i = 0; i < 50; ++i)
            pool.push_back(
                internTestFrame(registry, "/app/m.py", ("f" + std::to_string(i)).c_str(), i + 1));
        auto writer = TachWriter::create(out, options(TachCompression(compression)));
        QVERIFY(writer.ok());
        RecordingInfo info;
        info.startTimeUs = 5'000'000;
        (*writer)->begin(registry, info);
        QCOMPARE((*writer)->checkpoint(dir->path() / "none.bin").error().kind,
                 ErrorKind::NoSamples);
        QVERIFY(!fs::exists(dir->path() / "none.bin"));
        (*writer)->nameThread(1, "main worker");

        std::mt19937 rng(3);
        std::vector<json> expected;
        std::vector<FrameId> stacks[2];
        json stacksJson[2] = {json::array(), json::array()}; // as the file keeps them
        uint64_t now = info.startTimeUs;
        const auto tick = [&] {
            now += 100;
            for (uint64_t t = 0; t < 2; ++t) {
                auto& st = stacks[t];
                if (rng() % 10 == 0) { // mostly the same stack: runs pend across checkpoints
                    st.clear();
                    for (unsigned k = 1 + rng() % (t == 1 ? 300 : 8); k > 0; --k)
                        st.push_back(pool[rng() % pool.size()]);
                    stacksJson[t] = json::array();
                    for (size_t k = 0; k < std::min<size_t>(st.size(), 256); ++k)
                        stacksJson[t].push_back(frameJson(registry, st[k]));
                }
                SampleBatch b;
                b.threadId = t + 1;
                b.frames = st;
                b.timestampsUs = std::span<const uint64_t>(&now, 1);
                (*writer)->addBatch(b);
                expected.push_back({{"interpreter_id", 0},
                                    {"thread_id", b.threadId},
                                    {"status", 0},
                                    {"timestamps_us", {now}},
                                    {"frames", stacksJson[t]}});
            }
        };
        const auto samplesIn = [](const fs::path& bin, MarkerSink& back) -> QString {
            auto reader = TachReader::open(bin);
            if (!reader.ok()) return QString::fromStdString(reader.error().message);
            if (!reader->replay(back).ok()) return "replay failed";
            return {};
        };
        for (int round = 1; round <= 3; ++round) {
            for (int i = 0; i < 1000; ++i)
                tick();
            (*writer)->addMarker(now, "round " + std::to_string(round));
            const fs::path so = dir->path() / ("so-far-" + std::to_string(round) + ".bin");
            const Status s = (*writer)->checkpoint(so);
            QVERIFY2(s.ok(), s.ok() ? "" : s.error().message.c_str());
            MarkerSink back;
            const QString why = samplesIn(so, back);
            QVERIFY2(why.isEmpty(), qPrintable(why));
            QCOMPARE(flatten(back.calls), flatten(expected));
            QCOMPARE(back.marks.size(), size_t(round));
            QCOMPARE(back.marks.back(), std::make_pair(now, "round " + std::to_string(round)));
            QCOMPARE(back.names[1], std::string("main worker"));
        }
        for (int i = 0; i < 500; ++i)
            tick();
        QVERIFY((*writer)->finalize().ok());
        MarkerSink whole;
        const QString why = samplesIn(out, whole);
        QVERIFY2(why.isEmpty(), qPrintable(why));
        QCOMPARE(flatten(whole.calls), flatten(expected));
        QCOMPARE(whole.marks.size(), size_t(3));
        QVERIFY2(!(*writer)->checkpoint(dir->path() / "late.bin").ok(), "after finalize()");
    }

    // Marks travel in the side file, cut to kMaxMarkerText (never inside a UTF-8
    // character) and at most kMaxSideMarkers of them.
    void marksAreKeptBesideTheFile() {
        auto dir = TempDir::create("gilscope-tach-test");
        QVERIFY(dir.ok());
        const fs::path out = dir->path() / "marks.bin";
        FrameRegistry registry;
        const FrameId f = internTestFrame(registry, "/app/m.py", "f", 1);
        auto writer = TachWriter::create(out);
        QVERIFY(writer.ok());
        (*writer)->begin(registry, RecordingInfo{});
        std::string longText(kMaxMarkerText - 1, 'x');
        longText += "\xc3\xa9 and more"; // é across the cut
        (*writer)->addMarker(10, longText);
        for (size_t i = 1; i < kMaxSideMarkers + 5; ++i)
            (*writer)->addMarker(10 + i, "m" + std::to_string(i));
        const uint64_t ts = 20;
        SampleBatch b;
        b.threadId = 1;
        b.frames = std::span<const FrameId>(&f, 1);
        b.timestampsUs = std::span<const uint64_t>(&ts, 1);
        (*writer)->addBatch(b);
        QVERIFY((*writer)->finalize().ok());
        auto reader = TachReader::open(out);
        QVERIFY(reader.ok());
        MarkerSink back;
        QVERIFY(reader->replay(back).ok());
        QCOMPARE(back.marks.size(), kMaxSideMarkers);
        QCOMPARE(back.marks[0].second, std::string(kMaxMarkerText - 1, 'x'));
        QCOMPARE(back.marks[1].second, std::string("m1"));
    }

    void emptyRecordingIsValid() {
        auto dir = TempDir::create("gilscope-tach-test");
        QVERIFY(dir.ok());
        for (auto compression : {TachCompression::None, TachCompression::Zstd}) {
            const fs::path out = dir->path() / "empty.bin";
            auto writer = TachWriter::create(out, options(compression));
            QVERIFY(writer.ok());
            QVERIFY((*writer)->finalize().ok());
            auto reader = TachReader::open(out);
            QVERIFY2(reader.ok(), reader.ok() ? "" : reader.error().message.c_str());
            TraceSink sink;
            auto n = reader->replay(sink);
            QVERIFY(n.ok());
            QCOMPARE(*n, uint64_t{0});
            QCOMPARE(reader->info().pythonMajor, uint8_t{3});
            QCOMPARE(reader->info().pythonMinor, uint8_t{15});
        }
    }
};

QTEST_GUILESS_MAIN(TestTachWriter)
#include "test_tach_writer.moc"
