#pragma once

#include <QString>
#include <QWidget>

namespace gilscope::ui {

// One line of status text that changes often (the analysis summary, four times a second
// while recording). A QLabel asks its parent's layout to run again on every new text,
// which re-measured the whole tool bar on each live update; this widget's size hint
// does not depend on its text, so a new text is only a repaint. Too long a text is
// elided in the middle and shown whole in the tooltip.
class StatusLine : public QWidget {
public:
    explicit StatusLine(QWidget* parent = nullptr);

    QString text() const { return text_; }
    void setText(const QString& text);
    void clear() { setText({}); }
    void setAlignment(Qt::Alignment alignment);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    QString text_;
    Qt::Alignment alignment_ = Qt::AlignLeft | Qt::AlignVCenter;
};

} // namespace gilscope::ui
