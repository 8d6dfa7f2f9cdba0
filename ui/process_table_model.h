#pragma once

#include "core/remote/process_scanner.h"

#include <QAbstractTableModel>

#include <optional>
#include <vector>

namespace gilscope::ui {

// The Python processes on this machine, one row each. setProcesses() merges a fresh
// scan row by row (core/live/process_list_diff.h), so rows that survive keep their
// persistent indexes and the view keeps its selection.
class ProcessTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Pid, User, Version, CanAttach, CommandLine, ColumnCount };
    enum Role { PidRole = Qt::UserRole + 1, CanAttachRole, ReasonRole };

    explicit ProcessTableModel(QObject* parent = nullptr);

    void setProcesses(const std::vector<PythonProcessInfo>& fresh);
    const std::vector<PythonProcessInfo>& processes() const { return rows_; }
    std::optional<PythonProcessInfo> processAt(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

private:
    std::vector<PythonProcessInfo> rows_;
};

} // namespace gilscope::ui
