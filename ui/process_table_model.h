#pragma once

#include "core/remote/process_scanner.h"

#include <QAbstractTableModel>
#include <QElapsedTimer>

#include <functional>
#include <optional>
#include <vector>

namespace gilscope::ui {

// The Python processes on this machine, one row each. setProcesses() merges a fresh
// scan row by row (core/remote/process_list_diff.h), so rows that survive keep their
// persistent indexes and the view keeps its selection.
class ProcessTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Pid, User, Version, Cpu, CanAttach, CommandLine, ColumnCount };
    enum Role { PidRole = Qt::UserRole + 1, CanAttachRole, ReasonRole, SortRole, ExitedRole };

    explicit ProcessTableModel(QObject* parent = nullptr);

    // Merges a scan. With holdRows (the pointer is over the table) no row moves: rows
    // of processes that are gone stay, marked as exited. New processes are appended
    // either way (at the end of the view, which does not re-sort while rows are held).
    void setProcesses(const std::vector<PythonProcessInfo>& fresh, bool holdRows = false);
    // Applies what holdRows kept back: exited rows go.
    void releaseHeldRows();
    // While rows are held, those exited more than `afterSec` ago go all the same, except
    // the rows `keep` says to keep (what a removal would move under the pointer): a busy
    // machine must not pile up struck-out rows while the pointer rests on the table.
    void foldExitedRows(double afterSec, const std::function<bool(int row)>& keep);
    std::optional<PythonProcessInfo> processAt(int row) const;
    bool exitedAt(int row) const;
    double cpuPercentAt(int row) const; // -1 until two scans have seen the process
    int rowOfPid(int pid) const;        // -1 if not listed (or listed as exited)

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    struct Row {
        PythonProcessInfo info;
        double cpuPct = -1;
        bool exited = false;
        double exitedAtSec = 0; // when a scan first missed it (clock_)
    };
    QVariant display(const Row& r, int column) const;

    std::vector<Row> rows_;
    QElapsedTimer clock_; // wall time between scans, for CPU %
    double lastScanSec_ = -1;
};

// "3.9.18" -> a number that sorts by version (3.9.18 before 3.13.0); 0 for unknown.
qint64 versionSortKey(const std::string& version);

} // namespace gilscope::ui
