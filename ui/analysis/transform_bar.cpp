#include "ui/analysis/transform_bar.h"

#include "ui/analysis/analysis_controller.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace gilscope::ui {

TransformBar::TransformBar(AnalysisController* controller, QWidget* parent)
    : QWidget(parent), controller_(controller), row_(new QHBoxLayout(this)) {
    setObjectName(QStringLiteral("transformBar"));
    row_->setContentsMargins(4, 0, 4, 0);
    row_->setSpacing(2);
    connect(controller_, &AnalysisController::filterChanged, this, &TransformBar::rebuild);
    rebuild();
}

QStringList TransformBar::labels() const {
    QStringList out;
    for (auto* b : findChildren<QToolButton*>(QStringLiteral("transformCrumb")))
        out << b->property("label").toString();
    return out;
}

void TransformBar::rebuild() {
    while (QLayoutItem* item = row_->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    const TransformStack& stack = controller_->transforms();
    setVisible(!stack.empty());
    if (stack.empty()) return;
    auto* all = new QToolButton(this);
    all->setObjectName(QStringLiteral("transformClear"));
    all->setText(tr("Whole tree"));
    all->setToolTip(tr("Remove every transform"));
    all->setAutoRaise(true);
    connect(all, &QToolButton::clicked, controller_, &AnalysisController::clearTransforms);
    row_->addWidget(all);
    for (size_t i = 0; i < stack.size(); ++i) {
        row_->addWidget(new QLabel(QStringLiteral("›"), this));
        const QString label = QString::fromStdString(transformLabel(stack[i]));
        auto* crumb = new QToolButton(this);
        crumb->setObjectName(QStringLiteral("transformCrumb"));
        crumb->setProperty("label", label);
        crumb->setText(label + QStringLiteral("  ✕"));
        crumb->setToolTip(tr("Remove this transform (back undoes it)"));
        crumb->setAutoRaise(true);
        connect(crumb, &QToolButton::clicked, controller_,
                [this, i] { controller_->removeTransform(i); });
        row_->addWidget(crumb);
    }
    row_->addStretch(1);
}

} // namespace gilscope::ui
