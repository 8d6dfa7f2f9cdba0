// Golden comparisons: each fixture's replay.jsonl call sequence, fed to our collector with
// the README's pinned machine fields, must export byte for byte what CPython wrote.

#include "gecko_test_support.h"

#include "core/gecko/gecko_collector.h"
#include "core/tach/tach_reader.h"
#include "core/util/temp_dir.h"
#include "tests/support/shared_dir.h"

#include <QTest>

using namespace gilscope;
using namespace gilscope::test;
namespace fs = std::filesystem;

namespace {

std::string firstDifference(const std::string& got, const std::string& want) {
    size_t i = 0;
    while (i < got.size() && i < want.size() && got[i] == want[i])
        ++i;
    const size_t from = i > 80 ? i - 80 : 0;
    return "first difference at byte " + std::to_string(i) + " (sizes " +
           std::to_string(got.size()) + " vs " + std::to_string(want.size()) +
           ")\n got: " + got.substr(from, 200) + "\nwant: " + want.substr(from, 200);
}

} // namespace

class TestGeckoGolden : public QObject {
    Q_OBJECT
private slots:
    void matchesCpythonOutput_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<int>("spillBuffer");
        for (const char* name : {"tiny", "stats", "rle-long", "unicode", "utf8-replace"}) {
            QTest::newRow((std::string(name) + "/default-buffer").c_str())
                << QString(name) << 128 * 1024;
            QTest::newRow((std::string(name) + "/1-byte-buffer").c_str()) << QString(name) << 1;
        }
    }

    void matchesCpythonOutput() {
        GILSCOPE_REQUIRE_SHARED();
        QFETCH(QString, name);
        QFETCH(int, spillBuffer);
        const fs::path base = fixturePath("tach/" + name).toStdString();
        const auto info = readJson(base.string() + ".info.json");
        const uint64_t intervalUs = info.at("get_info").at("sample_interval_us").get<uint64_t>();

        FrameRegistry registry;
        auto calls = loadReplay(base.string() + ".replay.jsonl", registry);
        QVERIFY2(calls.ok(), calls.ok() ? "" : calls.error().message.c_str());

        GeckoOptions opt = pinnedOptions();
        opt.spillBufferBytes = static_cast<size_t>(spillBuffer);
        GeckoCollector collector(opt);
        feed(collector, registry, *calls, intervalUs);

        auto dir = TempDir::create("gilscope-test");
        QVERIFY(dir.ok());
        const fs::path out = dir->path() / "out.json";
        Status s = collector.exportTo(out);
        QVERIFY2(s.ok(), s.ok() ? "" : s.error().message.c_str());

        const std::string got = readFile(out);
        const std::string want = readFile(base.string() + ".gecko.json");
        QVERIFY2(got == want, firstDifference(got, want).c_str());
        const CheckResult check = checkGecko(out);
        QVERIFY2(check.ok, check.output.c_str());
        QVERIFY(collector.spillDirectory().empty());
    }

    // A real recording by the released CPython 3.15.2, read by our .bin reader: with
    // the host fields pinned to what that machine wrote, the output is byte-identical.
    void realRecordingMatchesCpython315() {
        GILSCOPE_REQUIRE_SHARED();
        const fs::path base = fixturePath("tach/real-315").toStdString();
        const auto want = readJson(base.string() + ".gecko.json");
        auto reader = TachReader::open(base.string() + ".bin");
        QVERIFY2(reader.ok(), reader.ok() ? "" : reader.error().message.c_str());
        GeckoOptions opt;
        opt.startTimeMs = want["meta"]["startTime"].get<double>();
        opt.pid = want["threads"][0]["pid"].get<std::string>();
        opt.abi = want["meta"]["abi"].get<std::string>();
        opt.platform = want["meta"]["platform"].get<std::string>();
        opt.cpus = want["meta"]["logicalCPUs"].get<int>();
        opt.spillBufferBytes = 4096;
        GeckoCollector collector(opt);
        auto n = reader->replay(collector);
        QVERIFY2(n.ok(), n.ok() ? "" : n.error().message.c_str());
        auto dir = TempDir::create("gilscope-test");
        const fs::path out = dir->path() / "out.json";
        Status s = collector.exportTo(out);
        QVERIFY2(s.ok(), s.ok() ? "" : s.error().message.c_str());
        const std::string got = readFile(out);
        const std::string expected = readFile(base.string() + ".gecko.json");
        QVERIFY2(got == expected, firstDifference(got, expected).c_str());
        const CheckResult check = checkGecko(out);
        QVERIFY2(check.ok, check.output.c_str());
    }
};

QTEST_GUILESS_MAIN(TestGeckoGolden)
#include "test_gecko_golden.moc"
