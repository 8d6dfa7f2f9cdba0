#pragma once

#include "ui/analysis/analysis_result.h"

#include <QAbstractItemModel>

#include <vector>

namespace gilscope::ui {

// A top-down or bottom-up CallTree as a tree model: function, total %, self %, total and
// self samples, file:line. Node 0 (the root) is not shown; its children are the top rows.
// Rows are the model's own nodes, keyed by their path of functions, so a live update
// changes figures and inserts new paths in place: what the user expanded, selected or
// scrolled to stays.
class CallTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { Name, TotalPct, SelfPct, Total, Self, Location, ColumnCount };
    enum class Kind { TopDown, BottomUp };
    explicit CallTreeModel(Kind kind, QObject* parent = nullptr);

    // Within one recording (same modelSerial), when every path shown is still in the new
    // tree (a live update), updates in place; otherwise resets. Returns true when it
    // updated in place.
    bool setResult(AnalysisResultPtr result);
    const CallTree* tree() const;
    const AnalysisResultPtr& result() const { return result_; }
    uint32_t nodeOf(const QModelIndex& index) const; // in tree(); 0 for the root

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

private:
    // A row of the model: stays while the recording grows (internalId is its index).
    struct Row {
        uint32_t func = kNoFunction;
        uint32_t parent = 0;
        int row = 0;          // in its parent
        uint32_t current = 0; // its node in tree()
        std::vector<uint32_t> children;
    };
    static const CallTree* treeOf(const AnalysisResultPtr& result, Kind kind);
    uint32_t addRows(uint32_t parent, uint32_t node, const CallTree& t); // with descendants
    QModelIndex indexOfRow(uint32_t row, int column) const;
    bool updateInPlace(AnalysisResultPtr result);

    Kind kind_;
    AnalysisResultPtr result_;
    std::vector<Row> rows_; // 0: the root
    // Rows whose children someone asked for (rowCount: a proxy's mapping, a view's
    // expanded or shown row). Only their children's changes are announced: nobody holds
    // the others, and they read fresh when first asked. Thousands of dataChanged for
    // rows nobody shows cost a live update tens of milliseconds.
    mutable std::vector<bool> asked_;
};

} // namespace gilscope::ui
