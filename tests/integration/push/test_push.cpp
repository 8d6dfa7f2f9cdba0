// `gilscope attach --push` against a loopback Pyroscope push receiver (push_receiver.h),
// with real Python targets: each interval arrives as one valid push with the right labels
// and headers and a raw profile Go's pprof reads; a server that is down for a while gets
// every profile once it is back, each once; a server that refuses the data is told once
// per profile, not in a loop.
#include "go_pprof.h"
#include "push_receiver.h"
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSet>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <csignal>
#include <cstdlib>

using namespace gilscope::test;

namespace {

// "Pushed N profiles to URL (M recorded by this run)" -> {N, M}; {-1, -1} if absent.
QPair<int, int> pushedLine(const QString& out) {
    static const QRegularExpression re("Pushed (\\d+) profiles to \\S+ \\((\\d+) recorded");
    const auto m = re.match(out);
    return m.hasMatch() ? qMakePair(m.captured(1).toInt(), m.captured(2).toInt())
                        : qMakePair(-1, -1);
}

// The pushes cover the recording without a gap or an overlap: each starts where the one
// before it ended.
QString checkContiguous(QList<ReceivedPush> pushes) {
    std::sort(pushes.begin(), pushes.end(),
              [](const auto& a, const auto& b) { return a.timeNanos < b.timeNanos; });
    for (qsizetype i = 1; i < pushes.size(); ++i) {
        const qint64 end = pushes[i - 1].timeNanos + pushes[i - 1].durationNanos;
        if (std::llabs(pushes[i].timeNanos - end) > 1'000'000) // 1 ms: clock rounding
            return QString("push %1 starts %2 ms from where the one before ended")
                .arg(i)
                .arg((pushes[i].timeNanos - end) / 1e6);
    }
    return {};
}

QString uniqueIds(const QList<ReceivedPush>& pushes) {
    QSet<QString> ids;
    for (const auto& p : pushes) {
        if (ids.contains(p.id)) return "profile " + p.id + " arrived twice";
        ids.insert(p.id);
    }
    return {};
}

} // namespace

class TestPush : public QObject {
    Q_OBJECT
    QList<Interpreter> all_, ends_;

private slots:
    void initTestCase() {
        all_ = findInterpreters(8);
        GILSCOPE_REQUIRE_INTERPRETERS(all_);
        // The network side does not depend on the target's version: the oldest and the
        // newest present.
        ends_ = {all_.first()};
        if (all_.size() > 1) ends_ << all_.last();
        printTestedInterpreters(ends_);
        if (const QString missing = goPprofMissing(); !missing.isEmpty())
            QFAIL(qPrintable(missing));
    }

    void eachIntervalArrivesWithItsLabels_data() { addInterpreterRows(ends_); }
    void eachIntervalArrivesWithItsLabels() {
        QFETCH(Interpreter, interpreter);
        PushReceiver receiver;
        QVERIFY(receiver.start());
        TargetProcess target(interpreter, targetScript("heavy_light.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        QTemporaryDir dir;
        const QString local = dir.filePath("local.pb.gz");
        qputenv("GILSCOPE_PUSH_PASSWORD", "s3cret");
        const auto r =
            runGilscope({"attach", "-d", "3.5", "--push", receiver.url(), "--push-interval", "1s",
                         "--label", "env=test", "--push-header", "X-Scope-OrgID: tenant-1",
                         "--push-user", "alice", "--push-queue", dir.filePath("queue"), "--pprof",
                         "-o", local, QString::number(target.pid())},
                        dir.path());
        qunsetenv("GILSCOPE_PUSH_PASSWORD");
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QVERIFY2(receiver.violations().isEmpty(), qPrintable(receiver.violations().join('\n')));
        const QList<ReceivedPush> pushes = receiver.accepted();
        // 3.5 s at 1 s: three full intervals and the last half one.
        QVERIFY2(pushes.size() >= 3 && pushes.size() <= 5, qPrintable(describe(r)));
        const auto [sent, recorded] = pushedLine(r.out + r.err);
        QCOMPARE(sent, int(pushes.size()));
        QCOMPARE(recorded, int(pushes.size()));
        QVERIFY2(uniqueIds(pushes).isEmpty(), qPrintable(uniqueIds(pushes)));
        QVERIFY2(checkContiguous(pushes).isEmpty(), qPrintable(checkContiguous(pushes)));

        const QString version = QString("3.%1.").arg(interpreter.minor);
        qint64 pushedSamples = 0;
        for (const ReceivedPush& p : pushes) {
            QCOMPARE(p.labels.value("__name__"), QString("process_cpu"));
            QCOMPARE(p.labels.value("service_name"), QString("heavy_light"));
            QCOMPARE(p.labels.value("pid"), QString::number(target.pid()));
            QCOMPARE(p.labels.value("hostname"), QSysInfo::machineHostName());
            QVERIFY2(p.labels.value("python_version").startsWith(version),
                     qPrintable(p.labels.value("python_version")));
            QCOMPARE(p.labels.value("env"), QString("test"));
            QCOMPARE(p.labels.size(), 6);
            QCOMPARE(p.headers.value("x-scope-orgid"), QByteArray("tenant-1"));
            QCOMPARE(p.headers.value("authorization"),
                     "Basic " + QByteArray("alice:s3cret").toBase64());
            QCOMPARE(p.headers.value("content-type"), QByteArray("application/proto"));
            // Every raw profile reads in Go's pprof, with the samples the receiver counted.
            const QString file = dir.filePath(p.id + ".pb.gz");
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(p.rawProfile);
            f.close();
            bool ok = false;
            QString error;
            const auto samples = goPprofRawSamples(file, {}, &ok, &error);
            QVERIFY2(ok, qPrintable(error));
            qint64 n = 0;
            for (const auto& s : samples)
                n += s.count;
            QCOMPARE(n, p.samples);
            pushedSamples += n;
        }
        // The file and the pushes come from one recording: the same samples.
        bool ok = false;
        QString error;
        const auto localSamples = goPprofRawSamples(local, {}, &ok, &error);
        QVERIFY2(ok, qPrintable(error));
        qint64 inFile = 0;
        for (const auto& s : localSamples)
            inFile += s.count;
        QCOMPARE(inFile, pushedSamples);
        qInfo("%s: %lld pushes, %lld samples, the same as the -o file",
              qPrintable(interpreter.label), qint64(pushes.size()), pushedSamples);
    }

    // The server goes away for three intervals: they wait on disk and arrive once it is
    // back, each once, and the pushes still cover the recording without a gap.
    void downServerGetsTheQueueOnceBack() {
        const Interpreter interpreter = ends_.last();
        PushReceiver receiver;
        QVERIFY(receiver.start());
        const quint16 port = receiver.port();
        TargetProcess target(interpreter, targetScript("heavy_light.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        QTemporaryDir dir;
        auto p =
            startGilscope({"attach", "--push", receiver.url(), "--push-interval", "500ms",
                           "--push-queue", dir.filePath("queue"), QString::number(target.pid())},
                          dir.path(), QProcess::MergedChannels);
        QVERIFY(p);
        QVERIFY(receiver.waitFor([&] { return receiver.accepted().size() >= 1; }, kRunTimeoutMs));
        receiver.stop();
        QString seen;
        static const QRegularExpression queued("(\\d+) profiles queued");
        QVERIFY2(waitForStdoutLine(
                     *p,
                     [](const QString& line) {
                         const auto m = queued.match(line);
                         return m.hasMatch() && m.captured(1).toInt() >= 3;
                     },
                     &seen),
                 qPrintable(seen));
        const qsizetype beforeRestart = receiver.accepted().size();
        QVERIFY(receiver.start(port));
        QVERIFY2(waitForStdoutLine(
                     *p, [](const QString& line) { return line.contains("answers again"); }, &seen),
                 qPrintable(seen));
        ::kill(static_cast<pid_t>(p->processId()), SIGINT);
        QVERIFY(p->waitForFinished(kRunTimeoutMs));
        seen += QString::fromUtf8(p->readAll());
        QCOMPARE(p->exitCode(), 0);

        const QList<ReceivedPush> pushes = receiver.accepted();
        QVERIFY2(receiver.violations().isEmpty(), qPrintable(receiver.violations().join('\n')));
        QVERIFY2(pushes.size() >= beforeRestart + 3, qPrintable(seen));
        const auto [sent, recorded] = pushedLine(seen);
        QCOMPARE(sent, int(pushes.size()));
        QCOMPARE(recorded, int(pushes.size())); // none lost
        QVERIFY2(uniqueIds(pushes).isEmpty(), qPrintable(uniqueIds(pushes)));
        QVERIFY2(checkContiguous(pushes).isEmpty(), qPrintable(checkContiguous(pushes)));
        QVERIFY(!QFileInfo::exists(dir.filePath("queue/" + QString::number(p->processId()))));
        qInfo("%s: %lld pushes, %lld of them before the server went away",
              qPrintable(interpreter.label), qint64(pushes.size()), qint64(beforeRestart));
    }

    // 400 means the server refuses the data itself: said with the server's message, and
    // each profile is offered once, not again and again.
    void refusedProfileIsReportedNotRetried() {
        const Interpreter interpreter = ends_.last();
        PushReceiver receiver(PushReceiver::Answer::RefuseEverything);
        QVERIFY(receiver.start());
        TargetProcess target(interpreter, targetScript("heavy_light.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        QTemporaryDir dir;
        const auto r = runGilscope({"attach", "-d", "2.5", "--push", receiver.url(),
                                    "--push-interval", "500ms", "--push-queue",
                                    dir.filePath("queue"), QString::number(target.pid())},
                                   dir.path());
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QVERIFY2(r.err.contains("test receiver refuses every profile"), qPrintable(r.err));
        QVERIFY2(r.err.contains("not sent again"), qPrintable(r.err));
        const auto [sent, recorded] = pushedLine(r.out + r.err);
        QCOMPARE(sent, 0);
        QVERIFY2(recorded >= 4, qPrintable(describe(r)));
        QCOMPARE(receiver.requests(), recorded); // each offered once
        QCOMPARE(r.err.count("not sent again"), recorded);
    }

    // Labels Pyroscope would refuse are refused before recording, with the reason.
    void badLabelsAreRefusedUpFront() {
        auto r = runGilscope({"attach", "--push", "http://127.0.0.1:9", "--label", "1bad=x", "1"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("not a valid label name"), qPrintable(r.err));
        r = runGilscope({"attach", "--label", "a=b", "1"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("only valid with --push"), qPrintable(r.err));
        r = runGilscope({"attach", "--push", "http://127.0.0.1:9", "--push-user", "bob", "1"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("GILSCOPE_PUSH_PASSWORD"), qPrintable(r.err));

        TargetProcess target(ends_.last(), targetScript("heavy_light.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        QStringList args{"attach", "--push", "http://127.0.0.1:9"};
        for (int i = 0; i < 26; ++i) // with the five of gilscope's own: 31
            args << "--label" << QString("l%1=v").arg(i);
        r = runGilscope(args << QString::number(target.pid()));
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("31 labels; Pyroscope takes at most 30"), qPrintable(r.err));
        r = runGilscope({"attach", "--push", "http://127.0.0.1:9", "--label", "pid=1",
                         QString::number(target.pid())});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("the label pid is given twice"), qPrintable(r.err));
        r = runGilscope({"attach", "--push", "http://127.0.0.1:9", "--push-format", "otlp", "1"});
        QCOMPARE(r.exitCode, 2);
        QVERIFY2(r.err.contains("choose from 'pyroscope', 'parca'"), qPrintable(r.err));
    }

    // --label-from otel: each sample in a span is pushed with the span_id and span_name
    // labels Grafana's span profiles select (no trace_id: an engine would make each trace
    // a series), for spans the service made, and Go's pprof -tagfocus=span_id=ID keeps
    // that span's samples, all of them and only them.
    void spanProfilesForGrafana_data() { addInterpreterRows(ends_); }
    void spanProfilesForGrafana() {
        QFETCH(Interpreter, interpreter);
        PushReceiver receiver;
        QVERIFY(receiver.start());
        QTemporaryDir dir;
        TargetProcess target(interpreter, targetScript("otel_service.py"),
                             gatedTarget(dir, QStringList{"2"}));
        QVERIFY2(target.start(), qPrintable(target.error()));
        const auto r = runGatedGilscope({"attach", "-a", "--label-from", "otel", "--push",
                                         receiver.url(), "--push-interval", "1s", "--push-queue",
                                         dir.filePath("queue"), QString::number(target.pid())},
                                        dir.path(), gatePath(dir));
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QVERIFY2(target.readTimedJson("SPANS "), qPrintable(target.error()));
        QFile spansFile(dir.filePath("spans.json"));
        QVERIFY(spansFile.open(QIODevice::ReadOnly));
        const QJsonObject spans = QJsonDocument::fromJson(spansFile.readAll()).object();
        const QList<ReceivedPush> pushes = receiver.accepted();
        QVERIFY2(!pushes.isEmpty(), qPrintable(describe(r)));
        qint64 inSpans = 0;
        QString busiestFile, busiestSpan;
        qint64 busiest = 0;
        for (int i = 0; i < pushes.size(); ++i) {
            // The series labels stay the process's: the span is a sample label.
            QVERIFY(!pushes[i].labels.contains("span_id"));
            const QString file = dir.filePath(QString("push-%1.pb.gz").arg(i));
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(pushes[i].rawProfile);
            f.close();
            bool ok = false;
            QString error;
            QMap<QString, qint64> bySpan;
            for (const RawSample& s : goPprofRawSamples(file, {}, &ok, &error)) {
                QVERIFY(!s.labels.contains("trace_id"));
                if (!s.labels.contains("span_id")) continue;
                const QJsonArray span = spans[s.labels["span_id"]].toArray();
                QVERIFY2(!span.isEmpty(),
                         qPrintable("not a span of the service: " + s.labels["span_id"]));
                QCOMPARE(s.labels.value("span_name"), span[1].toString());
                bySpan[s.labels["span_id"]] += s.count;
                inSpans += s.count;
            }
            QVERIFY2(ok, qPrintable(error));
            for (auto it = bySpan.begin(); it != bySpan.end(); ++it)
                if (it.value() > busiest)
                    busiest = it.value(), busiestSpan = it.key(), busiestFile = file;
        }
        QVERIFY2(inSpans > 100 && busiest > 0, qPrintable(QString::number(inSpans)));
        bool ok = false;
        QString error;
        qint64 focused = 0;
        for (const RawSample& s :
             goPprofRawSamples(busiestFile, {"-tagfocus=span_id=" + busiestSpan}, &ok, &error)) {
            QCOMPARE(s.labels.value("span_id"), busiestSpan);
            focused += s.count;
        }
        QVERIFY2(ok, qPrintable(error));
        QCOMPARE(focused, busiest);
        qInfo("%s: %lld samples in spans over %lld pushes; span %s: %lld, as -tagfocus keeps",
              qPrintable(interpreter.label), inSpans, qint64(pushes.size()),
              qPrintable(busiestSpan), busiest);
    }

    // --push-format parca: each interval as JSON to URL/api/profiles/writeraw, labels in
    // its label set (__name__ included), the pprof in base64, read by Go's pprof.
    void parcaWriteRawGetsEachInterval_data() { addInterpreterRows(ends_); }
    void parcaWriteRawGetsEachInterval() {
        QFETCH(Interpreter, interpreter);
        PushReceiver receiver;
        QVERIFY(receiver.start());
        TargetProcess target(interpreter, targetScript("heavy_light.py"));
        QVERIFY2(target.start(), qPrintable(target.error()));
        QTemporaryDir dir;
        const auto r =
            runGilscope({"attach", "-d", "2.5", "--push", receiver.url() + "/", "--push-format",
                         "parca", "--push-interval", "1s", "--push-queue", dir.filePath("queue"),
                         QString::number(target.pid())},
                        dir.path());
        QVERIFY2(r.exitCode == 0, qPrintable(describe(r)));
        QVERIFY2(receiver.violations().isEmpty(), qPrintable(receiver.violations().join('\n')));
        const QList<ReceivedPush> pushes = receiver.accepted();
        // 2.5 s at 1 s: two full intervals and the last half one.
        QVERIFY2(pushes.size() >= 2 && pushes.size() <= 4, qPrintable(describe(r)));
        QCOMPARE(receiver.requests(), int(pushes.size()));
        QCOMPARE(pushedLine(r.out + r.err).first, int(pushes.size()));
        QVERIFY2(checkContiguous(pushes).isEmpty(), qPrintable(checkContiguous(pushes)));
        for (int i = 0; i < pushes.size(); ++i) {
            const ReceivedPush& p = pushes[i];
            QCOMPARE(p.labels.value("__name__"), QString("process_cpu"));
            QCOMPARE(p.labels.value("service_name"), QString("heavy_light"));
            QCOMPARE(p.labels.value("pid"), QString::number(target.pid()));
            QCOMPARE(p.headers.value("content-type"), QByteArray("application/json"));
            const QString file = dir.filePath(QString("parca-%1.pb.gz").arg(i));
            QFile f(file);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(p.rawProfile);
            f.close();
            bool ok = false;
            QString error;
            const auto samples = goPprofRawSamples(file, {}, &ok, &error);
            QVERIFY2(ok, qPrintable(error));
            qint64 n = 0;
            for (const auto& s : samples)
                n += s.count;
            QCOMPARE(n, p.samples);
        }
        qInfo("%s: %lld writeraw requests", qPrintable(interpreter.label), qint64(pushes.size()));
    }
};

QTEST_GUILESS_MAIN(TestPush)
#include "test_push.moc"
