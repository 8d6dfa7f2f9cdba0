#pragma once

#include "ui/analysis/analysis_result.h"

#include <QAbstractItemModel>

#include <vector>

namespace gilscope::ui {

// A top-down or bottom-up CallTree as a tree model: function, total %, self %, total and
// self samples, file:line. Node 0 (the root) is not shown; its children are the top rows.
// A row is the tree's node itself (its internalId): nothing is copied per row, and a
// bottom-up tree's callers are found only when a row is expanded. A new result of the
// same recording (a live update, another filter) moves every index somebody holds (an
// expanded row, the selection, a proxy's mapping) to the node with the same path of
// functions: what the user expanded, selected or scrolled to stays.
class CallTreeModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Column { Name, TotalPct, SelfPct, Total, Self, Location, ColumnCount };
    enum class Kind { TopDown, BottomUp };
    explicit CallTreeModel(Kind kind, QObject* parent = nullptr);

    // Within one recording (same modelSerial), keeps what is held by path (a layout
    // change); otherwise resets. Returns true when it kept it.
    bool setResult(AnalysisResultPtr result);
    const CallTree* tree() const;
    const AnalysisResultPtr& result() const { return result_; }
    uint32_t nodeOf(const QModelIndex& index) const; // in tree(); 0 for the root

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    bool hasChildren(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role) const override;
    QVariant headerData(int section, Qt::Orientation o, int role) const override;

private:
    static const CallTree* treeOf(const AnalysisResultPtr& result, Kind kind);
    QModelIndex indexOfNode(uint32_t node, int column) const;

    Kind kind_;
    AnalysisResultPtr result_;
};

} // namespace gilscope::ui
