#pragma once

#include "core/snapshot/process_snapshot.h"

#include <QDialog>

#include <optional>

class QLabel;
class QPushButton;
class QTreeWidget;

namespace gilscope::ui {

class JobRunner;

// The window's Snapshot (File › Dump all threads…): every thread of one process with its
// frames, source lines and variables, as `gilscope dump -a --locals` prints them, read on
// a background job without stopping the program. Works on any process the window may
// attach to, recording or not. Copy puts the dump's text on the clipboard; Refresh takes
// a new one.
class SnapshotDialog : public QDialog {
    Q_OBJECT
public:
    SnapshotDialog(int pid, const QString& processName, QWidget* parent = nullptr);
    // A process the window records: read through the recording's door, so that a pid another
    // process took after it ended is never read.
    SnapshotDialog(std::shared_ptr<const target::AttachedProcess> door, const QString& processName,
                   QWidget* parent = nullptr);

    // The last snapshot shown, if any (tests).
    const std::optional<ProcessSnapshot>& snapshot() const { return snapshot_; }
    QTreeWidget* tree() const { return tree_; }

public slots:
    void refresh();
    void copyText();

signals:
    // A snapshot was shown, or its error.
    void finished(bool ok);

private:
    SnapshotDialog(int pid, std::shared_ptr<const target::AttachedProcess> door,
                   const QString& processName, QWidget* parent);
    int pid_;
    std::shared_ptr<const target::AttachedProcess> door_;
    JobRunner* job_;
    QTreeWidget* tree_;
    QLabel* status_;
    QPushButton* copy_;
    QPushButton* refresh_;
    std::optional<ProcessSnapshot> snapshot_;
};

} // namespace gilscope::ui
