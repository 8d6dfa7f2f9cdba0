#include "ui/process_picker.h"

#include "ui/process_table_model.h"

#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>
#include <QtConcurrent>

namespace gilscope::ui {

ProcessPicker::ProcessPicker(QWidget* parent)
    : QWidget(parent), model_(new ProcessTableModel(this)), proxy_(new QSortFilterProxyModel(this)),
      filter_(new QLineEdit(this)), view_(new QTableView(this)), timer_(new QTimer(this)) {
    proxy_->setSourceModel(model_);
    proxy_->setFilterKeyColumn(-1); // every column
    proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    proxy_->setSortRole(Qt::DisplayRole);

    filter_->setObjectName(QStringLiteral("processFilter"));
    filter_->setPlaceholderText(tr("Filter by pid, user, version or command line"));
    filter_->setClearButtonEnabled(true);
    connect(filter_, &QLineEdit::textChanged, proxy_, &QSortFilterProxyModel::setFilterFixedString);

    view_->setObjectName(QStringLiteral("processTable"));
    view_->setModel(proxy_);
    view_->setSelectionBehavior(QAbstractItemView::SelectRows);
    view_->setSelectionMode(QAbstractItemView::SingleSelection);
    view_->setSortingEnabled(true);
    view_->sortByColumn(ProcessTableModel::Pid, Qt::AscendingOrder);
    view_->verticalHeader()->hide();
    view_->verticalHeader()->setDefaultSectionSize(view_->fontMetrics().height() + 6);
    view_->setAlternatingRowColors(true);
    view_->horizontalHeader()->setStretchLastSection(true);
    view_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    view_->setWordWrap(false);
    connect(view_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            &ProcessPicker::currentProcessChanged);
    // Row changes in place (e.g. can-attach flips) also matter to the Record button.
    connect(model_, &QAbstractItemModel::dataChanged, this, &ProcessPicker::currentProcessChanged);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(filter_);
    layout->addWidget(view_);

    connect(&watcher_, &QFutureWatcher<std::vector<PythonProcessInfo>>::finished, this,
            &ProcessPicker::applyScan);
    timer_->setInterval(2000);
    connect(timer_, &QTimer::timeout, this, &ProcessPicker::refreshNow);
    timer_->start();
    refreshNow();
}

ProcessPicker::~ProcessPicker() {
    // The scan only touches /proc and its own result; let it finish rather than block.
    watcher_.disconnect(this);
}

void ProcessPicker::refreshNow() {
    if (watcher_.isRunning()) return;
    watcher_.setFuture(QtConcurrent::run([] { return scanPythonProcesses(); }));
}

void ProcessPicker::setAutoRefresh(bool on) {
    if (on)
        timer_->start();
    else
        timer_->stop();
}

void ProcessPicker::applyScan() {
    const int before = currentProcess() ? currentProcess()->pid : 0;
    model_->setProcesses(watcher_.result());
    view_->resizeColumnToContents(ProcessTableModel::Pid);
    view_->resizeColumnToContents(ProcessTableModel::User);
    view_->resizeColumnToContents(ProcessTableModel::Version);
    const int after = currentProcess() ? currentProcess()->pid : 0;
    if (before != after) emit currentProcessChanged();
    emit scanFinished();
}

std::optional<PythonProcessInfo> ProcessPicker::currentProcess() const {
    const QModelIndex current = view_->selectionModel()->currentIndex();
    if (!current.isValid() || !view_->selectionModel()->isRowSelected(current.row(), {}))
        return std::nullopt;
    return model_->processAt(proxy_->mapToSource(current).row());
}

bool ProcessPicker::selectPid(int pid) {
    for (int row = 0; row < proxy_->rowCount(); ++row) {
        const QModelIndex index = proxy_->index(row, 0);
        if (index.data(ProcessTableModel::PidRole).toInt() != pid) continue;
        view_->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                            QItemSelectionModel::Rows);
        view_->scrollTo(index);
        return true;
    }
    return false;
}

} // namespace gilscope::ui
