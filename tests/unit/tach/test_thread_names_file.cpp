// The names file beside a `.bin` (core/tach/thread_names_file.h): written by TachWriter when
// threads were named, replayed by TachReader, left out of the `.bin` itself (which stays
// CPython's bytes), and ignored when it belongs to another recording or is not one.
#include "core/sample/frame_registry.h"
#include "core/tach/tach_describe.h"
#include "core/tach/tach_reader.h"
#include "core/tach/tach_writer.h"
#include "core/tach/thread_names_file.h"
#include "core/util/temp_dir.h"

#include <QTest>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>

using namespace gilscope;
namespace fs = std::filesystem;

namespace {

class NameSink : public SampleSink {
public:
    void begin(const FrameRegistry&, const RecordingInfo& info) override {
        freeThreaded = info.freeThreaded;
    }
    void addBatch(const SampleBatch&) override {}
    bool freeThreaded = false;
    void nameThread(uint64_t tid, const std::string& name) override { names[tid] = name; }
    std::map<uint64_t, std::string> names;
    void addCounters(const ProcessCounters& c) override { counters.push_back(c); }
    std::vector<ProcessCounters> counters;
};

// A small recording of two threads; names (tid -> name) go through nameThread.
void record(const fs::path& path, const ThreadNameMap& names, uint64_t startUs = 1000,
            bool freeThreaded = false, const std::vector<ProcessCounters>& counters = {}) {
    auto writer = TachWriter::create(path);
    QVERIFY(writer);
    FrameRegistry registry;
    FrameInfo f{registry.internString("a.py"), registry.internString("work")};
    f.line = f.endLine = 3;
    const FrameId frame = registry.internFrame(f);
    RecordingInfo info;
    info.startTimeUs = startUs;
    info.freeThreaded = freeThreaded;
    (*writer)->begin(registry, info);
    for (uint64_t i = 0; i < 50; ++i)
        for (uint64_t tid : {11, 12}) {
            const uint64_t t = startUs + i * 1000;
            (*writer)->addBatch({tid, 0, 0, std::span(&frame, 1), std::span(&t, 1)});
        }
    for (const auto& [tid, name] : names)
        (*writer)->nameThread(tid, name);
    for (const ProcessCounters& c : counters)
        (*writer)->addCounters(c);
    (*writer)->finish({});
    QVERIFY((*writer)->finalize());
}

std::map<uint64_t, std::string> replayedNames(const fs::path& path) {
    auto reader = TachReader::open(path);
    if (!reader) return {};
    NameSink sink;
    if (!reader->replay(sink)) return {};
    return sink.names;
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

} // namespace

class TestThreadNamesFile : public QObject {
    Q_OBJECT
private slots:
    // The process's counters (memory, threads, CPU) go beside the .bin, come back in
    // order through info and replay, and a side file whose columns disagree keeps none
    // of them (and still its names).
    void countersGoBesideTheBinAndComeBack() {
        auto dir = TempDir::create("gilscope-test-names-");
        QVERIFY(dir);
        const fs::path bin = dir->path() / "counted.bin";
        std::vector<ProcessCounters> counters;
        for (uint64_t i = 0; i < 30; ++i) {
            counters.push_back(
                {1000 + i * 20'000, (100 + i) << 20, uint32_t(4 + i), i * 7'000'000});
            // The interpreter's GC counts, but not at every reading (one it could not read).
            if (i % 7 != 3) {
                counters.back().gcKnown = true;
                counters.back().gcCollections = {10 + i * 3, 2 + i / 4, i / 10};
                counters.back().gcCollected = 1000 + i * 50;
            }
        }
        record(bin, {{11, "db-writer"}}, 1000, false, counters);
        if (QTest::currentTestFailed()) return;
        auto reader = TachReader::open(bin);
        QVERIFY(reader);
        QVERIFY(reader->counters() == counters);
        NameSink sink;
        QVERIFY(reader->replay(sink));
        QVERIFY(sink.counters == counters);

        const fs::path side = threadNamesPath(bin);
        const nlohmann::json good = nlohmann::json::parse(slurp(side));
        const auto rewritten = [&](const std::function<void(nlohmann::json&)>& change) {
            nlohmann::json j = good;
            change(j["counters"]);
            std::ofstream(side, std::ios::trunc) << j.dump();
            NameSink s;
            auto r = TachReader::open(bin);
            if (!r || !r->replay(s)) return std::make_pair(size_t(99), size_t(0));
            return std::make_pair(s.counters.size(), s.names.size());
        };
        using Change = std::function<void(nlohmann::json&)>;
        const Change hostile[] = {
            [](nlohmann::json& c) { c["rss_bytes"].erase(0); }, // lengths differ
            [](nlohmann::json& c) { c["threads"][3] = -1; },    // not unsigned
            [](nlohmann::json& c) { c["cpu_ns"][2] = "lots"; }, // not a number
            [](nlohmann::json& c) { std::swap(c["time_us"][4], c["time_us"][5]); }, // order
            [](nlohmann::json& c) { c["threads"][0] = uint64_t(1) << 40; }, // beyond 32 bits
            [](nlohmann::json& c) { c.erase("cpu_ns"); },                   // a column missing
            [](nlohmann::json& c) { c = nlohmann::json::array(); },         // not an object
            [](nlohmann::json& c) { c["gc1"].erase(0); },                   // GC lengths differ
            [](nlohmann::json& c) { c["gc2"][0] = -3; },                    // GC not unsigned
            [](nlohmann::json& c) { c.erase("gc_collected"); },             // GC column missing
            [](nlohmann::json& c) { c["gc0"][0] = nullptr; }, // known in some columns only
            [](nlohmann::json& c) { c["gc0"][3] = 5; },       // ... or the other way
        };
        for (const Change& change : hostile) {
            const auto [kept, named] = rewritten(change);
            QCOMPARE(kept, size_t(0));
            QCOMPARE(named, size_t(1));
        }
        QCOMPARE(rewritten([](nlohmann::json&) {}).first, counters.size());
        // A side file from before GC counts (no GC columns) keeps its other counters.
        QCOMPARE(rewritten([](nlohmann::json& c) {
                     for (const char* col : {"gc0", "gc1", "gc2", "gc_collected"})
                         c.erase(col);
                 }).first,
                 counters.size());
    }

    void namesGoBesideTheBinAndComeBack() {
        auto dir = TempDir::create("gilscope-test-names-");
        QVERIFY(dir);
        const fs::path named = dir->path() / "named.bin", plain = dir->path() / "plain.bin";
        record(named, {{11, "db-writer"}, {12, "worker-é名"}});
        if (QTest::currentTestFailed()) return;
        record(plain, {});
        QVERIFY(fs::exists(threadNamesPath(named)));
        QVERIFY(!fs::exists(threadNamesPath(plain)));
        // The .bin is the same bytes with or without names.
        QCOMPARE(slurp(named), slurp(plain));
        const auto names = replayedNames(named);
        QCOMPARE(names.size(), size_t(2));
        QCOMPARE(names.at(11), std::string("db-writer"));
        QCOMPARE(names.at(12), std::string("worker-é名"));
        QVERIFY(replayedNames(plain).empty());
    }

    // A free-threaded target (no GIL) is said in the side file, which CPython's header has
    // no field for: the .bin stays the same bytes, and info() and the replay know it.
    void freeThreadedGoesBesideTheBinAndComesBack() {
        auto dir = TempDir::create("gilscope-test-names-");
        QVERIFY(dir);
        const fs::path ft = dir->path() / "ft.bin", gil = dir->path() / "gil.bin";
        record(ft, {}, 1000, true);
        if (QTest::currentTestFailed()) return;
        record(gil, {});
        QVERIFY(fs::exists(threadNamesPath(ft)));
        QVERIFY(!fs::exists(threadNamesPath(gil)));
        QCOMPARE(slurp(ft), slurp(gil));
        auto reader = TachReader::open(ft);
        QVERIFY(reader);
        QVERIFY(reader->info().freeThreaded);
        NameSink sink;
        QVERIFY(reader->replay(sink));
        QVERIFY(sink.freeThreaded);
        auto plain = TachReader::open(gil);
        QVERIFY(plain);
        QVERIFY(!plain->info().freeThreaded);
        // Named threads and the flag share the one file.
        record(ft, {{11, "db-writer"}}, 1000, true);
        auto both = TachReader::open(ft);
        QVERIFY(both);
        QVERIFY(both->info().freeThreaded);
        QCOMPARE(replayedNames(ft).at(11), std::string("db-writer"));
    }

    // A names file left beside a .bin that was replaced by another recording (CPython's,
    // or one without names) names nothing.
    void aStaleNamesFileIsIgnored() {
        auto dir = TempDir::create("gilscope-test-names-");
        QVERIFY(dir);
        const fs::path bin = dir->path() / "r.bin";
        record(bin, {{11, "db-writer"}});
        if (QTest::currentTestFailed()) return;
        const std::string names = slurp(threadNamesPath(bin));
        record(bin, {}, 5000); // another recording at the same path
        std::ofstream(threadNamesPath(bin), std::ios::binary) << names;
        QVERIFY(replayedNames(bin).empty());
    }

    void hostileNamesFilesAreIgnored_data() {
        QTest::addColumn<QByteArray>("content");
        QTest::newRow("not json") << QByteArray("{\"format\": ");
        QTest::newRow("not an object") << QByteArray("[1, 2, 3]");
        QTest::newRow("other format") << QByteArray("{\"format\": \"x\", \"version\": 1}");
        QTest::newRow("huge") << QByteArray(int(kMaxNamesFileBytes + 1), ' ');
        // Keys of another type than the file's (issue 47: these threw out of the replay).
        QTest::newRow("format a number") << QByteArray("{\"format\": 7, \"version\": 1}");
        QTest::newRow("version a string")
            << QByteArray("{\"format\": \"gilscope-thread-names\", \"version\": \"1\"}");
        QTest::newRow("bin_size a string")
            << QByteArray("{\"format\": \"gilscope-thread-names\", \"version\": 1, "
                          "\"bin_size\": \"9\", \"start_time_us\": [], \"sample_count\": {}}");
    }
    void hostileNamesFilesAreIgnored() {
        QFETCH(QByteArray, content);
        auto dir = TempDir::create("gilscope-test-names-");
        QVERIFY(dir);
        const fs::path bin = dir->path() / "r.bin";
        record(bin, {});
        if (QTest::currentTestFailed()) return;
        std::ofstream(threadNamesPath(bin), std::ios::binary)
            .write(content.constData(), content.size());
        QVERIFY(replayedNames(bin).empty()); // and the replay itself works
        auto reader = TachReader::open(bin);
        QVERIFY(reader);
        NameSink sink;
        QVERIFY(reader->replay(sink));
        // ... and says the side file was ignored, and what is missing.
        const std::string& side = reader->info().sideFile;
        QVERIFY2(side.find("r.bin.names.json ignored (") == 0, side.c_str());
        QVERIFY2(side.find("): no thread names, marks or counters") != std::string::npos,
                 side.c_str());
    }

    // What the side file gave, in `info` and the window's facts; a .bin alone says what
    // it lacks.
    void theSideFileIsDescribed() {
        auto dir = TempDir::create("gilscope-test-names-");
        QVERIFY(dir);
        const fs::path bin = dir->path() / "r.bin";
        record(bin, {{11, "db-writer"}, {12, "io"}});
        if (QTest::currentTestFailed()) return;
        auto reader = TachReader::open(bin);
        QVERIFY(reader);
        QCOMPARE(reader->info().sideFile, std::string("r.bin.names.json: 2 thread names"));
        QVERIFY(tachInfoText(reader->info()).find("Side file:         r.bin.names.json: 2") !=
                std::string::npos);
        fs::remove(threadNamesPath(bin));
        auto alone = TachReader::open(bin);
        QVERIFY(alone);
        const std::string& side = alone->info().sideFile;
        QCOMPARE(side, std::string("none (no r.bin.names.json beside it): no thread names, "
                                   "marks or counters"));
    }

    // Entries of the wrong shape are skipped; the others still name their threads.
    void badEntriesAreSkipped() {
        auto dir = TempDir::create("gilscope-test-names-");
        QVERIFY(dir);
        const fs::path bin = dir->path() / "r.bin";
        record(bin, {{11, "db-writer"}});
        if (QTest::currentTestFailed()) return;
        std::string text = slurp(threadNamesPath(bin));
        const size_t threads = text.find("\"threads\"");
        QVERIFY(threads != std::string::npos);
        const size_t open = text.find('[', threads);
        text.insert(open + 1, "{\"tid\": -1, \"name\": \"x\"}, {\"tid\": 12}, 7, {\"tid\": 12, "
                              "\"name\": \"\"}, ");
        std::ofstream(threadNamesPath(bin), std::ios::binary) << text;
        const auto names = replayedNames(bin);
        QCOMPARE(names.size(), size_t(1));
        QCOMPARE(names.at(11), std::string("db-writer"));
    }
};

QTEST_GUILESS_MAIN(TestThreadNamesFile)
#include "test_thread_names_file.moc"
