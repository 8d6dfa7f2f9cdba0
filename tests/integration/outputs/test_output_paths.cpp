// What `-o` names, and when gilscope finds out it cannot write there: symlinks are
// followed, devices/FIFOs/stdout written directly, existing files keep mode and owner,
// outputs are made before sampling starts, a failing sink (full spill disk, failing
// .bin file) stops the recording and keeps what it can, a huge -d means "until the
// target exits", and a recording of 0 samples never replaces a file.
#include "core/common/error.h"
#include "core/util/temp_dir.h"
#include "core/util/unique_fd.h"
#include "output_test_support.h"
#include "tests/integration/record/record_test_helpers.h"
#include "tests/support/file_size_limit.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"
#include "tests/support/shared_dir.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTest>

#include <fcntl.h>
#include <filesystem>
#include <sys/stat.h>
#include <unistd.h>

using namespace gilscope;
using namespace gilscope::test;
namespace fs = std::filesystem;

namespace {

QString q(const fs::path& p) {
    return QString::fromStdString(p.string());
}

// Thread-samples in a Gecko profile (every thread's samples.length).
qint64 geckoSamples(const QByteArray& json, bool* ok) {
    QJsonParseError err{};
    const QJsonDocument doc = QJsonDocument::fromJson(json, &err);
    *ok = err.error == QJsonParseError::NoError && doc.isObject();
    qint64 n = 0;
    for (const auto& t : doc.object()["threads"].toArray())
        n += t.toObject()["samples"].toObject()["length"].toInteger();
    return n;
}

} // namespace

class TestOutputPaths : public QObject {
    Q_OBJECT
    QList<Interpreter> host_;
    TempDir dir_;
    fs::path d() const { return dir_.path(); }

    QStringList replayTo(const fs::path& out) const {
        return {"replay", tachFixture("medium.bin"), "--collapsed", "-o", q(out)};
    }

private slots:
    void initTestCase() {
        const auto all = findInterpreters(8);
        for (const auto& in : all)
            if (!in.inChroot) host_.append(in);
        GILSCOPE_REQUIRE_INTERPRETERS(host_);
        printTestedInterpreters(host_);
    }
    void init() {
        auto t = TempDir::create("gilscope-outputs");
        QVERIFY(t.ok());
        dir_ = std::move(t.value());
    }
    void cleanup() { dir_ = TempDir(); }

    // Old: the link was replaced by a regular file and real.txt kept its old text.
    void symlinkIsFollowed() {
        GILSCOPE_REQUIRE_SHARED();
        writeText(d() / "real.txt", "old");
        fs::create_symlink("real.txt", d() / "link.txt");
        const auto r = runGilscope(replayTo(d() / "link.txt"));
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QVERIFY(fs::is_symlink(d() / "link.txt"));
        bool ok = false;
        QVERIFY(totalSamples(readCollapsed(q(d() / "real.txt"), &ok)) > 0);
        QVERIFY(ok);
        QCOMPARE(entriesOf(d()), QStringList({"link.txt", "real.txt"}));
    }

    // Old (as root): the device node became a regular file holding the profile.
    void characterDeviceIsWrittenDirectly() {
        GILSCOPE_REQUIRE_SHARED();
        const fs::path full = fullDevice(d());
        const auto r = runGilscope(replayTo(full));
        QCOMPARE(r.exitCode, exitCodeFor(ErrorKind::DiskFull));
        QVERIFY2(r.err.contains("No space left on device"), qPrintable(r.err));
        QVERIFY(fs::is_character_file(full));
    }

    // Old: the FIFO was replaced by a file and its reader got nothing.
    void fifoIsWrittenDirectly() {
        GILSCOPE_REQUIRE_SHARED();
        const fs::path fifo = d() / "out.fifo";
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        UniqueFd reader(::open(fifo.c_str(), O_RDONLY | O_NONBLOCK));
        QVERIFY(reader.valid());
        auto p = startGilscope(replayTo(fifo));
        QVERIFY(p);
        QByteArray got;
        char buf[65536];
        for (;;) { // read until gilscope closes its end (EOF after it has written)
            const ssize_t n = ::read(reader.get(), buf, sizeof buf);
            if (n > 0) got.append(buf, n);
            if (n == 0 && p->state() == QProcess::NotRunning) break;
            if (n <= 0) p->waitForFinished(20);
        }
        QCOMPARE(p->exitCode(), 0);
        bool ok = false;
        QVERIFY(totalSamples(parseCollapsed(got, &ok)) > 0);
        QVERIFY(ok);
        QVERIFY(fs::is_fifo(fifo));
    }

    // `-o -` and a link to our stdout (what /dev/stdout is) write into the pipe; the
    // messages go to stderr. Old: files named "-" / the link replaced, stdout empty.
    void standardOutput() {
        GILSCOPE_REQUIRE_SHARED();
        fs::create_symlink("/proc/self/fd/1", d() / "stdout-link");
        for (const fs::path& out : {fs::path("-"), d() / "stdout-link"}) {
            const auto r = runGilscope(replayTo(out), q(d()));
            QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
            bool ok = false;
            QVERIFY2(totalSamples(parseCollapsed(r.outBytes, &ok)) > 0, qPrintable(r.out));
            QVERIFY2(ok, qPrintable(r.out));
            QVERIFY2(r.err.contains("Collapsed stack output written to"), qPrintable(r.err));
        }
        QVERIFY(fs::is_symlink(d() / "stdout-link"));
        QCOMPARE(entriesOf(d()), QStringList({"stdout-link"}));
    }

    // Old: a 0644 file owned by root replaced a 0600 file of another user.
    void existingFileKeepsModeAndOwner() {
        GILSCOPE_REQUIRE_SHARED();
        const fs::path out = d() / "private.txt";
        writeText(out, "old");
        ::chmod(out.c_str(), 0600);
        const bool root = ::geteuid() == 0;
        if (root) QCOMPARE(::chown(out.c_str(), 65534, 65534), 0);
        const auto r = runGilscope(replayTo(out));
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        struct stat st {};
        QCOMPARE(::stat(out.c_str(), &st), 0);
        QCOMPARE(st.st_mode & 07777, mode_t(0600));
        if (root) QCOMPARE(st.st_uid, uid_t(65534));
        QVERIFY(readText(out) != "old");
    }

    // Old: recorded the whole -d, then failed with exit 9 and nothing written.
    void unwritableOutputFailsBeforeSampling() {
        TargetProcess target(host_.last(), targetScript("heavy_light.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        TmpfsMount ro(d() / "ro", 1 << 20, true);
        const QString pid = QString::number(target.pid());
        struct Case {
            fs::path out;
            int code;
        };
        std::vector<Case> cases = {{d() / "nonexist" / "dir" / "x.json", 9}};
        if (ro.mounted() && ro.error().isEmpty())
            cases.push_back({d() / "ro" / "x.json", 5});
        else if (inCi()) // the read-only case needs root; CI has it
            QFAIL(qPrintable("CI needs this: " + ro.error()));
        for (const Case& c : cases) {
            for (const char* format : {"--gecko", "--binary", "--collapsed"}) {
                const auto r = runGilscope({"attach", pid, "-d", "30", format, "-o", q(c.out)});
                QVERIFY2(r.exitCode == c.code, qPrintable(describe(r)));
                QVERIFY2(!r.out.contains("Captured"), qPrintable(describe(r))); // never sampled
                QVERIFY2(r.err.contains(q(c.out)), qPrintable(r.err));
            }
        }
    }

    // -d beyond what the clock can hold means "until the target exits". Old: stopped at
    // once with "Captured 0 samples", exit 0, and an existing output emptied.
    void hugeDurationRecordsUntilTheTargetExits() {
        for (const char* duration : {"1e300", "99999999999999999999"}) {
            TargetOptions options;
            options.args = {"3.0", "0"}; // long enough to attach on a busy machine
            TargetProcess target(host_.last(), targetScript("exits_soon.py"), options);
            QVERIFY2(target.start(), qPrintable(target.error()));
            const fs::path out = d() / "out.txt";
            writeText(out, "existing\n");
            const auto r = runGilscope(
                {"attach", QString::number(target.pid()), "-d", duration, "-o", q(out)});
            QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
            QVERIFY2(r.err.contains("exited"), qPrintable(r.err));
            bool ok = false;
            QVERIFY2(samplesIn(readCollapsed(q(out), &ok), "work") > 100, qPrintable(r.out));
            QVERIFY(ok);
        }
    }

    // Old: "Captured 0 samples", exit 0, and the existing file left at 0 bytes.
    void noSamplesNeverReplacesAFile() {
        TargetProcess target(host_.last(), targetScript("heavy_light.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        for (const char* format : {"--collapsed", "--gecko", "--binary"}) {
            const fs::path out = d() / "precious";
            writeText(out, "precious\n");
            const auto r = runGilscope(
                {"attach", QString::number(target.pid()), "-d", "1e-9", format, "-o", q(out)});
            QVERIFY2(r.exitCode == exitCodeFor(ErrorKind::NoSamples), qPrintable(describe(r)));
            QVERIFY2(r.err.contains("no samples were recorded"), qPrintable(r.err));
            QCOMPARE(readText(out), std::string("precious\n"));
            QCOMPARE(entriesOf(d()), QStringList({"precious"}));
        }
    }

    // The Gecko spill directory fills up: the recording stops at once, says why, and
    // writes every sample taken (what did not fit on disk stayed in memory). Old: it
    // recorded on for the whole -d, then failed and wrote nothing.
    void fullSpillDirectoryStopsAndKeepsTheSamples() {
        const fs::path spill = d() / "spill";
        TmpfsMount tmp(spill, 1 << 20, false, (1 << 20) - 64 * 1024);
        GILSCOPE_REQUIRE(tmp.mounted(), tmp.error());
        TargetProcess target(host_.last(), targetScript("four_threads.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        qputenv("TMPDIR", QByteArray::fromStdString(spill.string()));
        const auto r = runGilscope({"attach", QString::number(target.pid()), "-a", "-r", "5khz",
                                    "-d", "50", "--gecko", "-o", q(d() / "out.json")},
                                   {}, 120000);
        qunsetenv("TMPDIR");
        QVERIFY2(r.exitCode == exitCodeFor(ErrorKind::DiskFull), qPrintable(describe(r)));
        QVERIFY2(r.err.contains("recording stopped: cannot write the profile spill file"),
                 qPrintable(r.err));
        QVERIFY2(r.out.contains("Gecko profile written to"), qPrintable(r.out));
        bool ok = false;
        const qint64 samples =
            geckoSamples(QByteArray::fromStdString(readText(d() / "out.json")), &ok);
        QVERIFY(ok);
        // More samples than the 64 KiB left on the spill disk could hold (12 bytes each).
        QVERIFY2(samples > 64 * 1024 / 12, qPrintable(QString::number(samples)));
        QVERIFY(entriesOf(spill) == QStringList({".filler"})); // spill removed
    }

    // Issue 18 item 1: the export's disk is full, so is the .bin beside it: the
    // recording goes to the cache, the message says where and which replay command
    // finishes the job, and that command writes the profile. Old: exit 10, samples lost.
    void fullDiskAtExportKeepsTheRecordingInTheCache() {
        const fs::path outDir = d() / "full";
        TmpfsMount tmp(outDir, 256 * 1024, false, 256 * 1024); // not one block left
        GILSCOPE_REQUIRE(tmp.mounted(), tmp.error());
        TargetProcess target(host_.last(), targetScript("four_threads.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        const fs::path cache = d() / "cache";
        qputenv("XDG_CACHE_HOME", QByteArray::fromStdString(cache.string()));
        const fs::path out = outDir / "out.json";
        const auto r = runGilscope(
            {"attach", QString::number(target.pid()), "-a", "-d", "1", "--gecko", "-o", q(out)});
        qunsetenv("XDG_CACHE_HOME");
        QVERIFY2(r.exitCode == exitCodeFor(ErrorKind::DiskFull), qPrintable(describe(r)));
        const fs::path rescued = cache / "gilscope" / "rescued" / "out.json.rescued.bin";
        QVERIFY2(fs::is_regular_file(rescued), qPrintable(describe(r)));
        QVERIFY2(r.err.contains("the recording was kept in " + q(rescued)), qPrintable(r.err));
        const QString command = "gilscope replay " + q(rescued) + " --gecko -o " + q(out);
        QVERIFY2(r.err.contains(command), qPrintable(r.err));
        QCOMPARE(entriesOf(outDir), QStringList({".filler"})); // nothing half-written

        // The command it gave finishes the job (elsewhere: that disk is still full).
        const fs::path done = d() / "done.json";
        const auto replayed = runGilscope({"replay", q(rescued), "--gecko", "-o", q(done)});
        QVERIFY2(replayed.exitCode == 0, qPrintable(describe(replayed)));
        bool ok = false;
        const qint64 samples = geckoSamples(QByteArray::fromStdString(readText(done)), &ok);
        QVERIFY(ok);
        QVERIFY2(samples > 0, qPrintable(QString::number(samples)));
    }

    // The same when only the big JSON does not fit (a file size limit, inherited by
    // gilscope): the small .bin goes beside the destination, and an older rescue there
    // stays. Old: exit 10, samples lost.
    void failedExportKeepsTheRecordingBesideTheDestination() {
        TargetProcess target(host_.last(), targetScript("four_threads.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        const fs::path out = d() / "out.json";
        writeText(d() / "out.json.rescued.bin", "an older rescue");
        RunResult r;
        {
            FileSizeLimit limit(48 * 1024); // the JSON of 1 s of 5 threads is far larger
            QVERIFY(limit.active());
            r = runGilscope({"attach", QString::number(target.pid()), "-a", "-d", "1", "--gecko",
                             "-o", q(out)});
        }
        QVERIFY2(r.exitCode == exitCodeFor(ErrorKind::DiskFull), qPrintable(describe(r)));
        const fs::path rescued = d() / "out.json.rescued-2.bin";
        QVERIFY2(r.err.contains("the recording was kept in " + q(rescued)), qPrintable(r.err));
        QCOMPARE(readText(d() / "out.json.rescued.bin"), std::string("an older rescue"));
        QVERIFY(!fs::exists(out));
        const auto replayed = runGilscope({"replay", q(rescued), "--gecko", "-o", q(out)});
        QVERIFY2(replayed.exitCode == 0, qPrintable(describe(replayed)));
        bool ok = false;
        QVERIFY(geckoSamples(QByteArray::fromStdString(readText(out)), &ok) > 0);
        QVERIFY(ok);
    }

    // The .bin file's disk fills up: the recording stops at once with a clear message,
    // and no partial file is left. Old: recorded the whole -d first.
    void failingBinaryOutputStopsTheRecording() {
        const fs::path outDir = d() / "small";
        TmpfsMount tmp(outDir, 1 << 20, false, (1 << 20) - 64 * 1024);
        GILSCOPE_REQUIRE(tmp.mounted(), tmp.error());
        TargetProcess target(host_.last(), targetScript("four_threads.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        const auto r =
            runGilscope({"attach", QString::number(target.pid()), "-a", "-r", "5khz", "-d", "50",
                         "--binary", "--compression", "none", "-o", q(outDir / "out.bin")},
                        {}, 120000);
        QVERIFY2(r.exitCode == exitCodeFor(ErrorKind::DiskFull), qPrintable(describe(r)));
        QVERIFY2(r.err.contains("recording stopped"), qPrintable(r.err));
        QVERIFY2(r.wallSec < 45, qPrintable(describe(r))); // it did not record the full 50 s
        QCOMPARE(entriesOf(outDir), QStringList({".filler"}));
    }

    // A live recording into a pipe and into a device, as the issue ran them.
    void attachWritesIntoAPipeAndFailsClearlyOnAFullDevice() {
        TargetProcess target(host_.last(), targetScript("heavy_light.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QString pid = QString::number(target.pid());
        auto r = runGilscope({"attach", pid, "-d", "0.5", "-o", "-"});
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        bool ok = false;
        QVERIFY(samplesIn(parseCollapsed(r.outBytes, &ok), "heavy") > 0);
        QVERIFY2(ok, qPrintable(r.out));
        QVERIFY2(r.err.contains("Captured"), qPrintable(r.err));
        const fs::path full = fullDevice(d());
        r = runGilscope({"attach", pid, "-d", "0.5", "-o", q(full)});
        QCOMPARE(r.exitCode, exitCodeFor(ErrorKind::DiskFull));
        QVERIFY2(r.err.contains("cannot write " + q(full) + ": No space left on device"),
                 qPrintable(r.err));
        QVERIFY(fs::is_character_file(full));
    }
};

QTEST_GUILESS_MAIN(TestOutputPaths)
#include "test_output_paths.moc"
