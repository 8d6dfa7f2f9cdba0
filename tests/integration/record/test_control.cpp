// The control socket (issue 39): `attach --control unix:PATH` takes CPython's five
// commands and answers them in CPython's words; sampling is off while disabled; the
// socket is 0600, refused to a second recording on the same path, removed at the end;
// an over-long line or a ninth connection is closed. On a real target, with the real
// `gilscope ctl` client as well as a raw socket.
#include "tests/support/python_interpreters.h"
#include "tests/support/run_gilscope.h"
#include "tests/support/shared_dir.h"

#include <QElapsedTimer>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

using namespace gilscope::test;

namespace {

// A client connection; -1 when it cannot connect.
int connectTo(const QString& path) {
    const int fd = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    const QByteArray p = path.toLocal8Bit();
    std::memcpy(addr.sun_path, p.constData(), size_t(p.size()));
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

// The reply line to `line`, or what happened instead ("<closed>", "<timeout>").
QString ask(int fd, const QByteArray& line) {
    if (::send(fd, line.constData(), size_t(line.size()), MSG_NOSIGNAL) != line.size())
        return QStringLiteral("<closed>");
    QByteArray reply;
    for (;;) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 10000) <= 0) return QStringLiteral("<timeout>");
        char c = 0;
        if (::recv(fd, &c, 1, 0) <= 0) return QStringLiteral("<closed>");
        if (c == '\n') return QString::fromUtf8(reply);
        reply += c;
    }
}

// Whether the server closed `fd` (a read sees the end within 10 s).
bool closedByServer(int fd) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 10000) <= 0) return false;
    char c = 0;
    return ::recv(fd, &c, 1, 0) <= 0;
}

double samplesIn(const QString& collapsed) {
    QFile f(collapsed);
    if (!f.open(QIODevice::ReadOnly)) return -1;
    double n = 0;
    for (const QByteArray& line : f.readAll().split('\n'))
        if (!line.isEmpty()) n += line.mid(line.lastIndexOf(' ') + 1).toDouble();
    return n;
}

// The samples in an output of `format` (gecko, binary, collapsed), with the names of the
// Gecko markers; -1 when it cannot be read whole.
double samplesInOutput(const QString& format, const QString& path, QStringList* marks = nullptr) {
    if (format == "collapsed") return samplesIn(path);
    if (format == "binary") {
        const QString collapsed = path + ".collapsed";
        const RunResult r = runGilscope({"replay", path, "--collapsed", "-o", collapsed});
        return r.exitCode == 0 ? samplesIn(collapsed) : -1;
    }
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return -1;
    QJsonParseError error;
    const QJsonObject profile = QJsonDocument::fromJson(f.readAll(), &error).object();
    if (error.error != QJsonParseError::NoError) return -1;
    const QJsonArray strings = profile["shared"].toObject()["stringArray"].toArray();
    double n = 0;
    for (const QJsonValue& tv : profile["threads"].toArray()) {
        const QJsonObject th = tv.toObject();
        n += th["samples"].toObject()["length"].toDouble();
        const QJsonObject markers = th["markers"].toObject();
        for (int i = 0; marks && i < markers["length"].toInt(); ++i)
            *marks << strings[markers["name"].toArray()[i].toInt()].toString();
    }
    return n;
}

} // namespace

class TestControl : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { GILSCOPE_PRINT_AND_REQUIRE_INTERPRETERS(); }

    void commandsAsCpythonAnswersThem() {
        const QList<Interpreter> found = findInterpreters();
        GILSCOPE_REQUIRE(!found.isEmpty(), "no Python interpreter");
        TargetProcess target(found.last(), "deep30.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString sock = dir.filePath("ctl.sock");
        const QString out = dir.filePath("out.collapsed");
        auto gilscope =
            startGilscope({"attach", "-r", "1khz", "--control", "unix:" + sock, "--start-disabled",
                           "--collapsed", "-o", out, QString::number(target.pid())});
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(sock), 30000);
        struct stat st {};
        QCOMPARE(::lstat(sock.toLocal8Bit().constData(), &st), 0);
        QVERIFY(S_ISSOCK(st.st_mode));
        QCOMPARE(st.st_mode & 0777, mode_t(0600));

        // A second recording cannot take the same path.
        const RunResult second =
            runGilscope({"attach", "-d", "1", "--control", "unix:" + sock, "-o",
                         dir.filePath("second.collapsed"), QString::number(target.pid())});
        QVERIFY(second.exitCode != 0);
        QVERIFY2(second.err.contains("exists already"), qPrintable(describe(second)));

        const int fd = connectTo(sock);
        QVERIFY(fd >= 0);
        QCOMPARE(ask(fd, "ping\n"), QStringLiteral("ok"));
        QCOMPARE(ask(fd, "status\n"), QStringLiteral("ok enabled=False"));
        QCOMPARE(ask(fd, "  status \r\n"), QStringLiteral("ok enabled=False")); // stripped
        QCOMPARE(ask(fd, "profile\n"), QStringLiteral("err unknown_command"));
        // On for a span the test measures, then off: the samples fit in it.
        QElapsedTimer on;
        on.start();
        QCOMPARE(ask(fd, "enable\n"), QStringLiteral("ok"));
        QCOMPARE(ask(fd, "status\n"), QStringLiteral("ok enabled=True"));
        QTest::qWait(300);
        QCOMPARE(ask(fd, "disable\n"), QStringLiteral("ok"));
        const double enabledMs = double(on.elapsed());
        // Off again for longer than it was on: a disable that did not stop the
        // sampler would more than double the count.
        QTest::qWait(int(enabledMs) + 200);

        // Nine connections: the ninth is closed at once (at most eight).
        std::vector<int> more;
        for (int i = 0; i < 7; ++i) {
            more.push_back(connectTo(sock));
            QCOMPARE(ask(more.back(), "ping\n"), QStringLiteral("ok"));
        }
        const int ninth = connectTo(sock);
        QVERIFY(ninth >= 0); // the kernel accepts it; the server closes it
        QVERIFY(closedByServer(ninth));
        ::close(ninth);
        // A line over 4 KiB closes its connection, and only that one.
        const QByteArray huge(5000, 'x');
        QCOMPARE(ask(more.front(), huge), QStringLiteral("<closed>"));
        for (int m : more)
            ::close(m);

        // The client command; `quit` ends the recording, which writes its output.
        const RunResult ctl = runGilscope({"ctl", sock, "status", "quit"});
        QVERIFY2(ctl.exitCode == 0, qPrintable(describe(ctl)));
        QCOMPARE(ctl.out, QStringLiteral("ok enabled=False\nok\n"));
        QVERIFY(gilscope->waitForFinished(60000));
        QCOMPARE(gilscope->exitCode(), 0);
        ::close(fd);
        QVERIFY(!QFile::exists(sock)); // removed: it was still the one made
        const double samples = samplesIn(out);
        qInfo("%.0f samples in %.0f ms enabled", samples, enabledMs);
        QVERIFY2(samples > 0, qPrintable(QString::number(samples)));
        QVERIFY2(samples <= enabledMs * 1.1 + 20, qPrintable(QString::number(samples)));
        // `ctl` to nothing says so.
        const RunResult none = runGilscope({"ctl", sock, "ping"});
        QVERIFY(none.exitCode != 0);
        QVERIFY2(none.err.contains("cannot connect"), qPrintable(describe(none)));
    }

    // `mark TEXT` (gilscope's own command): a named instant in the Gecko export, between
    // the samples taken before and after it; the profile passes check-gecko's rules.
    void marksReachTheGeckoExport() {
        const QList<Interpreter> found = findInterpreters();
        GILSCOPE_REQUIRE(!found.isEmpty(), "no Python interpreter");
        TargetProcess target(found.last(), "deep30.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString sock = dir.filePath("ctl.sock");
        const QString out = dir.filePath("out.json");
        auto gilscope = startGilscope({"attach", "-r", "1khz", "--control", "unix:" + sock,
                                       "--gecko", "-o", out, QString::number(target.pid())});
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(sock), 30000);
        const int fd = connectTo(sock);
        QVERIFY(fd >= 0);
        QCOMPARE(ask(fd, "mark\n"), QStringLiteral("err mark_needs_text"));
        QTest::qWait(200); // samples before the mark
        QCOMPARE(ask(fd, "mark checkout starts\n"), QStringLiteral("ok"));
        QTest::qWait(200); // and after it
        QCOMPARE(ask(fd, "quit\n"), QStringLiteral("ok"));
        ::close(fd);
        QVERIFY(gilscope->waitForFinished(60000));
        QCOMPARE(gilscope->exitCode(), 0);

        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject profile = QJsonDocument::fromJson(f.readAll()).object();
        const QJsonArray strings = profile["shared"].toObject()["stringArray"].toArray();
        int marks = 0;
        for (const QJsonValue& tv : profile["threads"].toArray()) {
            const QJsonObject th = tv.toObject();
            const QJsonObject markers = th["markers"].toObject();
            const QJsonArray times = th["samples"].toObject()["time"].toArray();
            for (int i = 0; i < markers["length"].toInt(); ++i) {
                const QString name = strings[markers["name"].toArray()[i].toInt()].toString();
                if (name != "checkout starts") continue;
                ++marks;
                const double at = markers["startTime"].toArray()[i].toDouble();
                QCOMPARE(markers["data"].toArray()[i].toObject()["type"].toString(),
                         QStringLiteral("UserMark"));
                QVERIFY(!times.isEmpty());
                QVERIFY2(times.first().toDouble() < at && at < times.last().toDouble(),
                         qPrintable(QString::number(at)));
            }
        }
        QCOMPARE(marks, 1);
        // Described in meta.markerSchema, so the Firefox Profiler labels it by its text.
        QStringList schemas;
        for (const QJsonValue& m : profile["meta"].toObject()["markerSchema"].toArray())
            schemas << m["name"].toString();
        QCOMPARE(schemas, QStringList{"UserMark"});
        const QString checker = sharedDir() + "/tools/check-gecko";
        if (QFile::exists(checker)) {
            const RunResult lint = runProgram(checker, {out});
            QVERIFY2(lint.exitCode == 0, qPrintable(describe(lint)));
        }
    }

    // `snapshot` answers every thread's stack and variables as one JSON line, while the
    // recording goes on; the deadlock's threads show where they wait and their variables.
    void snapshotAnswersEveryThread() {
        const QList<Interpreter> found = findInterpreters();
        GILSCOPE_REQUIRE(!found.isEmpty(), "no Python interpreter");
        TargetProcess target(found.last(), "deadlock.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString sock = dir.filePath("ctl.sock");
        const QString out = dir.filePath("out.txt");
        auto gilscope = startGilscope({"attach", "-a", "-r", "1khz", "--control", "unix:" + sock,
                                       "--collapsed", "-o", out, QString::number(target.pid())});
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(sock), 30000);
        const RunResult ctl = runGilscope({"ctl", sock, "snapshot", "ping"});
        QVERIFY2(ctl.exitCode == 0, qPrintable(describe(ctl)));
        const QStringList replies = ctl.out.split('\n', Qt::SkipEmptyParts);
        QCOMPARE(replies.size(), 2);
        QVERIFY2(replies[0].startsWith("ok {"), qPrintable(replies[0].left(200)));
        QCOMPARE(replies[1], QStringLiteral("ok"));
        const QJsonObject snap = QJsonDocument::fromJson(replies[0].mid(3).toUtf8()).object();
        QCOMPARE(snap["pid"].toInteger(), target.pid());
        QString order;
        for (const QJsonValue& t : snap["threads"].toArray())
            if (t["name"].toString() == "first") {
                QCOMPARE(t["waiting"].toString(), QStringLiteral("lock wait"));
                order = t["frames"][0]["locals"][0]["value"].toString();
            }
        QCOMPARE(order, QStringLiteral("17"));
        // The recording went on and ends as asked.
        const int fd = connectTo(sock);
        QVERIFY(fd >= 0);
        QCOMPARE(ask(fd, "quit\n"), QStringLiteral("ok"));
        ::close(fd);
        QVERIFY(gilscope->waitForFinished(60000));
        QCOMPARE(gilscope->exitCode(), 0);
        QVERIFY(samplesIn(out) > 0);
    }

    // A program marks its own phases with resources/python/gilscope_ctl.py: `gilscope run
    // --control` tells it the socket (GILSCOPE_CONTROL), and "checkout start"/"checkout end"
    // reach the Gecko export around the samples of checkout_work(). Host interpreters only:
    // the chroot does not see resources/ (the helper is the standard library's socket).
    void programMarksItsOwnPhases() {
        QList<Interpreter> hosts;
        for (const Interpreter& i : findInterpreters())
            if (!i.inChroot) hosts << i;
        GILSCOPE_REQUIRE(!hosts.isEmpty(), "no host Python interpreter");
        const QString script = targetScript(QStringLiteral("phases.py"));
        for (const Interpreter& python : hosts) {
            QTemporaryDir dir;
            QVERIFY(dir.isValid());
            const QString out = dir.filePath("out.json");
            const RunResult r =
                runGilscope({"run", "-r", "1khz", "--control", "unix:" + dir.filePath("ctl.sock"),
                             "--gecko", "-o", out, "--python", python.executable, script});
            QVERIFY2(r.exitCode == 0, qPrintable(python.label + ": " + describe(r)));
            QFile f(out);
            QVERIFY(f.open(QIODevice::ReadOnly));
            const QJsonObject profile = QJsonDocument::fromJson(f.readAll()).object();
            const QJsonArray strings = profile["shared"].toObject()["stringArray"].toArray();
            QMap<QString, double> marks;
            QList<double> checkout; // times of the samples inside checkout_work
            for (const QJsonValue& tv : profile["threads"].toArray()) {
                const QJsonObject th = tv.toObject();
                const QJsonObject markers = th["markers"].toObject();
                for (int i = 0; i < markers["length"].toInt(); ++i) {
                    const QString name = strings[markers["name"].toArray()[i].toInt()].toString();
                    if (name.startsWith("checkout "))
                        marks[name] = markers["startTime"].toArray()[i].toDouble();
                }
                // The samples with checkout_work on their stack.
                const QJsonObject samples = th["samples"].toObject();
                const QJsonArray stackFrame = th["stackTable"].toObject()["frame"].toArray(),
                                 stackPrefix = th["stackTable"].toObject()["prefix"].toArray(),
                                 frameFunc = th["frameTable"].toObject()["func"].toArray(),
                                 funcName = th["funcTable"].toObject()["name"].toArray();
                auto inCheckout = [&](QJsonValue stack) {
                    for (; !stack.isNull(); stack = stackPrefix[stack.toInt()])
                        if (strings[funcName[frameFunc[stackFrame[stack.toInt()].toInt()].toInt()]
                                        .toInt()]
                                .toString() == "checkout_work")
                            return true;
                    return false;
                };
                const QJsonArray stacks = samples["stack"].toArray(),
                                 times = samples["time"].toArray();
                for (int i = 0; i < stacks.size(); ++i) {
                    if (!inCheckout(stacks[i])) continue;
                    checkout << times[i].toDouble();
                }
            }
            QVERIFY2(marks.contains("checkout start") && marks.contains("checkout end"),
                     qPrintable(python.label + ": " + QStringList(marks.keys()).join(", ")));
            QVERIFY2(checkout.size() > 100, qPrintable(python.label)); // 0.3 s at 1 kHz
            // A mark is stamped when the socket hands it over, before the program goes on; a
            // sample is stamped when its tick starts, before its read. So the one tick in
            // flight when "start" arrived may see checkout_work with an earlier time, and no
            // other; nothing after "end" can (the function had returned).
            qsizetype early = 0, late = 0;
            for (double t : checkout) {
                early += t < marks["checkout start"];
                late += t > marks["checkout end"];
            }
            QVERIFY2(early <= 1 && late == 0,
                     qPrintable(QStringLiteral("%1: marks %2..%3, checkout_work %4..%5, %6 "
                                               "before, %7 after")
                                    .arg(python.label)
                                    .arg(marks["checkout start"])
                                    .arg(marks["checkout end"])
                                    .arg(checkout.first())
                                    .arg(checkout.last())
                                    .arg(early)
                                    .arg(late)));
        }
        // Without a recording the helper does nothing and the program runs as ever.
        const RunResult plain = runProgram(hosts.first().executable, {script});
        QVERIFY2(plain.exitCode == 0, qPrintable(describe(plain)));
    }

    // `flush` writes the output so far, whole, while the recording goes on: each flushed
    // file holds exactly the samples the reply counts (and the marks made before it), a
    // later flush holds more, and the end writes them all. An output to standard output
    // has nothing to flush.
    void flushWritesTheOutputSoFar_data() {
        QTest::addColumn<QString>("format");
        QTest::newRow("gecko") << "gecko";
        QTest::newRow("binary") << "binary";
        QTest::newRow("collapsed") << "collapsed";
    }
    void flushWritesTheOutputSoFar() {
        QFETCH(QString, format);
        const QList<Interpreter> found = findInterpreters();
        GILSCOPE_REQUIRE(!found.isEmpty(), "no Python interpreter");
        TargetProcess target(found.last(), "deep30.py");
        QVERIFY2(target.start(), qPrintable(target.error()));
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString sock = dir.filePath("ctl.sock");
        const QString out = dir.filePath("out." + format);
        auto gilscope = startGilscope({"attach", "-r", "1khz", "--control", "unix:" + sock,
                                       "--" + format, "-o", out, QString::number(target.pid())});
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(sock), 30000);
        const int fd = connectTo(sock);
        QVERIFY(fd >= 0);
        QCOMPARE(ask(fd, "mark before the flush\n"), QStringLiteral("ok"));
        double flushed = 0;
        for (int round = 0; round < 2; ++round) {
            // Until the recording holds more samples than the last flush did.
            QString reply;
            const auto flushedMore = [&] {
                reply = ask(fd, "flush\n");
                return reply.startsWith("ok samples=") && reply.mid(11).toDouble() > flushed;
            };
            QTRY_VERIFY2_WITH_TIMEOUT(flushedMore(), qPrintable(reply), 30000);
            flushed = reply.mid(11).toDouble();
            QStringList marks;
            QCOMPARE(samplesInOutput(format, out, &marks), flushed);
            if (format == "gecko") {
                QVERIFY2(marks.contains("before the flush"), qPrintable(marks.join(", ")));
                const QString checker = sharedDir() + "/tools/check-gecko";
                if (QFile::exists(checker)) {
                    const RunResult lint = runProgram(checker, {out});
                    QVERIFY2(lint.exitCode == 0, qPrintable(describe(lint)));
                }
            }
        }
        QCOMPARE(ask(fd, "quit\n"), QStringLiteral("ok"));
        ::close(fd);
        QVERIFY(gilscope->waitForFinished(60000));
        QCOMPARE(gilscope->exitCode(), 0);
        QVERIFY(samplesInOutput(format, out) >= flushed);
        if (format != "gecko") return;

        // A table printed on standard output: nothing to flush to.
        auto table = startGilscope({"attach", "-r", "1khz", "--control", "unix:" + sock, "--pstats",
                                    QString::number(target.pid())});
        QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(sock), 30000);
        const RunResult ctl = runGilscope({"ctl", sock, "flush", "quit"});
        QVERIFY2(ctl.out.startsWith("err flush_failed: the output goes to standard output"),
                 qPrintable(describe(ctl)));
        QVERIFY(table->waitForFinished(60000));
        QCOMPARE(table->exitCode(), 0);
    }

    void refusesBadUris() {
        for (const char* uri : {"tcp:1.2.3.4", "unix:", "nocolon"}) {
            const RunResult r = runGilscope({"attach", "--control", uri, "1"});
            QVERIFY2(r.exitCode != 0 && r.err.contains("control"), qPrintable(describe(r)));
        }
        const RunResult r = runGilscope({"attach", "--start-disabled", "1"});
        QVERIFY2(r.exitCode != 0 && r.err.contains("--control"), qPrintable(describe(r)));
    }
};

QTEST_GUILESS_MAIN(TestControl)
#include "test_control.moc"
