// .bin -> our reader -> our Gecko collector gives exactly CPython's `replay --gecko`
// bytes for every fixture (machine-dependent fields pinned as the fixtures were).
#include "core/gecko/gecko_collector.h"
#include "core/tach/tach_reader.h"
#include "core/util/temp_dir.h"
#include "tach_fixtures.h"
#include "tests/support/shared_dir.h"

#include <QTest>

#include <filesystem>

using namespace gilscope;
using namespace gilscope::test;
namespace fs = std::filesystem;

class TestTachGecko : public QObject {
    Q_OBJECT
private slots:
    void replayToGeckoIsByteIdentical_data() {
        QTest::addColumn<QString>("name");
        for (const char* n : {"tiny", "medium", "rle-long", "stats", "unicode", "utf8-replace"})
            QTest::newRow(n) << n;
    }
    void replayToGeckoIsByteIdentical() {
        GILSCOPE_REQUIRE_SHARED();
        QFETCH(QString, name);
        const fs::path base = tachFixture(name.toStdString());
        auto reader = TachReader::open(base.string() + ".bin");
        QVERIFY(reader.ok());
        GeckoOptions options;
        options.intervalUs = reader->info().sampleIntervalUs;
        options.startTimeMs = 1000000.0;
        options.pid = "4242";
        options.abi = "x86_64";
        options.platform = "Linux";
        options.cpus = 8;
        GeckoCollector collector(options);
        auto n = reader->replay(collector);
        QVERIFY2(n.ok(), n.ok() ? "" : n.error().message.c_str());
        auto dir = TempDir::create("gilscope-tach-gecko");
        QVERIFY(dir.ok());
        const fs::path out = dir->path() / "out.json";
        auto s = collector.exportTo(out);
        QVERIFY2(s.ok(), s.ok() ? "" : s.error().message.c_str());
        const std::string got = readFileBytes(out),
                          want = readFileBytes(base.string() + ".gecko.json");
        if (got != want) {
            size_t i = 0;
            while (i < got.size() && i < want.size() && got[i] == want[i])
                ++i;
            const size_t from = i > 80 ? i - 80 : 0;
            QFAIL(("first difference at byte " + std::to_string(i) + "\n got " +
                   got.substr(from, 200) + "\nwant " + want.substr(from, 200))
                      .c_str());
        }
    }
};

QTEST_GUILESS_MAIN(TestTachGecko)
#include "test_tach_gecko.moc"
