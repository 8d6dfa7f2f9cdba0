#include "ui/process_table_model.h"

#include "core/remote/process_list_diff.h"
#include "core/util/utf8.h"

#include <QGuiApplication>
#include <QPalette>

#include <QFont>

#include <charconv>

namespace gilscope::ui {

qint64 versionSortKey(const std::string& version) {
    qint64 key = 0;
    const char* p = version.data();
    const char* end = p + version.size();
    for (int part = 0; part < 3; ++part) {
        int n = 0;
        auto [next, ec] = std::from_chars(p, end, n);
        key = key * 1000 + (ec == std::errc{} ? n : 0);
        p = next;
        if (p < end && *p == '.') ++p;
    }
    return key;
}

ProcessTableModel::ProcessTableModel(QObject* parent) : QAbstractTableModel(parent) {
    clock_.start();
}

void ProcessTableModel::setProcesses(const std::vector<PythonProcessInfo>& fresh, bool holdRows) {
    const double now = double(clock_.nsecsElapsed()) / 1e9;
    const double wall = lastScanSec_ < 0 ? 0 : now - lastScanSec_;
    lastScanSec_ = now;

    std::vector<PythonProcessInfo> current;
    current.reserve(rows_.size());
    for (const Row& r : rows_)
        current.push_back(r.info);
    const ProcessListMatch match = matchProcessLists(current, fresh);
    std::vector<size_t> gone;
    for (size_t i = 0; i < rows_.size(); ++i) {
        Row& r = rows_[i];
        const auto row = match.freshRowOf[i];
        if (!row) {
            gone.push_back(i);
            continue;
        }
        const PythonProcessInfo& f = fresh[*row];
        r.cpuPct = wall > 0 && r.info.cpuSeconds >= 0 && f.cpuSeconds >= r.info.cpuSeconds
                       ? 100.0 * (f.cpuSeconds - r.info.cpuSeconds) / wall
                       : -1;
        r.info = f;
        r.exited = false;
    }
    if (holdRows) {
        for (size_t i : gone) {
            if (!rows_[i].exited) rows_[i].exitedAtSec = now;
            rows_[i].exited = true;
            rows_[i].cpuPct = -1;
        }
    } else {
        for (auto i = gone.rbegin(); i != gone.rend(); ++i) {
            beginRemoveRows({}, int(*i), int(*i));
            rows_.erase(rows_.begin() + long(*i));
            endRemoveRows();
        }
    }
    // In place (CPU % changes every scan): one signal for all rows.
    if (!rows_.empty())
        emit dataChanged(index(0, 0), index(int(rows_.size()) - 1, ColumnCount - 1));
    // New processes are appended, held or not: the picker's view stops re-sorting while the
    // pointer rests on the table, so they show below the rows already there and move none.
    // (Holding them back hid every process from a window opened under the pointer.)
    std::vector<Row> added;
    for (size_t i : match.newRows)
        added.push_back(Row{fresh[i], -1, false});
    if (added.empty()) return;
    const int first = int(rows_.size());
    beginInsertRows({}, first, first + int(added.size()) - 1);
    for (auto& r : added)
        rows_.push_back(std::move(r));
    endInsertRows();
}

void ProcessTableModel::releaseHeldRows() {
    for (size_t i = rows_.size(); i-- > 0;) {
        if (!rows_[i].exited) continue;
        beginRemoveRows({}, int(i), int(i));
        rows_.erase(rows_.begin() + long(i));
        endRemoveRows();
    }
}

void ProcessTableModel::foldExitedRows(double afterSec, const std::function<bool(int)>& keep) {
    const double now = double(clock_.nsecsElapsed()) / 1e9;
    for (size_t i = rows_.size(); i-- > 0;) {
        const Row& r = rows_[i];
        if (!r.exited || now - r.exitedAtSec < afterSec || keep(int(i))) continue;
        beginRemoveRows({}, int(i), int(i));
        rows_.erase(rows_.begin() + long(i));
        endRemoveRows();
    }
}

std::optional<PythonProcessInfo> ProcessTableModel::processAt(int row) const {
    if (row < 0 || size_t(row) >= rows_.size()) return std::nullopt;
    return rows_[size_t(row)].info;
}

bool ProcessTableModel::exitedAt(int row) const {
    return row >= 0 && size_t(row) < rows_.size() && rows_[size_t(row)].exited;
}

double ProcessTableModel::cpuPercentAt(int row) const {
    return row >= 0 && size_t(row) < rows_.size() ? rows_[size_t(row)].cpuPct : -1;
}

int ProcessTableModel::rowOfPid(int pid) const {
    for (size_t i = 0; i < rows_.size(); ++i)
        if (rows_[i].info.pid == pid && !rows_[i].exited) return int(i);
    return -1;
}

int ProcessTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : int(rows_.size());
}

int ProcessTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ProcessTableModel::display(const Row& r, int column) const {
    const PythonProcessInfo& p = r.info;
    switch (column) {
    case Pid:
        return p.pid;
    case User:
        return QString::fromStdString(escapeForDisplay(p.user));
    case Version:
        return p.version.empty() ? tr("unknown") : QString::fromStdString(p.version);
    case Cpu:
        return r.cpuPct < 0 ? QString() : QString::number(r.cpuPct, 'f', 1);
    case CanAttach:
        if (r.exited) return tr("no: exited");
        // The first clause; the details line under the table has the whole reason.
        return p.canAttach ? tr("yes")
                           : tr("no: %1").arg(QString::fromStdString(escapeForDisplay(
                                 p.reason.substr(0, p.reason.find_first_of(";:(")))));
    case CommandLine:
        // One line per row, escaped as `gilscope ps` escapes it.
        return QString::fromStdString(escapeForDisplay(p.commandLine));
    }
    return {};
}

QVariant ProcessTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || size_t(index.row()) >= rows_.size()) return {};
    const Row& r = rows_[size_t(index.row())];
    const PythonProcessInfo& p = r.info;
    switch (role) {
    case PidRole:
        return p.pid;
    case CanAttachRole:
        return p.canAttach && !r.exited;
    case ReasonRole:
        return r.exited ? tr("the process has exited") : QString::fromStdString(p.reason);
    case ExitedRole:
        return r.exited;
    case SortRole:
        switch (index.column()) {
        case Version:
            return versionSortKey(p.version);
        case Cpu:
            return r.cpuPct;
        case Pid:
            return p.pid;
        default:
            return display(r, index.column());
        }
    case Qt::DisplayRole:
        return display(r, index.column());
    case Qt::ToolTipRole:
        if (index.column() == CanAttach && !p.canAttach)
            return QString::fromStdString(escapeForDisplay(p.reason));
        if (index.column() == CommandLine)
            return QString::fromStdString(escapeForDisplay(p.executable) + "\n" +
                                          escapeForDisplay(p.commandLine));
        if (index.column() == Cpu) return tr("CPU use since the previous scan (100 % = one core)");
        break;
    case Qt::ForegroundRole:
        if (!p.canAttach || r.exited)
            return QGuiApplication::palette().brush(QPalette::Disabled, QPalette::Text);
        break;
    case Qt::FontRole:
        if (r.exited) {
            QFont f;
            f.setStrikeOut(true);
            return f;
        }
        break;
    case Qt::TextAlignmentRole:
        if (index.column() == Pid || index.column() == Cpu)
            return int(Qt::AlignRight | Qt::AlignVCenter);
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
    case Cpu:
        return tr("CPU %");
    case CanAttach:
        return tr("Can attach");
    case CommandLine:
        return tr("Command line");
    }
    return {};
}

} // namespace gilscope::ui
