#pragma once

#include "ui/analysis/analysis_result.h"
#include "ui/analysis/compare_controller.h"

#include <QAbstractTableModel>

#include <vector>

namespace gilscope::ui {

// Roles shared by the analysis item models.
enum AnalysisRole {
    SortRole = Qt::UserRole + 1, // numbers as numbers
    FunctionRole,                // function id (uint) in the current snapshot
    FileRole,                    // the function's file path
};

// One row per function with samples: own %, total %, own and total samples, file:line.
// Percentages are of the samples the filter kept. With a comparison, Baseline % (the
// function's total share in the baseline) and Δ (total % minus that, in points); the
// view hides those two columns without one.
class TopFunctionsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, OwnPct, TotalPct, Own, Total, Location, BaselinePct, Delta, ColumnCount };
    explicit TopFunctionsModel(QObject* parent = nullptr);

    // Within one recording (same modelSerial), when every function listed is still in
    // the new result (a live update), updates in place: figures change and new functions
    // are appended, so selection, scrolling and the sort stay. Otherwise resets.
    // Returns true when it updated in place.
    bool setResult(AnalysisResultPtr result);
    const AnalysisResultPtr& result() const { return result_; }
    void setComparison(ComparisonPtr comparison);
    const ComparisonPtr& comparison() const { return comparison_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

private:
    const FunctionRow& rowAt(int row) const { return result_->functions[at_[size_t(row)]]; }
    // Baseline total % of a function (0 when the baseline never ran it); NaN without a
    // usable comparison.
    double baselinePct(uint32_t func) const;

    AnalysisResultPtr result_;
    std::vector<uint32_t> order_; // function id per row: rows keep their place
    std::vector<uint32_t> at_;    // per row: its index in result_->functions
    ComparisonPtr comparison_;
    mutable std::vector<uint64_t> keys_; // functionKey per function id, for keysSerial_
    mutable uint64_t keysSerial_ = 0;
};

} // namespace gilscope::ui
