// The continuous push's parts that need no server: the on-disk queue (bounded, oldest
// dropped first, a dead gilscope's queue adopted), Pyroscope's label rules, the default
// service name, and which answers are retried.
#include "core/push/push_labels.h"
#include "core/push/push_queue.h"
#include "core/push/push_request.h"
#include "core/push/pusher.h"
#include "tests/support/synthetic_feed.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <sys/wait.h>
#include <unistd.h>

using namespace gilscope;
using namespace gilscope::push;
namespace fs = std::filesystem;

class TestPushParts : public QObject {
    Q_OBJECT

private slots:
    void queueKeepsOrderAndSurvivesReopening() {
        QTemporaryDir dir;
        const fs::path path = dir.filePath("q").toStdString();
        {
            auto q = PushQueue::open(path, 1 << 20);
            QVERIFY(q);
            QCOMPARE(q->push("first").value(), uint64_t{0});
            QCOMPARE(q->push("second").value(), uint64_t{0});
        }
        auto q = PushQueue::open(path, 1 << 20);
        QVERIFY(q);
        QCOMPARE(q->size(), size_t{2});
        auto item = q->front();
        QVERIFY(item);
        QCOMPARE(item->body, std::string("first"));
        q->pop(item->sequence);
        QCOMPARE(q->push("third").value(), uint64_t{0});
        QCOMPARE(q->front()->body, std::string("second"));
        QCOMPARE(q->bytes(), uint64_t{11});
    }

    // Past its bound the queue drops its oldest, never the newest.
    void fullQueueDropsTheOldest() {
        QTemporaryDir dir;
        auto q = PushQueue::open(dir.filePath("q").toStdString(), 10);
        QVERIFY(q);
        QCOMPARE(q->push("aaaa").value(), uint64_t{0});
        QCOMPARE(q->push("bbbb").value(), uint64_t{0});
        QCOMPARE(q->push("cccc").value(), uint64_t{1});
        QCOMPARE(q->size(), size_t{2});
        QCOMPARE(q->front()->body, std::string("bbbb"));
        QCOMPARE(q->push(std::string(50, 'x')).value(), uint64_t{2}); // alone over the bound
        QCOMPARE(q->size(), size_t{1});
    }

    // A queue a killed gilscope left is taken over (and emptied) by the next one; one that
    // still runs keeps its own.
    void deadSessionsQueueIsAdopted() {
        QTemporaryDir dir;
        const fs::path base = dir.path().toStdString();
        const pid_t child = fork();
        if (child == 0) _exit(0);
        waitpid(child, nullptr, 0); // a pid that no longer runs
        {
            auto dead = PushQueue::open(base / std::to_string(child), 1 << 20);
            QVERIFY(dead);
            QVERIFY(dead->push("left behind 1"));
            QVERIFY(dead->push("left behind 2"));
            auto alive = PushQueue::open(base / "1", 1 << 20); // init runs
            QVERIFY(alive->push("not ours"));
        }
        auto mine = PushQueue::openSession(base, 1 << 20);
        QVERIFY(mine);
        QCOMPARE(mine->size(), size_t{2});
        QCOMPARE(mine->front()->body, std::string("left behind 1"));
        QVERIFY(!fs::exists(base / std::to_string(child)));
        QVERIFY(fs::exists(base / "1"));
    }

    void labelsFollowPyroscopesRules() {
        std::vector<PushLabel> ok{{"__name__", "process_cpu"}, {"service_name", "app"}};
        QVERIFY(validatePushLabels(ok));
        auto with = [&](PushLabel extra) {
            auto l = ok;
            l.push_back(extra);
            return validatePushLabels(l);
        };
        QVERIFY(!with({"9lives", "x"}));
        QVERIFY(!with({"has-dash", "x"}));
        QVERIFY(!with({"service_name", "again"}));
        QVERIFY(!with({"v", std::string(2049, 'x')}));
        QVERIFY(!with({"v", "\xff"}));
        QVERIFY(with({"v", std::string(2048, 'x')}));
        QVERIFY(!validatePushLabels({{"__name__", "process-cpu"}, {"service_name", "a"}}));
        QVERIFY(!validatePushLabels({{"__name__", "process_cpu"}, {"service_name", ""}}));
        auto many = ok;
        for (int i = 0; i < 28; ++i)
            many.push_back({"l" + std::to_string(i), "v"});
        QVERIFY(validatePushLabels(many)); // 30
        many.push_back({"one_more", "v"});
        QVERIFY(!validatePushLabels(many));
        QVERIFY(!parseLabelArgument("novalue"));
        QCOMPARE(parseLabelArgument("k=a=b")->value, std::string("a=b"));
    }

    void serviceNameComesFromTheCommandLine() {
        QCOMPARE(serviceNameFromCommandLine({"python3", "/srv/app/web.py", "--port", "80"}),
                 std::string("web"));
        QCOMPARE(serviceNameFromCommandLine({"python3", "-u", "-X", "dev", "job.py"}),
                 std::string("job"));
        QCOMPARE(serviceNameFromCommandLine({"python3", "-m", "celery", "worker"}),
                 std::string("celery"));
        QCOMPARE(serviceNameFromCommandLine({"/usr/bin/python3.11", "-c", "pass"}),
                 std::string("python3.11"));
        QCOMPARE(serviceNameFromCommandLine({}), std::string("python"));
    }

    void onlyDataRefusalsAreNotRetried() {
        QCOMPARE(verdictOf({200, "", ""}), PushVerdict::Sent);
        QCOMPARE(verdictOf({400, "", ""}), PushVerdict::Refused);
        QCOMPARE(verdictOf({413, "", ""}), PushVerdict::Refused);
        QCOMPARE(verdictOf({0, "", "Connection refused"}), PushVerdict::Retry);
        QCOMPARE(verdictOf({401, "", ""}), PushVerdict::Retry);
        QCOMPARE(verdictOf({429, "", ""}), PushVerdict::Retry);
        QCOMPARE(verdictOf({503, "", ""}), PushVerdict::Retry);
        QCOMPARE(serverMessage({400, R"({"code":"invalid_argument","message":"bad labels"})", ""}),
                 std::string("HTTP 400: bad labels"));
    }

    // While the server answers, a profile goes from memory to the server, never through
    // the disk; once a send fails it waits on disk, and later ones queue behind it, so
    // they reach the server in order when it is back.
    void theDiskIsOnlyForWhatTheServerCouldNotTake() {
        QTemporaryDir dir;
        const fs::path queueDir = dir.filePath("q").toStdString();
        auto queue = PushQueue::open(queueDir, 1 << 20);
        QVERIFY(queue);
        struct Server {
            std::mutex mutex;
            int status = 200;
            std::vector<std::string> posts; // every body offered, in order
            std::vector<size_t> onDisk;     // queued files at each post
        } server;
        auto filesIn = [&] {
            size_t n = 0;
            for (const auto& e : fs::directory_iterator(queueDir))
                n += e.path().extension() == ".push";
            return n;
        };
        struct Transport final : PushTransport {
            Server& s;
            std::function<size_t()> files;
            Transport(Server& server, std::function<size_t()> f) : s(server), files(std::move(f)) {}
            PostResult post(const std::string& body) override {
                const std::lock_guard lock(s.mutex);
                s.posts.push_back(body);
                s.onDisk.push_back(files());
                return {s.status, "", s.status == 0 ? "Connection refused" : ""};
            }
        };
        pprof::PprofSink sink;
        test::SyntheticFeed feed(sink);
        const FrameId f = feed.frame("a.py", 3, "work");
        PusherOptions options;
        options.labels = {{"service_name", "t"}};
        options.intervalMs = 50;
        options.minBackoffMs = 200;
        Pusher pusher(
            sink, std::move(*queue), [&] { return std::make_unique<Transport>(server, filesIn); },
            options, [](const std::string&) {});
        pusher.start();
        auto posted = [&] {
            const std::lock_guard lock(server.mutex);
            return server.posts.size();
        };
        uint64_t t = 1;
        feed.add(1, 0, {f}, {t++});
        QTRY_VERIFY_WITH_TIMEOUT(posted() >= 1, 60000);
        {
            const std::lock_guard lock(server.mutex);
            QCOMPARE(server.onDisk[0], size_t(0));
            server.status = 0; // the server goes away
        }
        feed.add(1, 0, {f}, {t++});
        QTRY_VERIFY_WITH_TIMEOUT(posted() >= 2, 60000);
        QTRY_VERIFY_WITH_TIMEOUT(filesIn() == 1, 60000); // the failed one waits on disk
        feed.add(1, 0, {f}, {t++});                      // queued behind it, not sent ahead of it
        QTRY_VERIFY_WITH_TIMEOUT(filesIn() == 2, 60000);
        {
            const std::lock_guard lock(server.mutex);
            server.status = 200;
        }
        QTRY_VERIFY_WITH_TIMEOUT(filesIn() == 0, 60000);
        pusher.stop(1000);
        const std::lock_guard lock(server.mutex);
        // Offered: the first, the second (failed), then the second again and the third.
        std::vector<std::string> ids;
        for (const std::string& body : server.posts)
            ids.push_back(pushIdOf(body));
        QVERIFY(ids.size() >= 4);
        QCOMPARE(ids[0] != ids[1], true);
        const std::string failed = ids[1];
        // Every retry of the failed one comes before the third is offered.
        const auto third = std::find_if(ids.begin() + 2, ids.end(),
                                        [&](const std::string& id) { return id != failed; });
        QVERIFY(third != ids.end());
        QVERIFY(std::find(third, ids.end(), failed) == ids.end());
        QCOMPARE(pusher.totals().sent, uint64_t(3));
    }

    // Parca's body: WriteRawRequest's JSON, read back with Qt's JSON and base64 (not
    // gilscope's), for every tail length of the base64 groups.
    void parcaBodyCarriesLabelsAndProfile() {
        for (const std::string& profile :
             {std::string(), std::string("\x1f"), std::string("\x1f\x8b"),
              std::string("\x1f\x8b\x08"), std::string("\x00\xff\x10\x80", 4)}) {
            const std::string body =
                encodeParcaWriteRaw({{"__name__", "process_cpu"}, {"pid", "7"}}, profile);
            const QJsonObject request =
                QJsonDocument::fromJson(QByteArray::fromStdString(body)).object();
            QCOMPARE(request.value("normalized").toBool(true), false);
            const QJsonArray series = request.value("series").toArray();
            QCOMPARE(series.size(), 1);
            const QJsonArray labels =
                series[0].toObject().value("labels").toObject().value("labels").toArray();
            QCOMPARE(labels.size(), 2);
            QCOMPARE(labels[1].toObject().value("name").toString(), QString("pid"));
            QCOMPARE(labels[1].toObject().value("value").toString(), QString("7"));
            const QJsonArray samples = series[0].toObject().value("samples").toArray();
            QCOMPARE(samples.size(), 1);
            const auto raw = QByteArray::fromBase64Encoding(
                samples[0].toObject().value("rawProfile").toString().toLatin1(),
                QByteArray::AbortOnBase64DecodingErrors);
            QVERIFY(raw);
            QCOMPARE(*raw, QByteArray::fromStdString(profile));
        }
    }
};

QTEST_GUILESS_MAIN(TestPushParts)
#include "test_push_parts.moc"
