// descendantPids and processImage on real processes: a shell with two children is found
// whole (children and grandchildren), a fork shares its parent's image until it execs.
#include "core/remote/exec_watch.h"
#include "core/remote/process_tree.h"

#include <QProcess>
#include <QTest>

#include <algorithm>
#include <csignal>
#include <ctime>
#include <unistd.h>

using namespace gilscope;

class TestProcessTree : public QObject {
    Q_OBJECT
private slots:
    void descendantsOfAShell() {
        // sh -> (sleep, sh -> sleep): two children and a grandchild, then it says ready.
        QProcess sh;
        sh.start("/bin/sh", {"-c", "sleep 60 & sh -c 'sleep 60 & echo $!; wait' & read x; wait"});
        QVERIFY(sh.waitForStarted());
        QTRY_VERIFY_WITH_TIMEOUT(sh.canReadLine() || (sh.waitForReadyRead(100), sh.canReadLine()),
                                 30000);
        const int grandchild = sh.readLine().trimmed().toInt();
        QVERIFY(grandchild > 0);
        std::vector<int> found;
        QTRY_VERIFY_WITH_TIMEOUT((found = descendantPids(int(sh.processId()))).size() == 3, 30000);
        QVERIFY(std::find(found.begin(), found.end(), grandchild) != found.end());
        // Breadth first: the grandchild comes after both children.
        QCOMPARE(found.back(), grandchild);
        QVERIFY(std::find(found.begin(), found.end(), int(sh.processId())) == found.end());
        for (int pid : found) {
            QVERIFY(remote::parentPid(pid).has_value());
            QVERIFY(!executableOf(pid).empty());
        }
        sh.kill();
        sh.waitForFinished();
        for (int pid : found)
            ::kill(pid, SIGKILL);
    }

    // The fork rule's inputs: a process's own CPU time, and the verdict from it and age.
    void cpuTimeCountsOnlyRunning() {
        const auto before = cpuTimeNs(int(::getpid()));
        QVERIFY(before.has_value());
        timespec start{}, now{};
        ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start);
        // 100 ms of this thread's CPU, however long that takes on a busy machine; schedstat
        // is brought up to date only at ticks and switches, so allow a few ticks behind.
        do
            ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
        while ((now.tv_sec - start.tv_sec) * 1000000000L + (now.tv_nsec - start.tv_nsec) <
               100000000L);
        const auto after = cpuTimeNs(int(::getpid()));
        QVERIFY(after.has_value());
        QVERIFY2(*after >= *before + 50000000, qPrintable(QString::number(*after - *before)));
        QVERIFY(!cpuTimeNs(1 << 30).has_value()); // no such process
    }

    void aForkIsAWorkerOnceItRunsOrWaitsLong() {
        QVERIFY(!forkIsAWorker(0, 0, false));
        QVERIFY(!forkIsAWorker(kForkWorkerCpuNs - 1, kForkWorkerAgeMs - 1, false));
        QVERIFY(forkIsAWorker(kForkWorkerCpuNs, 0, true));
        QVERIFY(forkIsAWorker(0, kForkWorkerAgeMs, false));
        // Still runnable however long: a child waiting for a core to reach its execve.
        QVERIFY(!forkIsAWorker(0, 60 * kForkWorkerAgeMs, true));
        QVERIFY(!forkIsAWorker(std::nullopt, 10, false));
        QVERIFY(forkIsAWorker(std::nullopt, kForkWorkerAgeMs, false));
        // The state as the kernel reports it: a sleeping child is not runnable, we are.
        QCOMPARE(isRunnable(int(::getpid())), std::optional<bool>(true));
        QProcess sleeper;
        sleeper.start("/bin/sleep", {"60"});
        QVERIFY(sleeper.waitForStarted());
        QTRY_COMPARE_WITH_TIMEOUT(isRunnable(int(sleeper.processId())), std::optional<bool>(false),
                                  30000);
        sleeper.kill();
        sleeper.waitForFinished();
        QVERIFY(!isRunnable(1 << 30).has_value());
    }

    void noDescendants() {
        QVERIFY(descendantPids(1 << 30).empty()); // no such process
    }

    void anImageIsAProcesssOwn() {
        const auto self = remote::processImage(int(::getpid()));
        QVERIFY(self.has_value());
        QVERIFY(!self->exe.empty());
        QVERIFY(self->startStack != 0);
        QProcess other;
        other.start("/bin/sleep", {"60"});
        QVERIFY(other.waitForStarted());
        const auto image = remote::processImage(int(other.processId()));
        QVERIFY(image.has_value());
        QVERIFY(!(*image == *self)); // exec'd: another image
        QCOMPARE(remote::parentPid(int(other.processId())), std::optional<int>(int(::getpid())));
        other.kill();
        other.waitForFinished();
    }
};

QTEST_GUILESS_MAIN(TestProcessTree)
#include "test_process_tree.moc"
