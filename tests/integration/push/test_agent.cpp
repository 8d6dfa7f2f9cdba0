// `gilscope agent` against the loopback Pyroscope push receiver (push_receiver.h), with
// real Python processes of different versions: three long-lived ones (one a pre-forking
// server with os.fork() workers) running before it starts and five short-lived ones
// started after it. Every process, each worker included, gets its own series with its
// labels; the short-lived ones are flushed once they exit and their series stop.
#include "go_pprof.h"
#include "push_receiver.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"

#include <QCoreApplication>
#include <QFile>
#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>
#include <memory>

using namespace gilscope::test;

namespace {

constexpr int kWaitMs = 180'000; // ten processes on a loaded two-core machine

QMap<QString, int> pushesPerPid(const PushReceiver& receiver) {
    QMap<QString, int> n;
    for (const ReceivedPush& p : receiver.accepted())
        ++n[p.labels.value("pid")];
    return n;
}

// Waits until the agent's log says it records `pid` (again, after an exec); *log: the
// log so far.
bool waitUntilRecording(QProcess& agent, qint64 pid, QString* log) {
    const QString recording = QString("recording process %1 ").arg(pid);
    return waitForStdoutLine(
        agent, [&](const QString& line) { return line.contains(recording); }, log, kWaitMs);
}

} // namespace

class TestAgent : public QObject {
    Q_OBJECT
    QList<Interpreter> all_;

private slots:
    void initTestCase() {
        all_ = findInterpreters(8);
        GILSCOPE_REQUIRE_INTERPRETERS(all_);
        printTestedInterpreters(all_);
        if (const QString missing = goPprofMissing(); !missing.isEmpty())
            QFAIL(qPrintable(missing));
    }

    void everyProcessGetsItsSeriesAndExitedOnesStop() {
        PushReceiver receiver;
        QVERIFY(receiver.start());
        // Only this test's processes: other tests on the machine run Python too.
        const QString token = QString("agent-test-%1").arg(QCoreApplication::applicationPid());
        QMap<qint64, Interpreter> versionOf; // every recorded pid, workers included
        auto launch = [&](const Interpreter& py, QStringList args) {
            args << token;
            TargetOptions options;
            options.args = args;
            auto t = std::make_unique<TargetProcess>(py, targetScript("light_service.py"), options);
            if (!t->start()) QTest::qFail(qPrintable(t->error()), __FILE__, __LINE__);
            versionOf[t->pid()] = py;
            return t;
        };
        std::vector<std::unique_ptr<TargetProcess>> longLived, shortLived;
        longLived.push_back(launch(all_.first(), {}));
        longLived.push_back(launch(all_[all_.size() / 2], {"2"})); // the forking server
        longLived.push_back(launch(all_.last(), {}));
        for (const auto& t : longLived)
            QVERIFY(t->pid() > 0);
        QList<qint64> steady;
        for (const auto& t : longLived)
            steady << t->pid();
        for (const QJsonValue w : longLived[1]->readyInfo().value("workers").toArray()) {
            versionOf[w.toInteger()] = longLived[1]->interpreter();
            steady << w.toInteger();
        }
        QCOMPARE(steady.size(), 5);

        QTemporaryDir dir;
        auto agent =
            startGilscope({"agent", "--push", receiver.url(), "--push-interval", "1s", "--mode",
                           "wall", "--match", token, "--push-queue", dir.filePath("queue")},
                          dir.path(), QProcess::MergedChannels);
        QVERIFY(agent);
        // Started after the agent: found by its rescans.
        QSet<qint64> ending;
        // Spread over the versions the long-lived ones do not use.
        QList<Interpreter> rest;
        for (const Interpreter& py : all_)
            if (py.label != all_.first().label && py.label != all_.last().label &&
                py.label != longLived[1]->interpreter().label)
                rest << py;
        if (rest.isEmpty()) rest = all_;
        for (int i = 0; i < 5; ++i) {
            shortLived.push_back(launch(rest[i * (rest.size() - 1) / 4], {}));
            QVERIFY(shortLived.back()->pid() > 0);
            ending << shortLived.back()->pid();
        }

        QString log;
        auto hasEveryone = [&] {
            const auto n = pushesPerPid(receiver);
            for (qint64 pid : versionOf.keys())
                if (!n.contains(QString::number(pid))) return false;
            return true;
        };
        if (!receiver.waitFor(hasEveryone, kWaitMs)) {
            agent->waitForReadyRead(100);
            QFAIL(qPrintable("not every process was pushed:\n" + agent->readAll()));
        }

        // The short-lived ones exit: the agent says so and flushes each.
        for (auto& t : shortLived)
            t->terminate();
        static const QRegularExpression ended("process (\\d+): .*its series ends");
        QSet<qint64> said;
        QVERIFY2(waitForStdoutLine(
                     *agent,
                     [&](const QString& line) {
                         const auto m = ended.match(line);
                         if (m.hasMatch()) said << m.captured(1).toLongLong();
                         return said.contains(ending);
                     },
                     &log, kWaitMs),
                 qPrintable(log));
        // Their last profiles arrive within two of the others' intervals; after that,
        // while the others go on, nothing more.
        auto afterTwoMore = [&] {
            const auto before = pushesPerPid(receiver);
            return receiver.waitFor(
                [&] {
                    const auto now = pushesPerPid(receiver);
                    for (qint64 pid : steady)
                        if (now.value(QString::number(pid)) <
                            before.value(QString::number(pid)) + 2)
                            return false;
                    return true;
                },
                kWaitMs);
        };
        QVERIFY(afterTwoMore());
        const auto settled = pushesPerPid(receiver);
        QVERIFY(afterTwoMore());
        const auto later = pushesPerPid(receiver);
        for (qint64 pid : ending)
            QCOMPARE(later.value(QString::number(pid)), settled.value(QString::number(pid)));

        ::kill(static_cast<pid_t>(agent->processId()), SIGINT);
        QVERIFY(agent->waitForFinished(kRunTimeoutMs));
        log += QString::fromUtf8(agent->readAll());
        QVERIFY2(agent->exitStatus() == QProcess::NormalExit && agent->exitCode() == 0,
                 qPrintable(log));
        QVERIFY2(receiver.violations().isEmpty(), qPrintable(receiver.violations().join('\n')));

        // Each series carries its process's labels, and its profiles read in Go's pprof.
        QSet<QString> ids, checked;
        for (const ReceivedPush& p : receiver.accepted()) {
            QVERIFY2(!ids.contains(p.id), qPrintable("profile " + p.id + " arrived twice"));
            ids << p.id;
            const qint64 pid = p.labels.value("pid").toLongLong();
            QVERIFY2(versionOf.contains(pid),
                     qPrintable("a series for pid " + QString::number(pid)));
            QCOMPARE(p.labels.value("__name__"), QString("process_cpu"));
            QCOMPARE(p.labels.value("service_name"), QString("light_service"));
            QCOMPARE(p.labels.value("hostname"), QSysInfo::machineHostName());
            const QString version = QString("3.%1.").arg(versionOf[pid].minor);
            QVERIFY2(p.labels.value("python_version").startsWith(version),
                     qPrintable(p.labels.value("python_version")));
            QVERIFY2(log.contains(QString("recording process %1 ").arg(pid)), qPrintable(log));
            if (checked.contains(p.labels.value("pid"))) continue;
            checked << p.labels.value("pid");
            const QString file = dir.filePath(p.id + ".pb.gz");
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(p.rawProfile);
            f.close();
            bool ok = false;
            QString error;
            const auto samples = goPprofRawSamples(file, {}, &ok, &error);
            QVERIFY2(ok, qPrintable(error));
            QVERIFY(!samples.isEmpty());
        }
        const auto n = pushesPerPid(receiver);
        for (qint64 pid : versionOf.keys())
            qInfo("pid %lld (%s%s): %d pushes", pid, qPrintable(versionOf[pid].label),
                  ending.contains(pid) ? ", short-lived" : "", n.value(QString::number(pid)));
    }

    // A recorded process that execs a new Python program keeps its pid: its recording
    // ends (its interpreter is gone) and the agent records the new program, as a new
    // series of the same pid. Where the interpreter is not position-independent (the sid
    // chroot's), the new image has its runtime where the old one had it: reads go on
    // succeeding, so only a look at the image itself tells.
    // --control: the agent starts with sampling off (--start-disabled), so a flush pushes
    // nothing; once enabled, a flush pushes the samples at once (the interval is a minute);
    // `snapshot PID` answers for a process it records, and `quit` ends it.
    void controlSocketSwitchesFlushesAndEnds() {
        PushReceiver receiver;
        QVERIFY(receiver.start());
        const QString token = QString("agent-ctl-%1").arg(QCoreApplication::applicationPid());
        TargetOptions options;
        options.args = {token};
        TargetProcess target(all_.last(), targetScript("light_service.py"), options);
        QVERIFY2(target.start(), qPrintable(target.error()));
        QTemporaryDir dir;
        const QString sock = dir.filePath("agent.sock");
        auto agent =
            startGilscope({"agent", "--push", receiver.url(), "--push-interval", "60s", "--mode",
                           "wall", "--match", token, "--push-queue", dir.filePath("queue"),
                           "--control", "unix:" + sock, "--start-disabled"},
                          dir.path(), QProcess::MergedChannels);
        QVERIFY(agent);
        QString log;
        QVERIFY2(waitUntilRecording(*agent, target.pid(), &log), qPrintable(log));
        const auto ctl = [&](const QStringList& commands) {
            const RunResult r = runGilscope(QStringList{"ctl", sock} + commands);
            const QString said = r.out.trimmed(); // exit 1 after an "err" reply
            return r.exitCode == (said.contains("err ") ? 1 : 0) ? said : describe(r);
        };
        QCOMPARE(ctl({"status"}), QStringLiteral("ok enabled=False"));
        QCOMPARE(ctl({"flush"}), QStringLiteral("ok series=1"));
        QVERIFY2(receiver.accepted().isEmpty(), "sampling was off, yet samples were pushed");
        QCOMPARE(ctl({"enable", "status"}), QStringLiteral("ok\nok enabled=True"));
        const QString pid = QString::number(target.pid());
        const auto flushedSamples = [&] {
            if (ctl({"flush"}) != "ok series=1") return false;
            for (const ReceivedPush& p : receiver.accepted())
                if (p.labels.value("pid") == pid) return true;
            return false;
        };
        QTRY_VERIFY_WITH_TIMEOUT(flushedSamples(), kWaitMs);
        const QString snapshot = ctl({"snapshot " + pid});
        QVERIFY2(snapshot.startsWith("ok {") && snapshot.contains("\"pid\":" + pid + ","),
                 qPrintable(snapshot.left(200)));
        QCOMPARE(ctl({"snapshot 1"}),
                 QStringLiteral("err snapshot_failed: the agent records no process 1"));
        QCOMPARE(ctl({"mark phase"}), QStringLiteral("err not_supported"));
        QCOMPARE(ctl({"quit"}), QStringLiteral("ok"));
        QVERIFY(agent->waitForFinished(kRunTimeoutMs));
        QCOMPARE(agent->exitCode(), 0);
        QVERIFY(!QFile::exists(sock));
    }

    // --label-from: the agent labels each process's samples as `attach` does, and what it
    // pushes carries the label as a pprof sample label (read by Go's pprof).
    void labelsFromContextVariables() {
        PushReceiver receiver;
        QVERIFY(receiver.start());
        QTemporaryDir dir;
        const QString gate = dir.filePath("go");
        TargetOptions options;
        options.args = {"120", gate}; // requests from the start: the gate is there
        options.bindDirs = {dir.path()};
        QFile gateFile(gate);
        QVERIFY(gateFile.open(QIODevice::WriteOnly));
        gateFile.close();
        TargetProcess target(all_.last(), targetScript("route_service.py"), options);
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QString sock = dir.filePath("agent.sock");
        auto agent = startGilscope({"agent", "--push", receiver.url(), "--push-interval", "60s",
                                    "--match", gate, "--push-queue", dir.filePath("queue"),
                                    "--control", "unix:" + sock, "--label-from", "route"},
                                   dir.path(), QProcess::MergedChannels);
        QVERIFY(agent);
        QString log;
        QVERIFY2(waitUntilRecording(*agent, target.pid(), &log), qPrintable(log));
        const QString pid = QString::number(target.pid());
        QSet<QString> routes;
        int decoded = 0;
        const auto labelledPush = [&] {
            if (runGilscope({"ctl", sock, "flush"}).exitCode != 0) return false;
            const QList<ReceivedPush> pushes = receiver.accepted();
            for (; decoded < pushes.size(); ++decoded) {
                const ReceivedPush& p = pushes[decoded];
                if (p.labels.value("pid") != pid) continue;
                const QString file = dir.filePath(p.id + ".pb.gz");
                QFile f(file);
                if (!f.open(QIODevice::WriteOnly)) return false;
                f.write(p.rawProfile);
                f.close();
                bool ok = false;
                QString error;
                for (const RawSample& sample : goPprofRawSamples(file, {}, &ok, &error))
                    if (sample.labels.contains("route")) routes << sample.labels.value("route");
            }
            return routes.contains("/slow") && routes.contains("/fast");
        };
        QTRY_VERIFY2_WITH_TIMEOUT(labelledPush(),
                                  qPrintable(QStringList(routes.values()).join(' ')), kWaitMs);
        QCOMPARE(runGilscope({"ctl", sock, "quit"}).exitCode, 0);
        QVERIFY(agent->waitForFinished(kRunTimeoutMs));
        QCOMPARE(agent->exitCode(), 0);
    }

    void aProcessThatExecsPythonIsRecordedAgain_data() {
        QList<Interpreter> ends{all_.first()};
        if (all_.size() > 1) ends << all_.last();
        addInterpreterRows(ends);
    }
    void aProcessThatExecsPythonIsRecordedAgain() {
        QFETCH(Interpreter, interpreter);
        PushReceiver receiver;
        QVERIFY(receiver.start());
        const QString token = QString("agent-exec-%1").arg(QCoreApplication::applicationPid());
        TargetOptions options;
        options.args = {token};
        TargetProcess target(interpreter, targetScript("exec_python.py"), options);
        QVERIFY2(target.start(), qPrintable(target.error()));
        QTemporaryDir dir;
        auto agent = startGilscope({"agent", "--push", receiver.url(), "--push-interval", "1s",
                                    "--match", token, "--push-queue", dir.filePath("queue")},
                                   dir.path(), QProcess::MergedChannels);
        QVERIFY(agent);
        QString log;
        QVERIFY2(waitUntilRecording(*agent, target.pid(), &log), qPrintable(log));
        ::kill(static_cast<pid_t>(target.pid()), SIGUSR1);
        QVERIFY2(waitUntilRecording(*agent, target.pid(), &log), qPrintable(log));
        QVERIFY2(log.contains("replaced its program"), qPrintable(log));
        // The new program's samples reach the server.
        qsizetype looked = 0;
        auto pushedAfterExec = [&] {
            const QList<ReceivedPush> pushes = receiver.accepted();
            for (; looked < pushes.size(); ++looked) {
                const QString file = dir.filePath(pushes[looked].id + ".pb.gz");
                QFile f(file);
                if (!f.open(QIODevice::WriteOnly)) return false;
                f.write(pushes[looked].rawProfile);
                f.close();
                bool ok = false;
                QString error;
                for (const QString& function : goPprofTop(file, {}, &ok, &error).keys())
                    if (function.contains("after_exec")) return true;
            }
            return false;
        };
        QVERIFY(receiver.waitFor(pushedAfterExec, kWaitMs));
        ::kill(static_cast<pid_t>(agent->processId()), SIGINT);
        QVERIFY(agent->waitForFinished(kRunTimeoutMs));
        QCOMPARE(agent->exitCode(), 0);
    }
};

QTEST_GUILESS_MAIN(TestAgent)
#include "test_agent.moc"
