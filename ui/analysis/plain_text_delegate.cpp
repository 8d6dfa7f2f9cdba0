#include "ui/analysis/plain_text_delegate.h"

#include <QApplication>
#include <QPainter>

namespace gilscope::ui {

void PlainTextDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                              const QModelIndex& index) const {
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QWidget* widget = opt.widget;
    QStyle* style = widget ? widget->style() : QApplication::style();
    // What CE_ItemViewItem draws for a cell without icon or check box, less its text
    // layout (which shapes the text twice, to size it and to draw it).
    style->drawPrimitive(QStyle::PE_PanelItemViewItem, &opt, painter, widget);
    if (opt.state & QStyle::State_HasFocus) {
        QStyleOptionFocusRect focus;
        focus.QStyleOption::operator=(opt);
        focus.rect = opt.rect;
        focus.state |= QStyle::State_KeyboardFocusChange | QStyle::State_Item;
        focus.backgroundColor = opt.palette.color(
            (opt.state & QStyle::State_Selected) ? QPalette::Highlight : QPalette::Window);
        style->drawPrimitive(QStyle::PE_FrameFocusRect, &focus, painter, widget);
    }
    if (opt.text.isEmpty()) return;
    const int margin = style->pixelMetric(QStyle::PM_FocusFrameHMargin, nullptr, widget) + 1;
    const QRect r = opt.rect.adjusted(margin, 0, -margin, 0);
    const QPalette::ColorGroup group = !(opt.state & QStyle::State_Enabled) ? QPalette::Disabled
                                       : (opt.state & QStyle::State_Active) ? QPalette::Normal
                                                                            : QPalette::Inactive;
    painter->save();
    painter->setFont(opt.font);
    painter->setPen(opt.palette.color(
        group, (opt.state & QStyle::State_Selected) ? QPalette::HighlightedText : QPalette::Text));
    // Short texts (the figures) surely fit: measure only the ones that might not.
    const QFontMetrics& fm = opt.fontMetrics;
    const bool fits = qsizetype(r.width()) >= opt.text.size() * fm.maxWidth() ||
                      fm.horizontalAdvance(opt.text) <= r.width();
    painter->drawText(r, int(opt.displayAlignment) | Qt::TextSingleLine,
                      fits ? opt.text : fm.elidedText(opt.text, Qt::ElideRight, r.width()));
    painter->restore();
}

} // namespace gilscope::ui
