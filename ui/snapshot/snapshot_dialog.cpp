#include "ui/snapshot/snapshot_dialog.h"

#include "core/snapshot/snapshot_format.h"
#include "core/target/attached_process.h"
#include "ui/job_runner.h"
#include "ui/snapshot/snapshot_tree.h"

#include <QApplication>
#include <QClipboard>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace gilscope::ui {

SnapshotDialog::SnapshotDialog(std::shared_ptr<const target::AttachedProcess> door,
                               const QString& processName, QWidget* parent)
    : SnapshotDialog(door->pid(), door, processName, parent) {
}

SnapshotDialog::SnapshotDialog(int pid, const QString& processName, QWidget* parent)
    : SnapshotDialog(pid, nullptr, processName, parent) {
}

SnapshotDialog::SnapshotDialog(int pid, std::shared_ptr<const target::AttachedProcess> door,
                               const QString& processName, QWidget* parent)
    : QDialog(parent), pid_(pid), door_(std::move(door)), job_(new JobRunner(this)),
      tree_(new QTreeWidget(this)), status_(new QLabel(this)),
      copy_(new QPushButton(tr("Copy as text"), this)),
      refresh_(new QPushButton(tr("Refresh"), this)) {
    setObjectName(QStringLiteral("snapshotDialog"));
    setWindowTitle(tr("Snapshot of pid %1 — %2").arg(pid).arg(processName));
    tree_->setObjectName(QStringLiteral("snapshotTree"));
    tree_->setColumnCount(2);
    tree_->setHeaderLabels({tr("Thread, frame, variable"), tr("Source line, value")});
    tree_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    tree_->setUniformRowHeights(true);
    status_->setObjectName(QStringLiteral("snapshotStatus"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    copy_->setObjectName(QStringLiteral("snapshotCopy"));
    refresh_->setObjectName(QStringLiteral("snapshotRefresh"));
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    buttons->addButton(copy_, QDialogButtonBox::ActionRole);
    buttons->addButton(refresh_, QDialogButtonBox::ActionRole);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::close);
    connect(copy_, &QPushButton::clicked, this, &SnapshotDialog::copyText);
    connect(refresh_, &QPushButton::clicked, this, &SnapshotDialog::refresh);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(status_);
    layout->addWidget(tree_, 1);
    layout->addWidget(buttons);
    resize(1000, 700);
    refresh();
}

void SnapshotDialog::refresh() {
    status_->setText(tr("Reading every thread of pid %1…").arg(pid_));
    refresh_->setEnabled(false);
    copy_->setEnabled(snapshot_.has_value());
    job_->start<ProcessSnapshot>(
        tr("Snapshot"),
        [pid = pid_, door = door_](const ProgressCallback&, const CancelToken*) {
            SnapshotOptions options;
            options.locals = true;
            return door ? takeSnapshot(door, options) : takeSnapshot(pid, options);
        },
        [this](Result<ProcessSnapshot> result) {
            refresh_->setEnabled(true);
            if (!result) {
                status_->setText(
                    tr("No snapshot: %1").arg(QString::fromStdString(result.error().message)));
                copy_->setEnabled(snapshot_.has_value());
                emit finished(false);
                return;
            }
            snapshot_ = std::move(*result);
            fillSnapshotTree(tree_, *snapshot_);
            status_->setText(tr("Python %1%2: %3 threads, read without stopping the program. "
                                "Unfold a frame for its variables.")
                                 .arg(QString::fromStdString(snapshot_->pythonVersion))
                                 .arg(snapshot_->freeThreaded ? tr(" free-threaded") : QString())
                                 .arg(snapshot_->threads.size()));
            copy_->setEnabled(true);
            emit finished(true);
        });
}

void SnapshotDialog::copyText() {
    if (snapshot_)
        QApplication::clipboard()->setText(QString::fromStdString(snapshotText(*snapshot_)));
}

} // namespace gilscope::ui
