#include "ui/process_table_model.h"

#include "core/live/process_list_diff.h"

#include <QBrush>
#include <QGuiApplication>
#include <QPalette>

namespace gilscope::ui {

ProcessTableModel::ProcessTableModel(QObject* parent) : QAbstractTableModel(parent) {
}

void ProcessTableModel::setProcesses(const std::vector<PythonProcessInfo>& fresh) {
    const ProcessListChanges changes = diffProcessLists(rows_, fresh);
    for (size_t row : changes.removedRows) {
        beginRemoveRows({}, int(row), int(row));
        rows_.erase(rows_.begin() + long(row));
        endRemoveRows();
    }
    for (const auto& [row, info] : changes.changedRows) {
        rows_[row] = info;
        emit dataChanged(index(int(row), 0), index(int(row), ColumnCount - 1));
    }
    if (!changes.appended.empty()) {
        const int first = int(rows_.size());
        beginInsertRows({}, first, first + int(changes.appended.size()) - 1);
        rows_.insert(rows_.end(), changes.appended.begin(), changes.appended.end());
        endInsertRows();
    }
}

std::optional<PythonProcessInfo> ProcessTableModel::processAt(int row) const {
    if (row < 0 || size_t(row) >= rows_.size()) return std::nullopt;
    return rows_[size_t(row)];
}

int ProcessTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(rows_.size());
}

int ProcessTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProcessTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || size_t(index.row()) >= rows_.size()) return {};
    const PythonProcessInfo& p = rows_[size_t(index.row())];
    switch (role) {
    case PidRole:
        return p.pid;
    case CanAttachRole:
        return p.canAttach;
    case ReasonRole:
        return QString::fromStdString(p.reason);
    case Qt::DisplayRole:
        switch (index.column()) {
        case Pid:
            return p.pid;
        case User:
            return QString::fromStdString(p.user);
        case Version:
            return p.version.empty() ? tr("unknown") : QString::fromStdString(p.version);
        case CanAttach:
            return p.canAttach ? tr("yes") : tr("no: %1").arg(QString::fromStdString(p.reason));
        case CommandLine:
            return QString::fromStdString(p.commandLine);
        }
        break;
    case Qt::ToolTipRole:
        if (index.column() == CanAttach && !p.canAttach) return QString::fromStdString(p.reason);
        if (index.column() == CommandLine)
            return QString::fromStdString(p.executable + "\n" + p.commandLine);
        break;
    case Qt::ForegroundRole:
        if (!p.canAttach)
            return QGuiApplication::palette().brush(QPalette::Disabled, QPalette::Text);
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == Pid) return int(Qt::AlignRight | Qt::AlignVCenter);
        break;
    }
    return {};
}

QVariant ProcessTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    switch (section) {
    case Pid:
        return tr("PID");
    case User:
        return tr("User");
    case Version:
        return tr("Python");
    case CanAttach:
        return tr("Can attach");
    case CommandLine:
        return tr("Command line");
    }
    return {};
}

} // namespace gilscope::ui
