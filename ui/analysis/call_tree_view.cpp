#include "ui/analysis/call_tree_view.h"

#include <QStyleOptionViewItem>

namespace gilscope::ui {

void CallTreeView::drawBranches(QPainter* painter, const QRect& rect,
                                const QModelIndex& index) const {
    if (!model()->hasChildren(index)) return; // no arrow: nothing to draw at any level
    QStyleOptionViewItem opt;
    initViewItemOption(&opt);
    const int indent = indentation();
    opt.rect = isRightToLeft()
                   ? QRect(rect.left(), rect.top(), indent, rect.height())
                   : QRect(rect.right() + 1 - indent, rect.top(), indent, rect.height());
    opt.state = QStyle::State_Item | QStyle::State_Children;
    if (isEnabled()) opt.state |= QStyle::State_Enabled;
    if (hasFocus()) opt.state |= QStyle::State_Active;
    if (isExpanded(index)) opt.state |= QStyle::State_Open;
    if (selectionModel()->isSelected(index)) opt.state |= QStyle::State_Selected;
    style()->drawPrimitive(QStyle::PE_IndicatorBranch, &opt, painter, this);
}

} // namespace gilscope::ui
