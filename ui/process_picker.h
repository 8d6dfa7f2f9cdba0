#pragma once

#include "core/remote/process_scanner.h"

#include <QWidget>

#include <optional>
#include <vector>

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;
class QTimer;

namespace gilscope::ui {

class JobRunner;
class ProcessTableModel;

// Lists the Python processes on this machine, rescanned in the background every two
// seconds and merged into the table; a filter box narrows the rows by any column.
//
// The selection belongs to a pid the user picked (click, keys, selectPid()): a rescan
// or the filter never moves it to another process. If the process exits or the filter
// hides it, the selection clears and selectionLost() says why. While the pointer is
// over the table no row moves: gone processes stay, struck out, and new ones are added
// below the others; the table sorts them in once the pointer leaves.
class ProcessPicker : public QWidget {
    Q_OBJECT
public:
    explicit ProcessPicker(QWidget* parent = nullptr);
    ~ProcessPicker() override;

    // The selected process as of the last scan, if any.
    std::optional<PythonProcessInfo> currentProcess() const;
    int selectedPid() const { return selectedPid_; }
    bool selectPid(int pid); // selects the row of pid; false if it is not listed
    void clearSelection();
    // Selects the first row when nothing is selected (Tab from the filter, Return in it);
    // true when a process is selected.
    bool selectFirstRow();

    // Starts a scan; asked while one runs, another follows it (the running one may
    // predate a process just started).
    void refreshNow();
    void setAutoRefresh(bool on); // paused while recording, to leave the CPU to the sampler
    bool rowsHeld() const { return pointerInside_; }
    ProcessTableModel* model() const { return model_; }
    QTableView* view() const { return view_; }
    QLineEdit* filter() const { return filter_; }

signals:
    void currentProcessChanged();
    // The selected process exited or the filter hid it; the selection is now empty.
    void selectionLost(int pid, const QString& why);
    // Double-click or Space/Enter on the selected row, or Return in the filter.
    void recordRequested(int pid);
    void scanFinished();

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    // Scans run only while the list is seen: a window showing a recording costs nothing
    // idle. Shown again, it scans at once.
    void showEvent(QShowEvent* event) override;
    void hideEvent(QHideEvent* event) override;

private:
    bool autoRefresh_ = true;
    void applyScan(Result<std::vector<PythonProcessInfo>> scan);
    void finishScan(); // scanFinished(), or the scan asked for meanwhile
    void onSelectionChanged();
    void setPointerInside(bool inside);
    bool cursorOverRows() const;
    // After the model or the filter changed rows: keep the selection on its pid.
    void reconcileSelection(const QString& whyLost);
    void updateDetails();

    ProcessTableModel* model_;
    QSortFilterProxyModel* proxy_;
    QLineEdit* filter_;
    QTableView* view_;
    QLabel* details_;
    QTimer* timer_;
    QTimer* holdCheck_;        // Leave can be missed (a popup, a dialog): re-check the cursor
    JobRunner* scans_;         // one scan at a time, on a worker thread
    QString scanError_;        // why the last scan failed, shown under the table
    bool rescanAsked_ = false; // refreshNow() while a scan ran
    int selectedPid_ = 0;
    QString lost_;                // why the last selection went, until the user picks again
    bool internalChange_ = false; // selection signals caused by us, not the user
    bool pointerInside_ = false;
};

} // namespace gilscope::ui
