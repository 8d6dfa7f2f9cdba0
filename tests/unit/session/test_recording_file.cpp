// RecordingFile on CPython-written fixtures: info rows, a replay that counts what
// CPython's reader counts, GC seen in the timeline, and repeatable exports.
#include "core/session/recording_file.h"
#include "tests/support/shared_dir.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <chrono>
#include <fcntl.h>
#include <future>
#include <sys/stat.h>
#include <unistd.h>

using namespace gilscope;

namespace {

QJsonObject fixtureInfo(const QString& name) {
    QFile f(test::fixturePath(QStringLiteral("tach/%1.info.json").arg(name)));
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object();
}

std::filesystem::path fixture(const QString& name) {
    return test::fixturePath(QStringLiteral("tach/%1.bin").arg(name)).toStdString();
}

} // namespace

class TestRecordingFile : public QObject {
    Q_OBJECT
private slots:
    // The GUI's grid and `gilscope info` show the same fields (tach_describe.h); the
    // grid adds samples per thread and groups digits.
    void describesTheHeader() {
        GILSCOPE_REQUIRE_SHARED();
        auto file = RecordingFile::open(fixture(QStringLiteral("real-315")));
        QVERIFY2(file, file ? "" : file.error().message.c_str());
        const auto rows = (*file)->describe();
        auto value = [&](const std::string& label) {
            for (const auto& [l, v] : rows)
                if (l == label) return v;
            return std::string("<missing>");
        };
        QCOMPARE(value("Written by"), std::string("Python 3.15.2"));
        // In total and per thread (estimated from the header before loading).
        QCOMPARE(value("Thread-samples, total"), std::string("23,060"));
        QCOMPARE(value("Samples per thread"), std::string("≈ 5,765"));
        QCOMPARE(value("Samples"), std::string("<missing>"));
        QCOMPARE(value("Threads"), std::string("4"));
        QCOMPARE(value("Mode"), std::string("wall"));
        QCOMPARE(value("Compression"), std::string("zstd"));
        QCOMPARE(value("Error rate"), std::string("5.30%"));

        const std::string text = tachInfoText((*file)->info());
        for (const char* line : {"Written by:        Python 3.15.2\n", "Samples:           23060\n",
                                 "Mode:              wall\n", "Compression:       zstd\n",
                                 "Error rate:        5.30%\n"})
            QVERIFY2(text.find(line) != std::string::npos, text.c_str());
    }

    void loadCountsLikeCPython() {
        GILSCOPE_REQUIRE_SHARED();
        const QJsonObject info = fixtureInfo(QStringLiteral("medium"));
        QVERIFY(!info.isEmpty());
        auto file = RecordingFile::open(fixture(QStringLiteral("medium")));
        QVERIFY(file);
        uint64_t lastDone = 0, lastTotal = 0;
        auto loaded = (*file)->load([&](uint64_t d, uint64_t t) { lastDone = d, lastTotal = t; });
        QVERIFY2(loaded, loaded ? "" : loaded.error().message.c_str());
        QCOMPARE(qint64(loaded.value()), info.value(QStringLiteral("replay_count")).toInteger());
        QCOMPARE(lastDone, lastTotal);
        const TimelineSnapshot s = (*file)->timeline();
        QCOMPARE(qint64(s.samples), info.value(QStringLiteral("replay_count")).toInteger());
        QCOMPARE(s.threads.size(), size_t(4));
        uint64_t gc = 0;
        for (const auto& t : s.threads)
            for (const auto& b : t.buckets)
                gc += b.gc;
        QVERIFY(gc > 0); // thread 104 has <GC> frames
        // Loading twice is refused, not silently doubled.
        QVERIFY(!(*file)->load());
    }

    void exportsRepeatably() {
        GILSCOPE_REQUIRE_SHARED();
        auto file = RecordingFile::open(fixture(QStringLiteral("tiny")));
        QVERIFY(file);
        QTemporaryDir dir;
        const std::filesystem::path early =
            dir.filePath(QStringLiteral("early.json")).toStdString();
        QVERIFY(!(*file)->exportTo(early)); // not loaded yet
        QVERIFY((*file)->load());
        for (const char* name : {"a.json", "b.json"}) {
            const std::filesystem::path dest =
                dir.filePath(QString::fromLatin1(name)).toStdString();
            const Status st = (*file)->exportTo(dest);
            QVERIFY2(st, st ? "" : st.error().message.c_str());
            QVERIFY(std::filesystem::file_size(dest) > 0);
        }
        auto bytes = [&](const char* name) {
            QFile f(dir.filePath(QString::fromLatin1(name)));
            return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
        };
        QVERIFY(!bytes("a.json").isEmpty());
        QCOMPARE(bytes("a.json"), bytes("b.json"));
    }

    void cancelledLoadIsReported() {
        GILSCOPE_REQUIRE_SHARED();
        auto file = RecordingFile::open(fixture(QStringLiteral("medium")));
        QVERIFY(file);
        CancelToken cancel;
        cancel.cancel();
        auto loaded = (*file)->load({}, &cancel);
        QVERIFY(!loaded);
        QCOMPARE(loaded.error().kind, ErrorKind::Cancelled);
        QVERIFY(!(*file)->loaded());
    }

    // The GUI's Open path: a FIFO is refused at once. Old: open() waited for a writer
    // forever (here the test would release it after 10 s and fail).
    void fifoIsRefusedWithoutBlocking() {
        QTemporaryDir dir;
        const QByteArray fifo = QFile::encodeName(dir.filePath("f.bin"));
        QCOMPARE(::mkfifo(fifo.constData(), 0600), 0);
        auto opened =
            std::async(std::launch::async, [&] { return RecordingFile::open(fifo.toStdString()); });
        if (opened.wait_for(std::chrono::seconds(10)) != std::future_status::ready) {
            const int w = ::open(fifo.constData(), O_WRONLY | O_NONBLOCK); // release it
            opened.wait();
            if (w >= 0) ::close(w);
            QFAIL("opening a FIFO blocked");
        }
        auto r = opened.get();
        QVERIFY(!r.ok());
        QVERIFY2(r.error().message.find("not a regular file") != std::string::npos,
                 r.error().message.c_str());
    }

    void missingFileIsAnError() {
        auto file = RecordingFile::open("/nonexistent/recording.bin");
        QVERIFY(!file);
        QVERIFY(!file.error().message.empty());
    }
};

QTEST_GUILESS_MAIN(TestRecordingFile)
#include "test_recording_file.moc"
