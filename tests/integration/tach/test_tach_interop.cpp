// Interop with the released CPython 3.15.2 (Debian sid's python3.15 in the chroot made by
// scripts/setup-python-chroot.sh), both ways:
//  - a recording by `python3.15 -m profiling.sampling run --binary` replays in gilscope to
//    the same Gecko content as `python3.15 -m profiling.sampling replay --gecko` gives;
//  - a .bin that gilscope writes from a live recording is accepted by CPython's replay and
//    gives the same content as gilscope's own replay.
#include "core/tach/tach_reader.h"
#include "core/tach/tach_writer.h"
#include "tach_cli_support.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/shared_dir.h"

#include <QTest>

#include <cstdlib>
#include <filesystem>

using namespace gilscope;
using namespace gilscope::test;
namespace fs = std::filesystem;

namespace {

QString workloadScript() {
    return sourceDir() + QStringLiteral("/tests/integration/tach/tach_workload.py");
}

// A scratch directory inside the chroot (so chrooted Python sees it as /tmp/NAME),
// removed on destruction.
class ChrootScratch {
public:
    ChrootScratch() {
        std::string tmpl = chrootDir().toStdString() + "/tmp/gilscope-tach-XXXXXX";
        if (::mkdtemp(tmpl.data())) host_ = tmpl;
    }
    ~ChrootScratch() {
        std::error_code ec;
        if (!host_.empty()) fs::remove_all(host_, ec);
    }
    bool ok() const { return !host_.empty(); }
    fs::path host(const std::string& name) const { return host_ / name; }
    QString inside(const std::string& name) const {
        return QString::fromStdString("/tmp/" + host_.filename().string() + "/" + name);
    }

private:
    fs::path host_;
};

// Replays into a TachWriter; with a checkpoint path, takes one (the control socket's
// `flush`) after `checkpointAfter` batches and goes on.
struct ForwardSink : SampleSink {
    TachWriter* writer = nullptr;
    fs::path checkpoint;
    size_t checkpointAfter = 0, batches = 0;
    Status checkpointed = makeError(ErrorKind::Internal, "no checkpoint was taken");
    void begin(const FrameRegistry& r, const RecordingInfo& i) override { writer->begin(r, i); }
    void addBatch(const SampleBatch& b) override {
        writer->addBatch(b);
        if (++batches == checkpointAfter && !checkpoint.empty())
            checkpointed = writer->checkpoint(checkpoint);
    }
    void finish(const RecordingSummary& s) override { writer->finish(s); }
};

QString shellQuote(const QString& s) {
    return "'" + QString(s).replace("'", "'\\''") + "'";
}

// python3.15 in the chroot, in a private mount namespace with /proc mounted (the
// profiler reads the target's memory through it).
RunResult chrootPython(const QStringList& args, int timeoutMs = 120000) {
    QString cmd = "set -e; mount -t proc proc " + shellQuote(chrootDir() + "/proc") +
                  "; exec chroot " + shellQuote(chrootDir()) + " python3.15";
    for (const QString& a : args)
        cmd += " " + shellQuote(a);
    return runProgram("unshare", {"--mount", "--propagation", "private", "sh", "-c", cmd}, {},
                      timeoutMs);
}

} // namespace

class TestTachInterop : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() {
        GILSCOPE_REQUIRE(chrootReady(), "the sid chroot with python3.15 (CPython's reference) is "
                                        "absent: run scripts/setup-python-chroot.sh (as root)");
    }

    void cpythonRecordingReplaysLikeCPython() {
        ChrootScratch scratch;
        QVERIFY(scratch.ok());
        fs::copy_file(workloadScript().toStdString(), scratch.host("workload.py"));
        auto rec = chrootPython({"-m", "profiling.sampling", "run", "-a", "-r", "2khz", "--binary",
                                 "-o", scratch.inside("rec.bin"), scratch.inside("workload.py")});
        QVERIFY2(rec.exitCode == 0, qPrintable(rec.out + rec.err));
        QVERIFY(fs::exists(scratch.host("rec.bin")));
        auto cpy = chrootPython({"-m", "profiling.sampling", "replay", "--gecko", "-o",
                                 scratch.inside("cpython.json"), scratch.inside("rec.bin")});
        QVERIFY2(cpy.exitCode == 0, qPrintable(cpy.out + cpy.err));

        const fs::path ours = scratch.host("gilscope.json");
        auto r = runGilscope({"replay", QString::fromStdString(scratch.host("rec.bin")), "--gecko",
                              "-o", QString::fromStdString(ours)});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        auto expected = normalizedGecko(scratch.host("cpython.json"));
        clampBackwardIntervals(expected);
        const auto got = normalizedGecko(ours);
        QVERIFY(got["threads"].size() >= 4); // main + three workers
        const QString difference = geckoDifference(expected, got);
        QVERIFY2(difference.isEmpty(),
                 qPrintable("gilscope's replay of CPython's recording differs from CPython's "
                            "replay: " +
                            difference));
        const QString check = checkGecko(ours);
        QVERIFY2(check.isEmpty(), qPrintable(check));

        // The same recording rewritten by TachWriter (zstd): CPython's replay of our file
        // must give what it gave for its own.
        auto reader = TachReader::open(scratch.host("rec.bin"));
        QVERIFY(reader.ok());
        auto writer = TachWriter::create(scratch.host("rewritten.bin"));
        QVERIFY(writer.ok());
        ForwardSink forward;
        forward.writer = writer->get();
        // Halfway, a checkpoint (the control socket's flush); the file goes on after it.
        forward.checkpoint = scratch.host("halfway.bin");
        forward.checkpointAfter = 200;
        QVERIFY(reader->replay(forward).ok());
        QVERIFY2(forward.batches > 2 * forward.checkpointAfter, "the recording is too short");
        QVERIFY2(forward.checkpointed.ok(), forward.checkpointed.error().message.c_str());
        QVERIFY((*writer)->finalize().ok());
        auto again =
            chrootPython({"-m", "profiling.sampling", "replay", "--gecko", "-o",
                          scratch.inside("cpython-of-ours.json"), scratch.inside("rewritten.bin")});
        QVERIFY2(again.exitCode == 0, qPrintable(again.out + again.err));
        const QString rewritten =
            geckoDifference(normalizedGecko(scratch.host("cpython.json")),
                            normalizedGecko(scratch.host("cpython-of-ours.json")));
        QVERIFY2(rewritten.isEmpty(),
                 qPrintable("CPython replays gilscope's rewrite of its recording differently: " +
                            rewritten));

        // The checkpoint is a whole file for CPython too, holding the first part only.
        auto half =
            chrootPython({"-m", "profiling.sampling", "replay", "--gecko", "-o",
                          scratch.inside("cpython-halfway.json"), scratch.inside("halfway.bin")});
        QVERIFY2(half.exitCode == 0, qPrintable(half.out + half.err));
        auto oursHalf =
            runGilscope({"replay", QString::fromStdString(scratch.host("halfway.bin")), "--gecko",
                         "-o", QString::fromStdString(scratch.host("gilscope-halfway.json"))});
        QVERIFY2(oursHalf.exitCode == 0, qPrintable(oursHalf.err));
        auto cpythonHalf = normalizedGecko(scratch.host("cpython-halfway.json"));
        clampBackwardIntervals(cpythonHalf);
        const auto gilscopeHalf = normalizedGecko(scratch.host("gilscope-halfway.json"));
        const QString halfDifference = geckoDifference(cpythonHalf, gilscopeHalf);
        QVERIFY2(halfDifference.isEmpty(),
                 qPrintable("CPython replays a checkpoint differently: " + halfDifference));
        const auto countSamples = [](const nlohmann::json& g) {
            uint64_t n = 0;
            for (const auto& t : g["threads"])
                n += t["samples"]["length"].get<uint64_t>();
            return n;
        };
        const uint64_t halfSamples = countSamples(gilscopeHalf);
        const uint64_t allSamples = countSamples(normalizedGecko(scratch.host("gilscope.json")));
        QVERIFY2(halfSamples >= forward.checkpointAfter && halfSamples < allSamples,
                 qPrintable(QString("%1 of %2").arg(halfSamples).arg(allSamples)));
    }

    void gilscopeRecordingIsAcceptedByCPython() {
        QList<Interpreter> hosts;
        for (const Interpreter& i : findInterpreters(8)) {
            if (!i.inChroot) hosts.push_back(i);
        }
        GILSCOPE_REQUIRE(!hosts.isEmpty(),
                         "no host Python interpreter to record (pyenv or Debian python3)");
        const Interpreter& python = hosts.last();
        qInfo("recording %s", qPrintable(python.label));
        ChrootScratch scratch;
        QVERIFY(scratch.ok());
        const fs::path bin = scratch.host("ours.bin");
        auto rec =
            runGilscope({"run", "-a", "-r", "2khz", "--binary", "-o", QString::fromStdString(bin),
                         "--python", python.executable, workloadScript()});
        QVERIFY2(fs::exists(bin), qPrintable(rec.out + rec.err));

        auto cpy = chrootPython({"-m", "profiling.sampling", "replay", "--gecko", "-o",
                                 scratch.inside("cpython.json"), scratch.inside("ours.bin")});
        QVERIFY2(cpy.exitCode == 0, qPrintable(cpy.out + cpy.err));
        QVERIFY2(cpy.out.contains("Replayed ") || cpy.err.contains("Replayed "),
                 qPrintable(cpy.out + cpy.err));

        // Thread names travel beside the .bin (FILE.bin.names.json), which CPython does not
        // read: without that file gilscope's replay must be CPython's, byte for byte.
        fs::path names = bin;
        names += ".names.json";
        std::error_code ec;
        fs::remove(names, ec);
        const fs::path ours = scratch.host("gilscope.json");
        auto r = runGilscope(
            {"replay", QString::fromStdString(bin), "--gecko", "-o", QString::fromStdString(ours)});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        auto expected = normalizedGecko(scratch.host("cpython.json"));
        clampBackwardIntervals(expected);
        const auto got = normalizedGecko(ours);
        QVERIFY(got["threads"].size() >= 4);
        uint64_t samples = 0;
        for (const auto& t : got["threads"])
            samples += t["samples"]["length"].get<uint64_t>();
        QVERIFY(samples > 100);
        const QString difference = geckoDifference(expected, got);
        QVERIFY2(difference.isEmpty(),
                 qPrintable("CPython's replay of gilscope's recording differs from gilscope's "
                            "replay: " +
                            difference));
    }
};

QTEST_GUILESS_MAIN(TestTachInterop)
#include "test_tach_interop.moc"
