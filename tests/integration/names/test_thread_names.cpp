// Python thread names end to end, on every interpreter present (3.8-3.15): `dump -a` (text
// and --json), the live models the GUI reads (RecordingSession's timeline and analysis
// model), the Firefox Profiler export (the window's and `attach --gecko`) and `report`
// over a saved or recorded `.bin` (its names file beside it) name the threads threading
// made; a rename after start shows at a later refresh; a thread that threading did not
// make (and the main thread) keeps its id.
#include "core/session/recording_session.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <map>

using namespace gilscope;
using namespace gilscope::test;

namespace {

// The names tests/targets/named_threads.py gives its threads before the rename.
const QStringList kNamed = {"db-writer", "http-worker-1", "a-name-longer-than-fifteen-bytes",
                            "worker-é名", "to-be-renamed"};
const QString kRenamed = QStringLiteral("renamed-worker");

std::map<QString, uint64_t> threadIds(const TargetProcess& target) {
    std::map<QString, uint64_t> ids;
    const QJsonObject threads = target.readyInfo().value("threads").toObject();
    for (auto it = threads.begin(); it != threads.end(); ++it)
        ids[it.key()] = static_cast<uint64_t>(it.value().toInteger());
    return ids;
}

// tid -> name in the live timeline the GUI draws.
std::map<uint64_t, QString> timelineNames(const RecordingSession& session) {
    std::map<uint64_t, QString> names;
    for (const ThreadTimeline& t : session.timeline().threads)
        names[t.threadId] = QString::fromStdString(t.name);
    return names;
}

bool allNamed(const RecordingSession& session, const std::map<QString, uint64_t>& ids,
              const QStringList& expected) {
    const auto names = timelineNames(session);
    for (const QString& name : expected) {
        const auto it = names.find(ids.at(name == kRenamed ? "to-be-renamed" : name));
        if (it == names.end() || it->second != name) return false;
    }
    return true;
}

// `gilscope report FILE.bin --json` -> {tid: name, or null}.
std::map<uint64_t, QJsonValue> reportNames(const QString& bin) {
    const RunResult r = runGilscope({"report", bin, "--json"});
    std::map<uint64_t, QJsonValue> names;
    for (const QJsonValue& t : QJsonDocument::fromJson(r.outBytes)["all_threads"].toArray())
        names[static_cast<uint64_t>(t["thread_id"].toInteger())] = t["name"];
    return names;
}

// Firefox Profiler file -> {tid: thread name}.
std::map<uint64_t, QString> geckoNames(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    std::map<uint64_t, QString> names;
    for (const QJsonValue& t : QJsonDocument::fromJson(f.readAll())["threads"].toArray())
        names[static_cast<uint64_t>(t["tid"].toInteger())] = t["name"].toString();
    return names;
}

} // namespace

class TestThreadNames : public QObject {
    Q_OBJECT
    QList<Interpreter> all_;

private slots:
    void initTestCase() {
        all_ = findInterpreters();
        GILSCOPE_REQUIRE_INTERPRETERS(all_);
        all_ += findFreeThreadedInterpreters(); // names are read the same way without a GIL
        printTestedInterpreters(all_);
    }

    void dumpNamesThreads_data() { addInterpreterRows(all_); }
    void dumpNamesThreads() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, QStringLiteral("named_threads.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        const auto ids = threadIds(target);
        const QString pid = QString::number(target.pid());

        const RunResult text = runGilscope({"dump", "-a", pid});
        QVERIFY2(text.finished && text.exitCode == 0, qPrintable(describe(text)));
        for (const QString& name : kNamed) {
            const QString line = QStringLiteral("Thread %1 \"%2\" (").arg(ids.at(name)).arg(name);
            QVERIFY2(text.out.contains(line), qPrintable(line + "\n" + text.out));
        }
        // Not made by threading: known by its id alone (its comm is the process's).
        for (const char* unnamed : {"raw", "main"}) {
            const QString line = QStringLiteral("Thread %1 (").arg(ids.at(unnamed));
            QVERIFY2(text.out.contains(line), qPrintable(line + "\n" + text.out));
        }

        const RunResult json = runGilscope({"dump", "-a", "--json", pid});
        QVERIFY2(json.finished && json.exitCode == 0, qPrintable(describe(json)));
        std::map<uint64_t, QJsonValue> byTid;
        for (const QJsonValue& t : QJsonDocument::fromJson(json.outBytes)["threads"].toArray())
            byTid[static_cast<uint64_t>(t["thread_id"].toInteger())] = t["name"];
        for (const QString& name : kNamed)
            QCOMPARE(byTid[ids.at(name)].toString(), name);
        QVERIFY(byTid.count(ids.at("raw")) && byTid[ids.at("raw")].isNull());
        QVERIFY(byTid.count(ids.at("main")) && byTid[ids.at("main")].isNull());
    }

    void liveModelAndGeckoNameThreadsAndSeeRenames_data() { addInterpreterRows(all_); }
    void liveModelAndGeckoNameThreadsAndSeeRenames() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, QStringLiteral("named_threads.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        const auto ids = threadIds(target);
        SessionOptions options;
        options.intervalUs = 5000;
        auto opened = RecordingSession::open(int(target.pid()), options);
        QVERIFY2(opened, opened ? "" : opened.error().message.c_str());
        RecordingSession& session = **opened;
        session.startSampling();

        // The first refresh comes with the first samples, off the sampler thread.
        QTRY_VERIFY_WITH_TIMEOUT(allNamed(session, ids, kNamed), 30000);
        QVERIFY(timelineNames(session)[ids.at("raw")].isEmpty());
        QVERIFY(timelineNames(session)[ids.at("main")].isEmpty());

        ::kill(pid_t(target.pid()), SIGUSR1);
        std::optional<QString> line;
        do
            line = target.readLine(30000);
        while (line && !line->startsWith("RENAMED"));
        QVERIFY2(line, "the target did not rename its thread");
        QStringList renamed = kNamed;
        renamed.replace(kNamed.indexOf("to-be-renamed"), kRenamed);
        QTRY_VERIFY_WITH_TIMEOUT(allNamed(session, ids, renamed), 30000);

        // The analysis views' model (per-thread figures, `report` over a live recording).
        auto snap = session.profile()->query({});
        QVERIFY(snap);
        std::map<uint64_t, QString> modelNames;
        for (const ProfileThread& t : (*snap)->threads)
            modelNames[t.threadId] = QString::fromStdString(t.name);
        QCOMPARE(modelNames[ids.at("db-writer")], QStringLiteral("db-writer"));
        QCOMPARE(modelNames[ids.at("to-be-renamed")], kRenamed);
        QVERIFY(modelNames[ids.at("main")].isEmpty());

        session.requestStop();
        session.finish();
        QTemporaryDir dir;
        const QString gecko = dir.filePath("window.json");
        const Status exported = session.exportTo(gecko.toStdString());
        QVERIFY2(exported, exported ? "" : exported.error().message.c_str());
        const auto names = geckoNames(gecko);
        for (const QString& name : renamed) {
            const uint64_t tid = ids.at(name == kRenamed ? "to-be-renamed" : name);
            QCOMPARE(names.at(tid), QStringLiteral("%1 (%2)").arg(name).arg(tid));
        }
        QCOMPARE(names.at(ids.at("raw")), QStringLiteral("Thread-%1").arg(ids.at("raw")));

        // The private .bin copy keeps the names beside it: a second export (which replays
        // the copy), Save as .bin and `report` over the saved file name the threads too.
        const QString again = dir.filePath("again.json");
        QVERIFY(session.exportTo(again.toStdString()));
        QCOMPARE(geckoNames(again), names);
        // ... also through the GUI's state filter (db-writer spins: it is on CPU).
        const QString onCpu = dir.filePath("on-cpu.json");
        QVERIFY(session.exportTo(onCpu.toStdString(), {}, nullptr, StateFilter::OnCpu));
        const uint64_t writer = ids.at("db-writer");
        QCOMPARE(geckoNames(onCpu)[writer], QStringLiteral("db-writer (%1)").arg(writer));
        const QString bin = dir.filePath("saved.bin");
        const Status saved = session.saveBinCopyTo(bin.toStdString());
        QVERIFY2(saved, saved ? "" : saved.error().message.c_str());
        QVERIFY(QFile::exists(bin + ".names.json"));
        auto reported = reportNames(bin);
        QCOMPARE(reported[ids.at("db-writer")].toString(), QStringLiteral("db-writer"));
        QCOMPARE(reported[ids.at("to-be-renamed")].toString(), kRenamed);
        QVERIFY(reported.count(ids.at("main")) && reported[ids.at("main")].isNull());
        const RunResult text = runGilscope({"report", bin});
        QVERIFY2(text.out.contains(QStringLiteral("%1 \"db-writer\"").arg(ids.at("db-writer"))),
                 qPrintable(text.out));
    }

    void attachNamesThreadsInGeckoAndBin_data() { addInterpreterRows(all_); }
    void attachNamesThreadsInGeckoAndBin() {
        QFETCH(Interpreter, interpreter);
        TargetProcess target(interpreter, QStringLiteral("named_threads.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        const auto ids = threadIds(target);
        QTemporaryDir dir;
        const QString out = dir.filePath("cli.json");
        const RunResult r = runGilscope({"attach", "-a", "-r", "200", "-d", "2", "--gecko", "-o",
                                         out, QString::number(target.pid())});
        QVERIFY2(r.finished && r.exitCode == 0, qPrintable(describe(r)));
        const auto names = geckoNames(out);
        for (const QString& name : kNamed)
            QCOMPARE(names.at(ids.at(name)), QStringLiteral("%1 (%2)").arg(name).arg(ids.at(name)));
        QCOMPARE(names.at(ids.at("main")), QStringLiteral("Thread-%1").arg(ids.at("main")));

        const QString bin = dir.filePath("cli.bin");
        const RunResult b = runGilscope({"attach", "-a", "-r", "200", "-d", "2", "--binary", "-o",
                                         bin, QString::number(target.pid())});
        QVERIFY2(b.finished && b.exitCode == 0, qPrintable(describe(b)));
        auto reported = reportNames(bin);
        for (const QString& name : kNamed)
            QCOMPARE(reported[ids.at(name)].toString(), name);
    }
};

QTEST_GUILESS_MAIN(TestThreadNames)
#include "test_thread_names.moc"
