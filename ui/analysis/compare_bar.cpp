#include "ui/analysis/compare_bar.h"

#include "ui/analysis/analysis_controller.h"
#include "ui/analysis/analysis_panel.h"
#include "ui/analysis/flame_graph_widget.h"
#include "ui/analysis/top_functions_model.h"
#include "ui/window_dialogs.h"

#include <QAction>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLinearGradient>
#include <QPainter>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

namespace gilscope::ui {

namespace {

// The flame graph's change colours from -kFullChange to +kFullChange points.
class ChangeLegend : public QWidget {
public:
    explicit ChangeLegend(QWidget* parent) : QWidget(parent) {
        setToolTip(tr("Frame colour: change of its share of the samples against the baseline"));
        setFixedSize(260, fontMetrics().height() + 6);
    }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter p(this);
        const QString left = tr("−%1 pts").arg(FlameGraphWidget::kFullChange);
        const QString right = tr("+%1 pts").arg(FlameGraphWidget::kFullChange);
        const int lw = fontMetrics().horizontalAdvance(left) + 4;
        const int rw = fontMetrics().horizontalAdvance(right) + 4;
        const QRect bar(lw, 2, width() - lw - rw, height() - 4);
        for (int x = 0; x < bar.width(); ++x) {
            const double points =
                (2.0 * x / std::max(bar.width() - 1, 1) - 1.0) * FlameGraphWidget::kFullChange;
            p.fillRect(QRect(bar.left() + x, bar.top(), 1, bar.height()),
                       FlameGraphWidget::changeColor(points));
        }
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(QRect(0, 0, lw, height()), Qt::AlignVCenter | Qt::AlignLeft, left);
        p.drawText(QRect(width() - rw, 0, rw, height()), Qt::AlignVCenter | Qt::AlignRight, right);
    }
};

} // namespace

CompareBar::CompareBar(QWidget* dialogParent)
    : QWidget(dialogParent), dialogParent_(dialogParent),
      compareAction_(new QAction(tr("Compare with…"), this)),
      clearAction_(new QAction(tr("Clear comparison"), this)), note_(new QLabel(this)) {
    setObjectName(QStringLiteral("compareBar"));
    compareAction_->setToolTip(
        tr("Compare the shown recording with a baseline .bin: the flame graph colours frames "
           "by change of share, top functions gains Baseline % and Δ"));
    compareAction_->setEnabled(false);
    clearAction_->setEnabled(false);
    note_->setWordWrap(true);
    note_->setTextFormat(Qt::PlainText);
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(4, 2, 4, 2);
    row->addWidget(note_, 1);
    row->addWidget(new ChangeLegend(this));
    auto* clearButton = new QPushButton(tr("Clear"), this);
    row->addWidget(clearButton);
    hide();

    askBaselinePath = [dialogParent] {
        return QFileDialog::getOpenFileName(
            dialogParent, tr("Compare with baseline"), QString(),
            tr("CPython sampling recordings (*.bin);;All files (*)"));
    };
    showError = [dialogParent](const QString& title, const QString& text) {
        showMessageBox(dialogParent, true, title, text);
    };
    connect(compareAction_, &QAction::triggered, this, [this] {
        if (!panel_->controller()->hasModel()) {
            showError(tr("Compare with"), tr("Open or record a recording first: the "
                                             "comparison is of the shown recording."));
            return;
        }
        const QString path = askBaselinePath();
        if (!path.isEmpty()) compareWith(path);
    });
    connect(clearAction_, &QAction::triggered, this, &CompareBar::clear);
    connect(clearButton, &QPushButton::clicked, this, &CompareBar::clear);
}

void CompareBar::attach(AnalysisPanel* panel) {
    panel_ = panel;
    controller_ = new CompareController(panel->controller(), dialogParent_, this);
    // Above the views, under the filter toolbar.
    setParent(panel);
    if (auto* layout = qobject_cast<QVBoxLayout*>(panel->layout())) layout->insertWidget(1, this);
    connect(controller_, &CompareController::comparisonChanged, this, &CompareBar::onComparison);
    connect(controller_, &CompareController::loadFailed, this,
            [this](const QString& message) { showError(tr("Compare with"), message); });
    compareAction_->setEnabled(true);
    onComparison(nullptr); // the Baseline % and Δ columns start hidden
}

void CompareBar::compareWith(const QString& path) {
    if (controller_) controller_->loadBaseline(path);
}

void CompareBar::clear() {
    if (controller_) controller_->clear();
}

void CompareBar::onComparison(const ComparisonPtr& c) {
    panel_->topModel()->setComparison(c);
    panel_->flameGraph()->setComparison(c);
    const bool shown = c && c->refusal.isEmpty();
    panel_->topView()->setColumnHidden(TopFunctionsModel::BaselinePct, !shown);
    panel_->topView()->setColumnHidden(TopFunctionsModel::Delta, !shown);
    clearAction_->setEnabled(c != nullptr);
    setVisible(c != nullptr);
    if (!c) return;
    const QString name = QFileInfo(c->baselinePath).fileName();
    if (!c->refusal.isEmpty()) {
        note_->setText(tr("Not compared with %1 under this filter: %2.").arg(name, c->refusal));
        return;
    }
    QString text = tr("Compared with %1 (%2 samples kept): colours and Δ are the change of "
                      "share, in points.")
                       .arg(name)
                       .arg(c->baseline.samples);
    const ProfileFilter& f = panel_->controller()->filter();
    if (f.hasRange)
        text += c->rangeApplied ? tr(" The time range applies to both.")
                                : tr(" The time range applies to this recording only: the "
                                     "baseline's times do not overlap it, so it counts all "
                                     "its samples.");
    if (!f.threads.empty())
        text += c->threadsApplied ? tr(" The thread filter applies to both.")
                                  : tr(" The thread filter applies to this recording only: "
                                       "the baseline has other threads.");
    note_->setText(text);
}

} // namespace gilscope::ui
