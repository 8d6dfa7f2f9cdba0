#include "ui/process_picker.h"

#include "core/util/utf8.h"
#include "ui/job_runner.h"
#include "ui/process_table_model.h"

#include <QCursor>
#include <QEvent>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QTimer>
#include <QVBoxLayout>

namespace gilscope::ui {

namespace {
// How long an exited process stays struck out under a resting pointer before it folds away.
constexpr double kExitedRowsFoldAfterSec = 3.0;
} // namespace

ProcessPicker::ProcessPicker(QWidget* parent)
    : QWidget(parent), model_(new ProcessTableModel(this)), proxy_(new QSortFilterProxyModel(this)),
      filter_(new QLineEdit(this)), view_(new QTableView(this)), details_(new QLabel(this)),
      timer_(new QTimer(this)), holdCheck_(new QTimer(this)), scans_(new JobRunner(this)) {
    proxy_->setSourceModel(model_);
    proxy_->setFilterKeyColumn(-1); // every column
    proxy_->setFilterCaseSensitivity(Qt::CaseInsensitive);
    proxy_->setSortRole(ProcessTableModel::SortRole);

    filter_->setObjectName(QStringLiteral("processFilter"));
    filter_->setPlaceholderText(tr("Filter by pid, user, version or command line"));
    filter_->setClearButtonEnabled(true);
    connect(filter_, &QLineEdit::textChanged, this, [this](const QString& text) {
        internalChange_ = true;
        proxy_->setFilterFixedString(text);
        internalChange_ = false;
        reconcileSelection(tr("the filter hides it"));
    });

    // Keyboard only: type a filter, Return (or Tab, then Return) records the first match.
    connect(filter_, &QLineEdit::returnPressed, this, [this] {
        if (selectFirstRow()) emit recordRequested(selectedPid_);
    });

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
    view_->installEventFilter(this);
    view_->viewport()->installEventFilter(this);
    view_->viewport()->setMouseTracking(true);
    // A click selects in two steps (current index, then selection): follow the
    // selection, which is complete after both.
    connect(view_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
            &ProcessPicker::onSelectionChanged);
    connect(view_, &QAbstractItemView::doubleClicked, this, [this](const QModelIndex& index) {
        const int pid = index.data(ProcessTableModel::PidRole).toInt();
        if (pid != 0 && pid == selectedPid_) emit recordRequested(pid);
    });
    // Row changes in place (e.g. can-attach flips) also matter to the Record button.
    connect(model_, &QAbstractItemModel::dataChanged, this, [this] {
        updateDetails();
        emit currentProcessChanged();
    });

    details_->setObjectName(QStringLiteral("processDetails"));
    details_->setWordWrap(true);
    details_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    details_->setTextFormat(Qt::PlainText);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(filter_);
    layout->addWidget(view_, 1);
    layout->addWidget(details_);
    updateDetails();

    timer_->setInterval(2000);
    // The periodic scan skips a turn while one runs; only an asked refresh waits for its own.
    connect(timer_, &QTimer::timeout, this, [this] {
        if (!scans_->running()) refreshNow();
    });
    holdCheck_->setInterval(250);
    connect(holdCheck_, &QTimer::timeout, this, [this] {
        if (!cursorOverRows()) setPointerInside(false);
    });
    refreshNow();
}

ProcessPicker::~ProcessPicker() = default; // scans_ waits for a scan (it reads /proc only)

void ProcessPicker::refreshNow() {
    if (scans_->running()) {
        rescanAsked_ = true;
        return;
    }
    using Scan = std::vector<PythonProcessInfo>;
    scans_->start<Scan>(
        QString(),
        [](const ProgressCallback&, const CancelToken*) {
            return Result<Scan>(scanPythonProcesses());
        },
        [this](Result<Scan> scan) { applyScan(std::move(scan)); });
}

void ProcessPicker::setAutoRefresh(bool on) {
    autoRefresh_ = on;
    if (on && isVisible())
        timer_->start();
    else
        timer_->stop();
}

void ProcessPicker::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (!autoRefresh_) return;
    timer_->start();
    if (!scans_->running()) refreshNow(); // what changed while hidden
}

void ProcessPicker::hideEvent(QHideEvent* event) {
    QWidget::hideEvent(event);
    timer_->stop();
}

void ProcessPicker::applyScan(Result<std::vector<PythonProcessInfo>> scan) {
    if (!scan) { // a scan that threw: the table stays as it was, and says why
        scanError_ =
            tr("Cannot list the processes: %1").arg(QString::fromStdString(scan.error().message));
        updateDetails();
        finishScan();
        return;
    }
    scanError_.clear();
    internalChange_ = true;
    model_->setProcesses(*scan, pointerInside_);
    if (pointerInside_) {
        // An exited row stays struck out for a moment where the pointer rests, then folds
        // away if that moves nothing under the pointer: rows below it fold, the row under
        // it and those above wait until the pointer moves on (or a click lands elsewhere).
        const QModelIndex under = view_->indexAt(view_->viewport()->mapFromGlobal(QCursor::pos()));
        model_->foldExitedRows(kExitedRowsFoldAfterSec, [&](int row) {
            const QModelIndex shown = proxy_->mapFromSource(model_->index(row, 0));
            return under.isValid() && shown.isValid() && shown.row() <= under.row();
        });
    }
    internalChange_ = false;
    view_->resizeColumnToContents(ProcessTableModel::Pid);
    view_->resizeColumnToContents(ProcessTableModel::User);
    view_->resizeColumnToContents(ProcessTableModel::Version);
    view_->resizeColumnToContents(ProcessTableModel::Cpu);
    reconcileSelection(tr("it has exited"));
    finishScan();
}

void ProcessPicker::finishScan() {
    if (!rescanAsked_) {
        emit scanFinished();
        return;
    }
    rescanAsked_ = false;
    refreshNow(); // its end says scanFinished(): the rows are then as new as asked
}

bool ProcessPicker::eventFilter(QObject* watched, QEvent* event) {
    if (watched == view_->viewport()) {
        switch (event->type()) {
        case QEvent::Enter:
        case QEvent::MouseMove:
        case QEvent::MouseButtonPress:
            setPointerInside(true);
            break;
        case QEvent::Leave:
            setPointerInside(false);
            break;
        default:
            break;
        }
    } else if (watched == view_ && event->type() == QEvent::FocusIn) {
        // Tabbing into the table from the filter picks its first row, ready for Return.
        const auto reason = static_cast<QFocusEvent*>(event)->reason();
        if (reason == Qt::TabFocusReason || reason == Qt::BacktabFocusReason) selectFirstRow();
    } else if (watched == view_ && event->type() == QEvent::KeyPress) {
        const int key = static_cast<QKeyEvent*>(event)->key();
        if ((key == Qt::Key_Space || key == Qt::Key_Return || key == Qt::Key_Enter) &&
            selectedPid_ != 0) {
            emit recordRequested(selectedPid_);
            return true;
        }
    }
    return QWidget::eventFilter(watched, event);
}

bool ProcessPicker::selectFirstRow() {
    if (selectedPid_ != 0) return true;
    const QModelIndex first = proxy_->index(0, 0);
    if (!first.isValid() || first.data(ProcessTableModel::ExitedRole).toBool()) return false;
    view_->selectionModel()->setCurrentIndex(first, QItemSelectionModel::ClearAndSelect |
                                                        QItemSelectionModel::Rows);
    return selectedPid_ != 0;
}

bool ProcessPicker::cursorOverRows() const {
    const QWidget* viewport = view_->viewport();
    return viewport->isVisible() &&
           viewport->rect().contains(viewport->mapFromGlobal(QCursor::pos()));
}

void ProcessPicker::setPointerInside(bool inside) {
    if (inside == pointerInside_) return;
    pointerInside_ = inside;
    if (inside)
        holdCheck_->start();
    else
        holdCheck_->stop();
    // Rows keep their order under the pointer; on leaving, catch up.
    proxy_->setDynamicSortFilter(!inside);
    if (inside) return;
    internalChange_ = true;
    model_->releaseHeldRows();
    internalChange_ = false;
    reconcileSelection(tr("it has exited"));
}

void ProcessPicker::onSelectionChanged() {
    if (internalChange_) return;
    const QModelIndexList rows = view_->selectionModel()->selectedRows();
    const int pid = rows.size() == 1 ? rows.first().data(ProcessTableModel::PidRole).toInt() : 0;
    const bool exited =
        rows.size() == 1 && rows.first().data(ProcessTableModel::ExitedRole).toBool();
    selectedPid_ = exited ? 0 : pid;
    lost_.clear();
    updateDetails();
    emit currentProcessChanged();
}

void ProcessPicker::reconcileSelection(const QString& whyLost) {
    if (selectedPid_ == 0) {
        // Qt may have moved the current row to a neighbour; it is not a selection.
        if (!view_->selectionModel()->selectedRows().isEmpty()) clearSelection();
        updateDetails();
        return;
    }
    const int sourceRow = model_->rowOfPid(selectedPid_);
    const QModelIndex index =
        sourceRow < 0 ? QModelIndex() : proxy_->mapFromSource(model_->index(sourceRow, 0));
    if (index.isValid()) {
        const QModelIndexList rows = view_->selectionModel()->selectedRows();
        if (rows.size() != 1 || rows.first().row() != index.row()) {
            internalChange_ = true;
            view_->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                                QItemSelectionModel::Rows);
            internalChange_ = false;
        }
        updateDetails();
        return;
    }
    const int lost = selectedPid_;
    const QString why = model_->rowOfPid(lost) < 0 ? tr("it has exited") : whyLost;
    lost_ = tr("Process %1 is no longer selected: %2.").arg(lost).arg(why);
    clearSelection();
    emit selectionLost(lost, why);
}

void ProcessPicker::clearSelection() {
    internalChange_ = true;
    view_->selectionModel()->clear(); // selection and current index
    internalChange_ = false;
    const bool had = selectedPid_ != 0;
    selectedPid_ = 0;
    updateDetails();
    if (had) emit currentProcessChanged();
}

void ProcessPicker::updateDetails() {
    if (!scanError_.isEmpty()) {
        details_->setText(scanError_);
        return;
    }
    const auto p = currentProcess();
    if (!p) {
        details_->setText(lost_.isEmpty()
                              ? tr("Click a process to select it; Record (Ctrl+R) samples it.")
                              : lost_);
        return;
    }
    const int row = model_->rowOfPid(p->pid);
    const double cpu = model_->cpuPercentAt(row);
    QString text =
        tr("PID %1 · %2 · Python %3")
            .arg(p->pid)
            .arg(QString::fromStdString(escapeForDisplay(p->user)))
            .arg(p->version.empty() ? tr("unknown") : QString::fromStdString(p->version));
    if (cpu >= 0) text += tr(" · CPU %1 %").arg(cpu, 0, 'f', 1);
    text +=
        p->canAttach
            ? tr(" · can attach")
            : tr("\nCannot attach: %1").arg(QString::fromStdString(escapeForDisplay(p->reason)));
    QString command = QString::fromStdString(escapeForDisplay(p->commandLine));
    if (command.size() > 400)
        command = command.left(200) + QStringLiteral(" … ") + command.right(200);
    text += QLatin1Char('\n') + command;
    details_->setText(text);
}

std::optional<PythonProcessInfo> ProcessPicker::currentProcess() const {
    if (selectedPid_ == 0) return std::nullopt;
    return model_->processAt(model_->rowOfPid(selectedPid_));
}

bool ProcessPicker::selectPid(int pid) {
    const int sourceRow = model_->rowOfPid(pid);
    if (sourceRow < 0) return false;
    const QModelIndex index = proxy_->mapFromSource(model_->index(sourceRow, 0));
    if (!index.isValid()) return false; // hidden by the filter
    view_->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                        QItemSelectionModel::Rows);
    view_->scrollTo(index);
    return true;
}

} // namespace gilscope::ui
