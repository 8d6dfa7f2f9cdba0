#include "ui/analysis/busy_overlay.h"

#include <QEvent>
#include <QLabel>
#include <QPainter>
#include <QProgressBar>
#include <QTimer>
#include <QVBoxLayout>

namespace gilscope::ui {

BusyOverlay::BusyOverlay(QWidget* covered)
    : QWidget(covered), covered_(covered), label_(new QLabel(this)), delay_(new QTimer(this)) {
    setObjectName(QStringLiteral("busyOverlay"));
    auto* box = new QWidget(this);
    box->setAutoFillBackground(true);
    auto* inner = new QVBoxLayout(box);
    label_->setObjectName(QStringLiteral("busyText"));
    label_->setWordWrap(true);
    label_->setAlignment(Qt::AlignCenter);
    auto* bar = new QProgressBar(box);
    bar->setRange(0, 0); // busy: how long a query takes is not known in advance
    bar->setTextVisible(false);
    bar->setMaximumWidth(320);
    inner->addWidget(label_);
    inner->addWidget(bar, 0, Qt::AlignHCenter);
    auto* layout = new QVBoxLayout(this);
    layout->addStretch();
    layout->addWidget(box, 0, Qt::AlignHCenter);
    layout->addStretch();
    delay_->setSingleShot(true);
    delay_->setInterval(200);
    connect(delay_, &QTimer::timeout, this, [this] {
        if (!pending_) return;
        setGeometry(covered_->rect());
        raise();
        show();
    });
    covered_->installEventFilter(this);
    hide();
}

void BusyOverlay::start(const QString& what) {
    label_->setText(what);
    pending_ = true;
    if (isVisible()) return; // already shown: the new text says what is computed now
    if (delay_->interval() == 0) {
        setGeometry(covered_->rect());
        raise();
        show();
        return;
    }
    delay_->start();
}

void BusyOverlay::stop() {
    pending_ = false;
    delay_->stop();
    hide();
}

QString BusyOverlay::text() const {
    return label_->text();
}

void BusyOverlay::setDelayMs(int ms) {
    delay_->setInterval(ms);
}

int BusyOverlay::delayMs() const {
    return delay_->interval();
}

bool BusyOverlay::eventFilter(QObject* watched, QEvent* event) {
    if (watched == covered_ && event->type() == QEvent::Resize) setGeometry(covered_->rect());
    return QWidget::eventFilter(watched, event);
}

void BusyOverlay::paintEvent(QPaintEvent*) {
    QPainter p(this);
    QColor dim = palette().color(QPalette::Window);
    dim.setAlpha(170); // the old figures stay faintly visible, plainly not current
    p.fillRect(rect(), dim);
}

} // namespace gilscope::ui
