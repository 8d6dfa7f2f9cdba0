#pragma once

#include <QWidget>

class QLabel;
class QTimer;

namespace gilscope::ui {

// Covers a view while what it shows is being computed anew, so that an older result is
// never taken for the answer to the newer request: it dims the view and says what is
// being computed, with a progress bar. It appears only when the work outlasts a short
// delay (200 ms: a quick answer does not flash), and goes as soon as the answer is shown.
class BusyOverlay : public QWidget {
    Q_OBJECT
public:
    explicit BusyOverlay(QWidget* covered);

    void start(const QString& what); // shown after delayMs(), unless stop() came first
    void stop();
    bool pending() const { return pending_; } // started and not stopped
    QString text() const;
    void setDelayMs(int ms); // tests: 0 shows it at once
    int delayMs() const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void paintEvent(QPaintEvent* event) override;

private:
    QWidget* covered_;
    QLabel* label_;
    QTimer* delay_;
    bool pending_ = false;
};

} // namespace gilscope::ui
