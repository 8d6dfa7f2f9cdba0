#include "ui/analysis/plain_text_delegate.h"

#include <QApplication>
#include <QPainter>

namespace gilscope::ui {

namespace {
// Enough for every cell of a few screens of several tables; a long recording's
// changing figures would otherwise grow the cache without end.
constexpr qsizetype kMaxCachedTexts = 8192;
} // namespace

const QStaticText& PlainTextDelegate::laidOut(const QString& key, const QFont& font,
                                              const std::function<QString()>& text) const {
    if (font != font_ || texts_.size() >= kMaxCachedTexts) {
        texts_.clear();
        font_ = font;
    }
    auto it = texts_.find(key);
    if (it == texts_.end()) {
        QStaticText st(text());
        st.setTextFormat(Qt::PlainText);
        st.prepare(QTransform(), font);
        it = texts_.insert(key, st);
    }
    return *it;
}

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
    const QStaticText* st = &laidOut(opt.text, opt.font, [&] { return opt.text; });
    if (st->size().width() > r.width()) {
        // Elided to this width; kept too, under a key no cell text has.
        st = &laidOut(QString::number(r.width()) + QChar(0x1f) + opt.text, opt.font, [&] {
            return opt.fontMetrics.elidedText(opt.text, Qt::ElideRight, r.width());
        });
    }
    const QSizeF size = st->size();
    const Qt::Alignment align = QStyle::visualAlignment(opt.direction, opt.displayAlignment);
    qreal x = r.left();
    if (align & Qt::AlignRight)
        x = r.left() + r.width() - size.width();
    else if (align & Qt::AlignHCenter)
        x = r.left() + (r.width() - size.width()) / 2;
    const qreal y = r.top() + (r.height() - size.height()) / 2;
    painter->drawStaticText(QPointF(x, y), *st);
    painter->restore();
}

} // namespace gilscope::ui
