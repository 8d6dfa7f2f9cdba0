// One test per row of docs/cli.md's exit-code table, plus the CLI's smaller promises:
// `run` forwards a command's code instead of dying of SIGPIPE, a FIFO given as input
// fails at once, leftovers of killed gilscopes are removed by the next command, advice
// fits the real reason, and `info` says how many samples a file holds before decoding.
#include "core/common/error.h"
#include "core/sample/frame_registry.h"
#include "core/tach/tach_writer.h"
#include "core/util/temp_dir.h"
#include "output_test_support.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"
#include "tests/support/shared_dir.h"

#include <QProcess>
#include <QTest>

#include <csignal>
#include <filesystem>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace gilscope;
using namespace gilscope::test;
namespace fs = std::filesystem;

namespace {

constexpr int kShortRunMs = 15000; // a command that must not block

QString q(const fs::path& p) {
    return QString::fromStdString(p.string());
}

pid_t deadPid() {
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(0);
    ::waitpid(pid, nullptr, 0);
    return pid;
}

FrameId makeFrame(FrameRegistry& r, const std::string& file, const std::string& func, int line) {
    FrameInfo f;
    f.filename = r.internString(file);
    f.funcname = r.internString(func);
    f.line = f.endLine = line;
    return r.internFrame(f);
}

// A valid .bin holding `samples` samples of one stack on one thread (0: none at all).
void writeBin(const fs::path& path, uint64_t samples) {
    FrameRegistry registry;
    const FrameId f = makeFrame(registry, "spin.py", "spin", 1);
    auto writer = TachWriter::create(path);
    QVERIFY(writer.ok());
    RecordingInfo info;
    info.sampleIntervalUs = 100;
    info.startTimeUs = 1;
    (*writer)->begin(registry, info);
    std::vector<uint64_t> ts(1 << 20);
    for (uint64_t done = 0; done < samples; done += ts.size()) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(ts.size(), samples - done));
        for (size_t i = 0; i < n; ++i)
            ts[i] = 1 + (done + i) * 100;
        SampleBatch b;
        b.threadId = 1;
        b.frames = std::span<const FrameId>(&f, 1);
        b.timestampsUs = std::span<const uint64_t>(ts.data(), n);
        (*writer)->addBatch(b);
    }
    QVERIFY((*writer)->finalize().ok());
}

} // namespace

class TestExitCodes : public QObject {
    Q_OBJECT
    TempDir dir_;
    fs::path d() const { return dir_.path(); }

private slots:
    void init() {
        auto t = TempDir::create("gilscope-exit");
        QVERIFY(t.ok());
        dir_ = std::move(t.value());
    }
    void cleanup() { dir_ = TempDir(); }

    void code0Success() {
        GILSCOPE_REQUIRE_SHARED();
        const auto r = runGilscope(
            {"replay", tachFixture("tiny.bin"), "--collapsed", "-o", q(d() / "out.txt")});
        QCOMPARE(r.exitCode, 0);
    }

    // Old: QCommandLineParser::process() exited 1 (`open` until it shared the others' parse).
    void code2UnknownOption() {
        for (const char* cmd :
             {"attach", "run", "replay", "info", "dump", "ps", "report", "open"}) {
            const auto r = runGilscope({cmd, "--no-such-option", "1"});
            QVERIFY2(r.exitCode == 2, qPrintable(QString(cmd) + ": " + describe(r)));
            QVERIFY2(r.err.contains("no-such-option"), qPrintable(r.err));
        }
        QCOMPARE(runGilscope({"attach", "-d", "-1", "1"}).exitCode, 2);
    }

    void code3ProcessNotFound() {
        QCOMPARE(runGilscope({"attach", "-d", "1", "999999999"}).exitCode, 3);
    }

    void code4NotPython() {
        QProcess sleeper;
        sleeper.start("sleep", {"60"});
        QVERIFY(sleeper.waitForStarted());
        const auto r = runGilscope({"dump", QString::number(sleeper.processId())});
        sleeper.kill();
        sleeper.waitForFinished();
        QVERIFY2(r.exitCode == 4, qPrintable(describe(r)));
    }

    void code5PermissionDenied() {
        GILSCOPE_REQUIRE_SHARED();
        const fs::path ro = d() / "ro";
        TmpfsMount mount(ro, 1 << 20, true);
        if (!mount.mounted()) { // not root: a directory we may not write suffices
            fs::create_directory(ro);
            ::chmod(ro.c_str(), 0555);
        }
        const auto r =
            runGilscope({"replay", tachFixture("tiny.bin"), "--collapsed", "-o", q(ro / "x.txt")});
        QVERIFY2(r.exitCode == 5, qPrintable(describe(r)));
    }

    void code6UnsupportedVersion() {
        const QString old = "/root/.pyenv/versions/3.7.16/bin/python3.7";
        if (!QFile::exists(old)) QSKIP("no Python 3.7 here to be refused");
        QProcess py;
        py.start(old, {"-c", "import time\nprint('READY', flush=True)\ntime.sleep(60)"});
        QVERIFY(py.waitForReadyRead(30000));
        const auto r = runGilscope({"dump", QString::number(py.processId())});
        py.kill();
        py.waitForFinished();
        QVERIFY2(r.exitCode == 6, qPrintable(describe(r)));
    }

    // The command exited before Python started in it: nothing to record.
    void code7ProcessEnded() {
        const auto r = runGilscope({"run", "--python", "/bin/true", "x.py"}, q(d()), kShortRunMs);
        QVERIFY2(r.finished, qPrintable(describe(r)));
        // `run` forwards the command's own code (0 here) when it ran; attach to a pid
        // that is gone before it could be read is ProcessEnded.
        QVERIFY2(r.err.contains("before a Python interpreter started"), qPrintable(r.err));
        const pid_t zombie = ::fork();
        if (zombie == 0) ::_exit(0);
        QTest::qWait(100); // let it become a zombie (its /proc entry stays until reaped)
        const auto z = runGilscope({"attach", "-d", "1", QString::number(zombie)});
        ::waitpid(zombie, nullptr, 0);
        QVERIFY2(z.exitCode == 7, qPrintable(describe(z)));
    }

    void code8CorruptFile() {
        GILSCOPE_REQUIRE_SHARED();
        const auto r = runGilscope({"info", tachFixture("corrupt/bad-magic.bin")});
        QCOMPARE(r.exitCode, 8);
        QVERIFY2(r.err.contains("Invalid magic number: 0x12345678"), qPrintable(r.err));
    }

    // Issue 18 item 4: every corrupt fixture is a format error (code 8) that says what
    // was found, and nothing is written. Old: a frame table running into the footer gave
    // code 11 ("no samples") and a string table running into the frames replayed (0).
    void everyCorruptFileIsAFormatError() {
        GILSCOPE_REQUIRE_SHARED();
        const fs::path dir =
            fs::path(tachFixture("tiny.bin").toStdString()).parent_path() / "corrupt";
        int files = 0;
        for (const auto& entry : fs::directory_iterator(dir)) {
            if (entry.path().extension() != ".bin") continue;
            ++files;
            const fs::path out = d() / "out.txt";
            const auto r = runGilscope({"replay", q(entry.path()), "--collapsed", "-o", q(out)});
            QVERIFY2(r.exitCode == 8, qPrintable(q(entry.path().filename()) + ": " + describe(r)));
            QVERIFY2(r.err.contains("gilscope: "), qPrintable(r.err)); // what was found
            QVERIFY(!fs::exists(out));
        }
        QCOMPARE(files, 33);
    }

    void code9IoError() {
        GILSCOPE_REQUIRE_SHARED();
        const auto r = runGilscope({"replay", tachFixture("tiny.bin"), "--collapsed", "-o",
                                    q(d() / "nonexist" / "dir" / "x.txt")});
        QCOMPARE(r.exitCode, 9);
        QVERIFY2(r.err.contains("does not exist"), qPrintable(r.err));
    }

    void code10DiskFull() {
        GILSCOPE_REQUIRE_SHARED();
        const auto r = runGilscope(
            {"replay", tachFixture("tiny.bin"), "--collapsed", "-o", q(fullDevice(d()))});
        QCOMPARE(r.exitCode, 10);
    }

    // Issue 18 item 5: what a command prints on stdout is checked: into a full device,
    // every command fails with a message (and code 10) instead of exiting 0. A pstats
    // table that could not be printed keeps its recording (item 1). Old: exit 0, silent.
    void stdoutWriteErrorsFailTheCommand() {
        GILSCOPE_REQUIRE_SHARED();
        QList<Interpreter> host;
        for (const auto& in : findInterpreters(8))
            if (!in.inChroot) host.append(in);
        GILSCOPE_REQUIRE_INTERPRETERS(host);
        TargetProcess target(host.last(), targetScript("heavy_light.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QString pid = QString::number(target.pid());
        const QString tiny = tachFixture("tiny.bin");
        const fs::path full = fullDevice(d());
        const QList<QStringList> commands = {
            {"report", tiny},
            {"report", tiny, "--json"},
            {"info", tiny},
            {"replay", tiny, "--pstats"},
            {"replay", tiny, "--collapsed", "-o", "-"},
            {"ps"},
            {"ps", "--json"},
            {"dump", pid},
            {"attach", pid, "-d", "0.5", "--pstats"},
        };
        qputenv("XDG_CACHE_HOME", QByteArray::fromStdString((d() / "cache").string()));
        for (const QStringList& args : commands) {
            // sh opens the device as stdout, exactly as `gilscope ... > /dev/full` would.
            const auto r = runProgram(
                "sh", QStringList{"-c", "exec \"$0\" \"$@\" > " + q(full), gilscopeBinary()} + args,
                {}, kShortRunMs);
            QVERIFY2(r.exitCode == 10, qPrintable(args.join(' ') + ": " + describe(r)));
            QVERIFY2(r.err.contains("No space left on device"),
                     qPrintable(args.join(' ') + ": " + r.err));
        }
        qunsetenv("XDG_CACHE_HOME");
        // The table of the attach was lost with stdout; its recording was not.
        const fs::path rescued = d() / "cache" / "gilscope" / "rescued" / "recording.rescued.bin";
        QVERIFY(fs::is_regular_file(rescued));
        const auto replayed = runGilscope({"replay", q(rescued), "--pstats"});
        QVERIFY2(replayed.exitCode == 0 && replayed.out.contains("heavy"),
                 qPrintable(describe(replayed)));
    }

    // Old: "no samples" shared code 2 with bad arguments, and empty outputs were written.
    void code11NoSamples() {
        writeBin(d() / "empty.bin", 0);
        writeText(d() / "out.json", "keep");
        const auto r =
            runGilscope({"replay", q(d() / "empty.bin"), "--gecko", "-o", q(d() / "out.json")});
        QVERIFY2(r.exitCode == 11, qPrintable(describe(r)));
        QCOMPARE(readText(d() / "out.json"), std::string("keep"));
    }

    // Old: killed by SIGPIPE (141) releasing the gate of a command that had exited.
    void runForwardsTheCodeOfACommandWithoutPython() {
        const auto r = runGilscope({"run", "--", "sh", "-c", "exit 2"}, q(d()), kShortRunMs);
        QVERIFY2(r.exitCode == 2, qPrintable(describe(r)));
        QVERIFY2(r.err.contains("code 2"), qPrintable(r.err));
    }

    // Every record option that takes a value is skipped when looking for the "--" of the
    // COMMAND form. Old: a second hand-kept list lacked --sort and -l/--limit, so this
    // ran `python3 sh -c "exit 3"`.
    void runFindsTheCommandAfterOptionsWithValues() {
        const auto r = runGilscope(
            {"run", "--pstats", "--sort", "name", "-l", "3", "--", "sh", "-c", "exit 3"}, q(d()),
            kShortRunMs);
        QVERIFY2(r.exitCode == 3, qPrintable(describe(r)));
        QVERIFY2(r.err.contains("code 3"), qPrintable(r.err));
    }

    // Old: blocked forever in open() waiting for a writer.
    void fifoAsInputFailsAtOnce() {
        const fs::path fifo = d() / "f.bin";
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        for (const QStringList& args :
             {QStringList{"info", q(fifo)},
              QStringList{"replay", q(fifo), "--collapsed", "-o", q(d() / "out.txt")}}) {
            const auto r = runGilscope(args, q(d()), kShortRunMs);
            QVERIFY2(r.finished, qPrintable(describe(r)));
            QCOMPARE(r.exitCode, 2);
            QVERIFY2(r.err.contains("is not a regular file (a FIFO)"), qPrintable(r.err));
        }
        QCOMPARE(entriesOf(d()), QStringList({"f.bin"}));
    }

    // Any command removes the temp dirs of dead gilscopes: ours only. Old: only a Gecko
    // export cleaned, and as root it removed other users' directories too.
    void anyCommandRemovesStaleTempDirsOfOurs() {
        const pid_t dead = deadPid();
        const fs::path tmp = d() / "tmp";
        fs::create_directory(tmp);
        const std::string suffix = "-" + std::to_string(dead) + "-abcdef";
        for (const char* kind : {"gilscope-gecko", "gilscope-live", "gilscope-run"})
            fs::create_directory(tmp / (kind + suffix));
        const fs::path theirs = tmp / ("gilscope-gecko-" + std::to_string(dead) + "-other0");
        fs::create_directory(theirs);
        const bool root = ::geteuid() == 0;
        if (root) QCOMPARE(::chown(theirs.c_str(), 65534, 65534), 0);
        qputenv("TMPDIR", QByteArray::fromStdString(tmp.string()));
        const auto r = runGilscope({"info", "--help"});
        qunsetenv("TMPDIR");
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(entriesOf(tmp),
                 root ? QStringList({QString::fromStdString(theirs.filename().string())})
                      : QStringList());
    }

    // A SIGKILL during --binary leaves ".out.bin.tmp-<pid>-XXXXXX"; the next write into
    // that directory removes it. Old: it stayed forever (and its name had no pid).
    void temporaryFileOfAKilledRecordingIsRemovedLater() {
        const auto interpreters = findInterpreters(8);
        QList<Interpreter> host;
        for (const auto& in : interpreters)
            if (!in.inChroot) host.append(in);
        GILSCOPE_REQUIRE_INTERPRETERS(host);
        GILSCOPE_REQUIRE_SHARED();
        TargetProcess target(host.last(), targetScript("heavy_light.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        auto p = startGilscope(
            {"attach", QString::number(target.pid()), "--binary", "-o", q(d() / "out.bin")});
        QVERIFY(p);
        // The temporary file is made before sampling starts, so "Captured" is not needed.
        QStringList names;
        for (int i = 0; i < 3000 && names.isEmpty(); ++i) {
            names = entriesOf(d());
            if (names.isEmpty()) QTest::qWait(10);
        }
        QCOMPARE(names.size(), 1);
        QVERIFY2(names[0].startsWith(".out.bin.tmp-" + QString::number(p->processId()) + "-"),
                 qPrintable(names[0]));
        ::kill(static_cast<pid_t>(p->processId()), SIGKILL);
        QVERIFY(p->waitForFinished(10000));
        QCOMPARE(entriesOf(d()), names);
        const auto r = runGilscope(
            {"replay", tachFixture("tiny.bin"), "--collapsed", "-o", q(d() / "other.txt")});
        QCOMPARE(r.exitCode, 0);
        QCOMPARE(entriesOf(d()), QStringList({"other.txt"}));
    }

    // As root, a refused read is not fixed by sudo. Old: "run gilscope with sudo".
    void adviceForARefusedReadFitsTheReason() {
        const auto r = runGilscope({"dump", "1"});
        QVERIFY(r.exitCode != 0);
        if (::geteuid() == 0) {
            QVERIFY2(!r.err.contains("run gilscope with sudo"), qPrintable(r.err));
            QVERIFY2(r.err.contains("sudo will not help"), qPrintable(r.err));
        }
    }

    // info prints the header (and so the sample count) before it decodes, and says that
    // a long decode follows. Old: nothing until the whole file was decoded. stdout and
    // stderr share one pipe here, so their order is the order gilscope wrote them in.
    void infoSaysTheSampleCountBeforeDecoding() {
        writeBin(d() / "big.bin", 20'000'000);
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(gilscopeBinary(), {"info", q(d() / "big.bin")});
        QVERIFY(p.waitForFinished(60000));
        const QByteArray out = p.readAll();
        QCOMPARE(p.exitCode(), 0);
        const qsizetype samples = out.indexOf("Samples:           20000000");
        const qsizetype note = out.indexOf("decoding 20000000 samples");
        const qsizetype records = out.indexOf("Records:");
        QVERIFY2(samples >= 0 && note > samples && records > note, out.constData());
    }
};

QTEST_GUILESS_MAIN(TestExitCodes)
#include "test_exit_codes.moc"
