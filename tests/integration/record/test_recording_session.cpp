// RecordingSession against a real Python process, as the GUI drives it: open() attaches
// without sampling (the GUI does it on a worker), startSampling() records, and after
// finish() the private `.bin` copy saves to a file TachReader reads, with every sample.
#include "core/session/recording_session.h"
#include "core/tach/tach_reader.h"
#include "tests/support/python_interpreters.h"

#include <QTemporaryDir>
#include <QTest>

using namespace gilscope;
using namespace gilscope::test;
namespace fs = std::filesystem;

namespace {

// Threads of this test process (/proc/self/task).
size_t ownThreads() {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator("/proc/self/task"))
        ++n;
    return n;
}

class CountingSink : public SampleSink {
public:
    void addBatch(const SampleBatch& b) override { samples += b.timestampsUs.size(); }
    uint64_t samples = 0;
};

} // namespace

class TestRecordingSession : public QObject {
    Q_OBJECT
private slots:
    void openSamplesOnlyOnceStartedAndSavesItsBinCopy() {
        const auto all = findInterpreters(8, 13);
        GILSCOPE_REQUIRE(!all.isEmpty(), "no host interpreter");
        TargetProcess target(all.last(), QStringLiteral("gil_contention.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        QTemporaryDir dir;
        const fs::path dest = dir.filePath(QStringLiteral("saved.bin")).toStdString();

        const size_t threadsBefore = ownThreads();
        auto opened = RecordingSession::open(int(target.pid()), SessionOptions{});
        QVERIFY2(opened, opened ? "" : opened.error().message.c_str());
        RecordingSession& session = **opened;
        QVERIFY(!session.running());
        // Attached, not sampling: no sampler thread exists yet, so none can sample.
        QCOMPARE(ownThreads(), threadsBefore);
        QCOMPARE(session.stats().okTicks, uint64_t(0));

        session.startSampling();
        QVERIFY(session.running());
        QVERIFY(ownThreads() > threadsBefore);
        QTRY_VERIFY_WITH_TIMEOUT(session.stats().okTicks > 100, 60000);
        QVERIFY(!session.saveBinCopyTo(dest)); // not while recording
        QVERIFY(!fs::exists(dest));
        session.finish();
        QVERIFY2(session.hasBinCopy(), session.binCopyStatus().error().message.c_str());

        const Status saved = session.saveBinCopyTo(dest);
        QVERIFY2(saved, saved ? "" : saved.error().message.c_str());
        auto reader = TachReader::open(dest);
        QVERIFY2(reader, reader ? "" : reader.error().message.c_str());
        QCOMPARE(int(reader->info().pythonMinor), all.last().minor);
        QCOMPARE(reader->info().sampleCount, session.stats().threadSamples);
        CountingSink sink;
        auto replayed = reader->replay(sink);
        QVERIFY2(replayed, replayed ? "" : replayed.error().message.c_str());
        QCOMPARE(sink.samples, session.stats().threadSamples);
    }

    void sessionThatNeverStartedHasNoCopy() {
        const auto all = findInterpreters(8, 13);
        GILSCOPE_REQUIRE(!all.isEmpty(), "no host interpreter");
        TargetProcess target(all.first(), QStringLiteral("three_deep.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        auto opened = RecordingSession::open(int(target.pid()), SessionOptions{});
        QVERIFY2(opened, opened ? "" : opened.error().message.c_str());
        (*opened)->finish();
        QVERIFY(!(*opened)->hasBinCopy());
        QTemporaryDir dir;
        const fs::path dest = dir.filePath(QStringLiteral("saved.bin")).toStdString();
        const Status saved = (*opened)->saveBinCopyTo(dest);
        QVERIFY(!saved);
        QVERIFY(!saved.error().message.empty());
        QVERIFY(!fs::exists(dest));
    }

    void openOfAMissingProcessIsAnError() {
        auto opened = RecordingSession::open(4194305, SessionOptions{}); // > any pid_max
        QVERIFY(!opened);
        QCOMPARE(opened.error().kind, ErrorKind::ProcessNotFound);
    }
};

QTEST_GUILESS_MAIN(TestRecordingSession)
#include "test_recording_session.moc"
