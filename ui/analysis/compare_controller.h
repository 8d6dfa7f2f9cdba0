#pragma once

#include "core/analysis/profile_diff.h"
#include "ui/analysis/analysis_result.h"

#include <QObject>
#include <QString>

#include <memory>
#include <vector>

namespace gilscope {
class ProfileModel;
}

namespace gilscope::ui {

class AnalysisController;
class JobRunner;

// The baseline side of File › Compare with…, filtered as the current side is: the same
// state and threads, and the same time range when the baseline's times overlap it (two
// recordings rarely share a clock range: then the baseline counts all its samples).
struct Comparison {
    QString baselinePath;
    ShareTable baseline;
    bool rangeApplied = false;   // the current time range also filtered the baseline
    bool threadsApplied = false; // the selected threads were in the baseline too
    QString refusal;             // non-empty: the two cannot compare under this filter
};
using ComparisonPtr = std::shared_ptr<const Comparison>;

// Loads a baseline .bin (with a progress dialog) and re-filters it off the GUI thread
// whenever the analysis filter changes, emitting comparisonChanged (null once cleared).
class CompareController : public QObject {
    Q_OBJECT
public:
    CompareController(AnalysisController* analysis, QWidget* dialogParent,
                      QObject* parent = nullptr);
    ~CompareController() override;

    void loadBaseline(const QString& path);
    void clear();
    bool active() const { return baseline_ != nullptr; }
    ComparisonPtr comparison() const { return comparison_; }

signals:
    void comparisonChanged(gilscope::ui::ComparisonPtr comparison);
    void loadFailed(const QString& message);

private:
    struct Baseline {
        QString path;
        std::shared_ptr<ProfileModel> model;
        std::optional<int> mode;
        uint64_t originUs = 0, lastUs = 0;
        std::vector<uint64_t> threads;
    };
    void recompute();
    void onResult(const AnalysisResultPtr& result);

    AnalysisController* analysis_;
    JobRunner* loader_;  // with a progress dialog
    JobRunner* queries_; // without one; a newer filter supersedes an older query
    std::shared_ptr<const Baseline> baseline_;
    ComparisonPtr comparison_;
    int currentMode_ = -1; // of the recording the views show, as last checked
};

} // namespace gilscope::ui

Q_DECLARE_METATYPE(gilscope::ui::ComparisonPtr)
