#pragma once

#include "core/remote/process_scanner.h"

#include <QFutureWatcher>
#include <QWidget>

#include <optional>
#include <vector>

class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class QTimer;

namespace gilscope::ui {

class ProcessTableModel;

// Lists the Python processes on this machine, rescanned in the background every two
// seconds and merged into the table without losing the selection; a filter box
// narrows the rows by any column.
class ProcessPicker : public QWidget {
    Q_OBJECT
public:
    explicit ProcessPicker(QWidget* parent = nullptr);
    ~ProcessPicker() override;

    // The selected process as of the last scan, if any.
    std::optional<PythonProcessInfo> currentProcess() const;
    bool selectPid(int pid); // selects the row of pid; false if it is not listed

    void refreshNow();            // starts a scan unless one is running
    void setAutoRefresh(bool on); // paused while recording, to leave the CPU to the sampler
    ProcessTableModel* model() const { return model_; }
    QTableView* view() const { return view_; }

signals:
    void currentProcessChanged();
    void scanFinished();

private:
    void applyScan();

    ProcessTableModel* model_;
    QSortFilterProxyModel* proxy_;
    QLineEdit* filter_;
    QTableView* view_;
    QTimer* timer_;
    QFutureWatcher<std::vector<PythonProcessInfo>> watcher_;
};

} // namespace gilscope::ui
