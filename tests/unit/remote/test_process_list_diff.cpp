// The incremental merge behind the process picker: rows that survive a rescan keep
// their position, so the view keeps the selection.
#include "core/remote/process_list_diff.h"

#include <QTest>

using namespace gilscope;

namespace {

PythonProcessInfo proc(int pid, std::string exe = "/usr/bin/python3.11", std::string cmd = "x") {
    PythonProcessInfo p;
    p.pid = pid;
    p.executable = std::move(exe);
    p.commandLine = std::move(cmd);
    p.canAttach = true;
    return p;
}

std::vector<int> pids(const std::vector<PythonProcessInfo>& list) {
    std::vector<int> out;
    for (const auto& p : list)
        out.push_back(p.pid);
    return out;
}

} // namespace

class TestProcessListDiff : public QObject {
    Q_OBJECT
private slots:
    void identicalListsChangeNothing() {
        const std::vector<PythonProcessInfo> a{proc(1), proc(2)};
        const auto c = diffProcessLists(a, a);
        QVERIFY(c.removedRows.empty());
        QVERIFY(c.changedRows.empty());
        QVERIFY(c.appended.empty());
    }

    void removesAppendsAndUpdatesInPlace() {
        std::vector<PythonProcessInfo> current{proc(10), proc(20), proc(30), proc(40)};
        auto changed30 = proc(30);
        changed30.canAttach = false;
        changed30.reason = "gone";
        const std::vector<PythonProcessInfo> fresh{proc(50), changed30, proc(10), proc(40)};
        const auto c = diffProcessLists(current, fresh);
        QCOMPARE(c.removedRows, std::vector<size_t>{1}); // pid 20
        QCOMPARE(c.changedRows.size(), size_t(1));
        QCOMPARE(c.changedRows[0].first, size_t(1)); // pid 30, after the removal
        QCOMPARE(c.appended.size(), size_t(1));
        QCOMPARE(c.appended[0].pid, 50);
        applyProcessListChanges(current, c);
        // Survivors keep their order; newcomers go to the end.
        QCOMPARE(pids(current), (std::vector<int>{10, 30, 40, 50}));
        QCOMPARE(current[1].reason, std::string("gone"));
    }

    void removalsAreDescendingSoIndexesStayValid() {
        std::vector<PythonProcessInfo> current{proc(1), proc(2), proc(3), proc(4), proc(5)};
        const auto c = diffProcessLists(current, {proc(2), proc(4)});
        QCOMPARE(c.removedRows, (std::vector<size_t>{4, 2, 0}));
        applyProcessListChanges(current, c);
        QCOMPARE(pids(current), (std::vector<int>{2, 4}));
    }

    void recycledPidIsANewProcess() {
        std::vector<PythonProcessInfo> current{proc(7, "/usr/bin/python3.11")};
        const auto c = diffProcessLists(current, {proc(7, "/opt/python3.13")});
        QCOMPARE(c.removedRows, std::vector<size_t>{0});
        QCOMPARE(c.appended.size(), size_t(1));
    }

    // What the process model merges by: each listed process's row in the scan, even
    // when nothing shown changed (its CPU time moves), and the scan's new rows.
    void matchGivesEachSurvivorItsFreshRow() {
        const std::vector<PythonProcessInfo> current{proc(1), proc(2), proc(3)};
        auto busier = proc(3);
        busier.cpuSeconds = 5;
        const auto m = matchProcessLists(current, {proc(9), busier, proc(1)});
        QCOMPARE(m.freshRowOf.size(), size_t(3));
        QCOMPARE(m.freshRowOf[0], std::optional<size_t>(2));
        QCOMPARE(m.freshRowOf[1], std::optional<size_t>());
        QCOMPARE(m.freshRowOf[2], std::optional<size_t>(1));
        QCOMPARE(m.newRows, std::vector<size_t>{0});
    }
};

QTEST_GUILESS_MAIN(TestProcessListDiff)
#include "test_process_list_diff.moc"
