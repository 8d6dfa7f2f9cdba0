#pragma once

#include <QStyledItemDelegate>

namespace gilscope::ui {

// Paints an analysis table cell as QStyledItemDelegate does (background, selection,
// focus) but draws its one line of text with QPainter::drawText and a plain elision,
// instead of the style's general text layout (line breaking, rich options) for every
// cell. The views repaint every visible cell four times a second while recording, so
// this is most of what a live update costs the GUI thread.
class PlainTextDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
};

} // namespace gilscope::ui
