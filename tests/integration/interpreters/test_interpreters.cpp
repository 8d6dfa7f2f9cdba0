// The test infrastructure itself: every interpreter on the machine starts a target
// whose pid is a live host pid running python, including the chroot ones.
#include "tests/support/python_interpreters.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using gilscope::test::Interpreter;
using gilscope::test::TargetOptions;
using gilscope::test::TargetProcess;

namespace {

bool pidAlive(qint64 pid) {
    return ::kill(pid_t(pid), 0) == 0;
}

QString procLink(qint64 pid, const char* what) {
    return QFile::symLinkTarget(QStringLiteral("/proc/%1/%2").arg(pid).arg(what));
}

// A reaped process has no /proc entry; a zombie still has one.
bool procGone(qint64 pid) {
    return !QFileInfo::exists(QStringLiteral("/proc/%1").arg(pid));
}

} // namespace

class TestInterpreters : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { GILSCOPE_PRINT_AND_REQUIRE_INTERPRETERS(); }

    void startsThreeDeep_data() {
        gilscope::test::addInterpreterRows(gilscope::test::findInterpreters());
    }
    void startsThreeDeep() {
        QFETCH(Interpreter, interpreter);
        qint64 pid = 0;
        {
            TargetProcess target(interpreter, QStringLiteral("three_deep.py"));
            QVERIFY2(target.start(), qPrintable(target.error()));
            pid = target.pid();
            QVERIFY(pid > 1);
            QVERIFY(pidAlive(pid));
            const QString exe = procLink(pid, "exe");
            QVERIFY2(QFileInfo(exe).fileName().startsWith(QStringLiteral("python3.")),
                     qPrintable(exe));
            QCOMPARE(QFileInfo(exe).fileName(), QFileInfo(interpreter.executable).fileName());
            if (interpreter.inChroot)
                QCOMPARE(procLink(pid, "root"), gilscope::test::chrootDir());
            else
                QCOMPARE(procLink(pid, "root"), QStringLiteral("/"));
            const QJsonArray frames = target.readyInfo().value(QStringLiteral("frames")).toArray();
            QCOMPARE(frames.size(), 4);
            QCOMPARE(frames[0].toObject().value(QStringLiteral("qualname")).toString(),
                     QStringLiteral("Spinner.spin"));
            QVERIFY(target.isRunning());
        }
        QTRY_VERIFY_WITH_TIMEOUT(procGone(pid), 60000); // terminated and reaped
    }

    // The temp dir is bind-mounted into the chroot at the same path.
    void unicodeNamesInTempDir_data() {
        gilscope::test::addInterpreterRows(gilscope::test::findInterpreters());
    }
    void unicodeNamesInTempDir() {
        QFETCH(Interpreter, interpreter);
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        TargetProcess target(interpreter, QStringLiteral("unicode_names.py"),
                             TargetOptions{{tmp.path()}, {tmp.path()}});
        QVERIFY2(target.start(), qPrintable(target.error()));
        const QString file = target.readyInfo().value(QStringLiteral("file")).toString();
        QCOMPARE(QFileInfo(file).fileName(), QStringLiteral("módulo_ñ_東京.py"));
        QVERIFY2(QFileInfo::exists(file), qPrintable(file)); // written through the bind mount
        QCOMPARE(target.readyInfo().value(QStringLiteral("function")).toString(),
                 QStringLiteral("función_π_λ"));
    }

    void exitCodeIsReported() {
        const auto all = gilscope::test::findInterpreters();
        GILSCOPE_REQUIRE_INTERPRETERS(all);
        TargetProcess target(all.last(), QStringLiteral("exits_soon.py"),
                             TargetOptions{{QStringLiteral("0.2"), QStringLiteral("7")}, {}});
        QVERIFY2(target.start(), qPrintable(target.error()));
        QCOMPARE(target.waitForExit(10000), std::optional<int>(7));
        QVERIFY(!target.isRunning());
    }

    void failureBeforeReadyIsExplained() {
        const auto all = gilscope::test::findInterpreters();
        GILSCOPE_REQUIRE_INTERPRETERS(all);
        TargetProcess target(all.first(), QStringLiteral("exits_soon.py"),
                             TargetOptions{{QStringLiteral("not-a-number")}, {}, 10000});
        QVERIFY(!target.start());
        QVERIFY2(target.error().contains(QStringLiteral("before printing READY")),
                 qPrintable(target.error()));
        QVERIFY2(target.error().contains(QStringLiteral("ValueError")), qPrintable(target.error()));
    }
};

QTEST_GUILESS_MAIN(TestInterpreters)
#include "test_interpreters.moc"
