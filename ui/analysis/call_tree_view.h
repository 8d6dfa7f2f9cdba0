#pragma once

#include <QTreeView>

namespace gilscope::ui {

// The call tree and bottom-up views. A hot path is 20-40 levels deep, and QTreeView
// asks the style to draw a branch indicator for every ancestor level of every visible
// row (with a model parent() walk for each), though Fusion draws nothing there: only the
// row's own expand arrow. That was a tenth of a live update's repaint; this view draws
// just the arrow.
class CallTreeView : public QTreeView {
public:
    using QTreeView::QTreeView;

protected:
    void drawBranches(QPainter* painter, const QRect& rect,
                      const QModelIndex& index) const override;
};

} // namespace gilscope::ui
