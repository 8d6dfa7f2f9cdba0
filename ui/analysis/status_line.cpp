#include "ui/analysis/status_line.h"

#include <QPainter>
#include <QStyle>

namespace gilscope::ui {

StatusLine::StatusLine(QWidget* parent) : QWidget(parent) {
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
}

void StatusLine::setText(const QString& text) {
    if (text == text_) return;
    text_ = text;
    setToolTip(text);
    update();
}

void StatusLine::setAlignment(Qt::Alignment alignment) {
    alignment_ = alignment;
    update();
}

QSize StatusLine::sizeHint() const {
    // Room for a typical summary; the layout gives the rest of the row when there is some.
    return {fontMetrics().averageCharWidth() * 60, fontMetrics().height()};
}

QSize StatusLine::minimumSizeHint() const {
    return {0, fontMetrics().height()}; // elided to whatever room is left, down to nothing
}

void StatusLine::paintEvent(QPaintEvent*) {
    if (text_.isEmpty()) return;
    QPainter p(this);
    p.setPen(palette().color(QPalette::WindowText));
    const QString shown = fontMetrics().elidedText(text_, Qt::ElideMiddle, width());
    p.drawText(rect(), int(alignment_) | Qt::TextSingleLine, shown);
}

} // namespace gilscope::ui
