// `gilscope replay` and `gilscope info` as a user runs them, on CPython-written fixtures.
#include "core/tach/tach_writer.h"
#include "core/util/temp_dir.h"
#include "tach_cli_support.h"
#include "tests/support/shared_dir.h"

#include <QProcess>
#include <QTest>

#include <csignal>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

using namespace gilscope;
using namespace gilscope::test;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

QString tachFixture(const QString& name) {
    return fixturePath("tach/" + name);
}

json readJson(const QString& path) {
    std::ifstream in(path.toStdString());
    return json::parse(in);
}

} // namespace

class TestTachCli : public QObject {
    Q_OBJECT
private slots:
    void replayToGeckoMatchesCPython_data() {
        QTest::addColumn<QString>("name");
        for (const char* n :
             {"tiny", "medium", "rle-long", "stats", "unicode", "utf8-replace", "real-315"})
            QTest::newRow(n) << n;
    }
    void replayToGeckoMatchesCPython() {
        GILSCOPE_REQUIRE_SHARED();
        QFETCH(QString, name);
        auto dir = TempDir::create("gilscope-tach-cli");
        QVERIFY(dir.ok());
        const fs::path out = dir->path() / "out.json";
        auto r = runGilscope(
            {"replay", tachFixture(name + ".bin"), "--gecko", "-o", QString::fromStdString(out)});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const json info =
            readJson(tachFixture(name + (name == "real-315" ? ".info.json" : ".info.json")));
        const uint64_t samples = name == "real-315"
                                     ? info["sample_count"].get<uint64_t>()
                                     : info["get_info"]["sample_count"].get<uint64_t>();
        QVERIFY2(r.err.startsWith(QString("Replaying %1 samples from ").arg(samples)),
                 qPrintable(r.err));
        QVERIFY(r.err.contains("  Sample interval: "));
        QVERIFY(r.err.contains("] 100.0% ("));
        QVERIFY2(r.err.contains(QString("Replayed %1 samples").arg(samples)), qPrintable(r.err));
        QVERIFY(r.out.contains("Gecko profile written to "));
        QVERIFY(normalizedGecko(out) ==
                normalizedGecko(tachFixture(name + ".gecko.json").toStdString()));
        const QString check = checkGecko(out);
        QVERIFY2(check.isEmpty(), qPrintable(check));
    }

    void replayToCollapsed() {
        GILSCOPE_REQUIRE_SHARED();
        auto dir = TempDir::create("gilscope-tach-cli");
        QVERIFY(dir.ok());
        // -o naming a directory: CPython's default name goes inside it.
        auto r = runGilscope({"replay", tachFixture("tiny.bin"), "--collapsed", "-o",
                              QString::fromStdString(dir->path())});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        std::vector<fs::path> files;
        for (auto& e : fs::directory_iterator(dir->path()))
            files.push_back(e.path());
        QCOMPARE(files.size(), size_t{1});
        QVERIFY(files[0].filename().string().starts_with("collapsed_"));
        std::ifstream in(files[0]);
        std::string text((std::istreambuf_iterator<char>(in)), {});
        uint64_t total = 0;
        size_t pos = 0;
        while ((pos = text.find('\n', pos)) != std::string::npos) {
            const size_t space = text.rfind(' ', pos);
            total += std::stoull(text.substr(space + 1, pos - space - 1));
            ++pos;
        }
        QCOMPARE(total, uint64_t{10});
        QVERIFY(text.find("_run_code (<frozen runpy>:88);main (/home/user/app/main.py:42)") !=
                std::string::npos);
    }

    // Input and output paths that are not UTF-8 are used byte for byte (docs/cli.md).
    void replayAndInfoTakePathsThatAreNotUtf8() {
        GILSCOPE_REQUIRE_SHARED();
        auto dir = TempDir::create("gilscope-tach-cli");
        QVERIFY(dir.ok());
        const fs::path in = dir->path() / "in_\xff.bin", out = dir->path() / "out_\xfe.txt";
        fs::copy_file(tachFixture("tiny.bin").toStdString(), in);
        const QByteArray inBytes = QByteArray::fromStdString(in.string());
        const auto r = runGilscopeBytes(
            {"replay", inBytes, "--collapsed", "-o", QByteArray::fromStdString(out.string())});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QVERIFY2(isUtf8(r.outBytes) && isUtf8(r.errBytes), qPrintable(describe(r)));
        QVERIFY(fs::exists(out) && fs::file_size(out) > 0);
        const auto info = runGilscopeBytes({"info", inBytes});
        QVERIFY2(info.exitCode == 0, qPrintable(describe(info)));
        QVERIFY2(isUtf8(info.outBytes), qPrintable(describe(info)));
        int entries = 0;
        for ([[maybe_unused]] auto& e : fs::directory_iterator(dir->path()))
            ++entries;
        QCOMPARE(entries, 2); // no second output under a mangled name
    }

    void infoJsonMatchesCPythonGetInfo_data() {
        QTest::addColumn<QString>("name");
        for (const char* n : {"tiny", "medium", "stats", "unicode"})
            QTest::newRow(n) << n;
    }
    void infoJsonMatchesCPythonGetInfo() {
        GILSCOPE_REQUIRE_SHARED();
        QFETCH(QString, name);
        auto r = runGilscope({"info", "--json", tachFixture(name + ".bin")});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        json got = json::parse(r.out.toStdString());
        const json expected = readJson(tachFixture(name + ".info.json"));
        QVERIFY(got["reader_stats"] == expected["reader_stats_after_replay"]);
        got.erase("reader_stats");
        QVERIFY2(got == expected["get_info"],
                 (got.dump() + "\n" + expected["get_info"].dump()).c_str());

        auto text = runGilscope({"info", tachFixture(name + ".bin")});
        QCOMPARE(text.exitCode, 0);
        QVERIFY(text.out.contains(
            QString("Samples:           %1").arg(expected["replay_count"].get<qulonglong>())));
    }

    void corruptFileFailsWithCPythonsMessage() {
        GILSCOPE_REQUIRE_SHARED();
        auto dir = TempDir::create("gilscope-tach-cli");
        QVERIFY(dir.ok());
        const fs::path out = dir->path() / "out.json";
        auto open = runGilscope({"replay", tachFixture("corrupt/bad-magic.bin"), "--gecko", "-o",
                                 QString::fromStdString(out)});
        QCOMPARE(open.exitCode, 8);
        QVERIFY2(open.err.contains("gilscope: Invalid magic number: 0x12345678"),
                 qPrintable(open.err));
        auto replay = runGilscope({"replay", tachFixture("corrupt/rle-count-too-big.bin"),
                                   "--gecko", "-o", QString::fromStdString(out)});
        QCOMPARE(replay.exitCode, 8);
        QVERIFY2(replay.err.contains("gilscope: Invalid RLE count 100 exceeds maximum possible 1"),
                 qPrintable(replay.err));
        QVERIFY(!fs::exists(out));
        QVERIFY(fs::is_empty(dir->path())); // no partial output, no temporary file
        auto info = runGilscope({"info", tachFixture("corrupt/count-mismatch-more.bin")});
        QCOMPARE(info.exitCode, 8);
        QVERIFY(info.err.contains(
            "Sample count mismatch: header declares 13 samples but replay decoded 12"));
    }

    // Ctrl-C during a long replay: exit 130, and neither the output nor a temporary file
    // is left behind.
    void interruptLeavesNoOutput() {
        auto dir = TempDir::create("gilscope-tach-cli");
        QVERIFY(dir.ok());
        const fs::path bin = dir->path() / "long.bin", out = dir->path() / "out.json";
        {
            FrameRegistry registry;
            std::vector<FrameId> frames;
            for (int i = 0; i < 40; ++i) {
                FrameInfo f;
                f.filename = registry.internString("/app/m.py");
                f.funcname = registry.internString("f" + std::to_string(i));
                f.line = i;
                frames.push_back(registry.internFrame(f));
            }
            auto writer = TachWriter::create(bin);
            QVERIFY(writer.ok());
            (*writer)->begin(registry, {});
            for (uint64_t i = 0; i < 3'000'000; ++i) {
                const uint64_t ts = 1000 + i;
                SampleBatch b;
                b.threadId = 1 + i % 4;
                b.status = (i / 7) % 2;
                b.frames = std::span<const FrameId>(frames).subspan(i % 13);
                b.timestampsUs = std::span<const uint64_t>(&ts, 1);
                (*writer)->addBatch(b);
            }
            QVERIFY((*writer)->finalize().ok());
        }
        const auto p = startGilscope(
            {"replay", QString::fromStdString(bin), "--gecko", "-o", QString::fromStdString(out)});
        QVERIFY(p);
        QByteArray err;
        while (!err.contains("0.0%") && p->state() == QProcess::Running) {
            p->waitForReadyRead(100);
            err += p->readAllStandardError();
        }
        if (p->state() != QProcess::Running)
            QSKIP("the replay finished before it could be interrupted");
        ::kill(static_cast<pid_t>(p->processId()), SIGINT);
        QVERIFY(p->waitForFinished(60000));
        QCOMPARE(p->exitCode(), 130);
        QVERIFY(!fs::exists(out));
        int entries = 0;
        for ([[maybe_unused]] auto& e : fs::directory_iterator(dir->path()))
            ++entries;
        QCOMPARE(entries, 1); // only the input
    }

    // -o naming a directory puts the pstats file inside it under its default name, as
    // for every other format and for `attach --pstats`. Old: replay --pstats tried to
    // write the directory itself and failed.
    void replayPstatsIntoADirectory() {
        GILSCOPE_REQUIRE_SHARED();
        auto dir = TempDir::create("gilscope-tach-cli");
        QVERIFY(dir.ok());
        const fs::path into = dir->path() / "into", named = dir->path() / "named.pstats";
        fs::create_directory(into);
        const auto r = runGilscope({"replay", tachFixture("medium.bin"), "--pstats", "-o",
                                    QString::fromStdString(into.string())});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        std::vector<fs::path> written;
        for (const auto& e : fs::directory_iterator(into))
            written.push_back(e.path());
        QCOMPARE(written.size(), size_t(1));
        const std::string name = written[0].filename().string();
        QVERIFY2(name.starts_with("pstats_") && name.ends_with(".pstats"), name.c_str());
        const auto n = runGilscope({"replay", tachFixture("medium.bin"), "--pstats", "-o",
                                    QString::fromStdString(named.string())});
        QCOMPARE(n.exitCode, 0);
        const auto bytes = [](const fs::path& p) {
            std::ifstream in(p, std::ios::binary);
            return std::string(std::istreambuf_iterator<char>(in), {});
        };
        QVERIFY(!bytes(named).empty());
        QVERIFY(bytes(written[0]) == bytes(named));
    }

    void usageErrors() {
        GILSCOPE_REQUIRE_SHARED();
        auto missing = runGilscope({"replay", "/nonexistent/x.bin", "--gecko"});
        QVERIFY(missing.exitCode != 0);
        QVERIFY2(missing.err.contains("Input file not found: /nonexistent/x.bin"),
                 qPrintable(missing.err));
        auto noFormat = runGilscope({"replay", tachFixture("tiny.bin")});
        QCOMPARE(noFormat.exitCode, 2);
        QVERIFY2(
            noFormat.err.contains("--gecko, --collapsed, --pstats, --jsonl, --pprof, --flamegraph, "
                                  "--diff-flamegraph or --heatmap"),
            qPrintable(noFormat.err));
        auto both = runGilscope({"replay", tachFixture("tiny.bin"), "--gecko", "--collapsed"});
        QCOMPARE(both.exitCode, 2);
    }
};

QTEST_GUILESS_MAIN(TestTachCli)
#include "test_tach_cli.moc"
