#pragma once

#include "core/heatmap/source_text.h"
#include "ui/analysis/analysis_result.h"

#include <QWidget>

#include <string>
#include <vector>

class QLabel;
class QTableWidget;

namespace gilscope::ui {

// The selected function's file with a heat column: samples per line (own / total, as
// the filter keeps them). A live recording's file is read through the target's door (in
// its root, as its user may read it), an opened recording's from this machine's disk.
// When the file cannot be read, it says so and why.
class SourceView : public QWidget {
    Q_OBJECT
public:
    explicit SourceView(QWidget* parent = nullptr);

    // Its file comes from `sources` (the recorded process's door, or this machine's disk
    // for a recording opened from a file).
    void showFunction(const AnalysisResultPtr& result, uint32_t func,
                      heatmap::SourceCache& sources);
    void clear();

    QString status() const;
    QTableWidget* table() const { return table_; }
    int hottestLine() const { return hottestLine_; }
    // Wide enough to read ~80 columns of code beside the line and samples columns (not
    // its size hint: that would widen a fresh window past a small screen).
    int readableWidth() const;
    // The first line shown (for tests): the hottest line sits in the middle.
    int firstVisibleLine() const;

protected:
    void resizeEvent(QResizeEvent* event) override;
    void showEvent(QShowEvent* event) override;

private:
    // Centres the function's hottest line (else its first) until the user scrolls: a
    // table not laid out yet (the first file shown) cannot scroll, so it is done again
    // once it has a size.
    void scrollToFocus();
    // The samples column for func's file; touches only the cells whose figure moved.
    void applyHeat(const ProfileSnapshot& s, uint32_t func);

    QLabel* status_;
    QTableWidget* table_;
    int hottestLine_ = -1;
    int focusLine_ = 0;                 // the line to centre
    bool focusPending_ = false;         // until the user scrolls, or it was centred at a real size
    std::string shownName_, shownFile_; // what the table shows now
    const heatmap::SourceCache* shownSources_ = nullptr;
    std::vector<uint64_t> shownHeat_; // per line: the total shown now
    uint64_t shownMax_ = 0, shownMatched_ = 0;
};

} // namespace gilscope::ui
