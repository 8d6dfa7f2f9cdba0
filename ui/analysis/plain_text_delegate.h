#pragma once

#include <QFont>
#include <QHash>
#include <QStaticText>
#include <QStyledItemDelegate>

#include <functional>

namespace gilscope::ui {

// Paints an analysis table cell as QStyledItemDelegate does (background, selection,
// focus) but draws its one line of text with QPainter::drawText and a plain elision,
// instead of the style's general text layout (line breaking, rich options) for every
// cell. The views repaint every visible cell four times a second while recording, so
// this is most of what a live update costs the GUI thread. The texts are kept laid out
// (QStaticText): function names and files repeat from one repaint to the next.
class PlainTextDelegate : public QStyledItemDelegate {
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;

private:
    // The laid-out text cached under `key`, made by `text` when missing.
    const QStaticText& laidOut(const QString& key, const QFont& font,
                               const std::function<QString()>& text) const;

    mutable QHash<QString, QStaticText> texts_; // in font_, bounded (cleared when full)
    mutable QFont font_;
};

} // namespace gilscope::ui
