#pragma once

#include "ui/analysis/analysis_result.h"

#include <QWidget>

#include <set>
#include <string>

class QComboBox;
class QLabel;

namespace gilscope::ui {

class AnalysisController;

// The filter bar's "Label" choice (--label-from): every view counts only the samples that
// carry one label value (route=/checkout), as `report --label-filter` does, by focusing on
// the label's pseudo-frame. Lists the values seen in the recording (span and trace ids
// aside: one per request, too many to choose from); hidden while there are none.
class LabelFilterBox : public QWidget {
    Q_OBJECT
public:
    explicit LabelFilterBox(AnalysisController* controller, QWidget* parent = nullptr);
    QComboBox* box() const { return box_; }

    static constexpr size_t kMaxValues = 500; // listed; a route per request is not a filter

private:
    void onResult(const AnalysisResultPtr& result);
    void showChosen(); // the combo box follows the transforms (a crumb removed, back)
    void rebuild();

    AnalysisController* controller_;
    QLabel* title_;
    QComboBox* box_;
    std::set<std::string> labels_; // "KEY=VALUE", sorted
    uint64_t modelSerial_ = UINT64_MAX;
    size_t scanned_ = 0; // functions of the model already looked at (ids are stable)
};

} // namespace gilscope::ui
