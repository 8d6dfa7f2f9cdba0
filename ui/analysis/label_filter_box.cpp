#include "ui/analysis/label_filter_box.h"

#include "core/sample/sample_label.h"
#include "ui/analysis/analysis_controller.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>

namespace gilscope::ui {

namespace {

// The label a transform filters by ("KEY=VALUE"), or empty.
std::string labelOf(const CallTransform& t) {
    if (t.kind != TransformKind::FocusFunction) return {};
    const auto label = labelOfFrame(t.function.file, t.function.name);
    return label ? std::string(label->key) + "=" + std::string(label->value) : std::string();
}

} // namespace

LabelFilterBox::LabelFilterBox(AnalysisController* controller, QWidget* parent)
    : QWidget(parent), controller_(controller) {
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    title_ = new QLabel(tr("Label"), this);
    box_ = new QComboBox(this);
    box_->setObjectName(QStringLiteral("labelFilter"));
    box_->setToolTip(tr("Count only the samples with this label (--label-from), in every view: "
                        "one route's, tenant's or span's functions"));
    box_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box_->setMinimumContentsLength(14);
    row->addWidget(title_);
    row->addWidget(box_);
    rebuild();
    setVisible(false);
    connect(box_, &QComboBox::currentIndexChanged, this, [this] {
        const QString chosen = box_->currentData().toString();
        const int eq = chosen.indexOf('=');
        controller_->setLabelFilter(eq <= 0 ? std::string()
                                            : labelFrameName(chosen.left(eq).toStdString(),
                                                             chosen.mid(eq + 1).toStdString()));
    });
    connect(controller_, &AnalysisController::resultReady, this, &LabelFilterBox::onResult);
    connect(controller_, &AnalysisController::filterChanged, this, &LabelFilterBox::showChosen);
    connect(controller_, &AnalysisController::cleared, this, [this] {
        labels_.clear();
        modelSerial_ = UINT64_MAX;
        scanned_ = 0;
        rebuild();
        setVisible(false);
    });
}

void LabelFilterBox::onResult(const AnalysisResultPtr& result) {
    if (!result || !result->snapshot) return;
    if (result->modelSerial != modelSerial_) {
        modelSerial_ = result->modelSerial;
        labels_.clear();
        scanned_ = 0;
    }
    // Function ids keep their meaning within a model: only the new ones are looked at.
    const auto& functions = result->snapshot->functions;
    const size_t before = labels_.size();
    for (; scanned_ < functions.size() && labels_.size() < kMaxValues; ++scanned_) {
        const FunctionInfo& f = functions[scanned_];
        const auto label = labelOfFrame(f.file, f.name);
        if (label && !isPerRequestIdLabel(label->key))
            labels_.insert(std::string(label->key) + "=" + std::string(label->value));
    }
    if (labels_.size() != before) rebuild();
    setVisible(!labels_.empty());
}

void LabelFilterBox::rebuild() {
    const QSignalBlocker quiet(box_);
    box_->clear();
    box_->addItem(tr("All samples"), QString());
    for (const std::string& l : labels_) {
        const QString text = QString::fromStdString(l);
        box_->addItem(text, text);
    }
    showChosen();
}

void LabelFilterBox::showChosen() {
    std::string chosen;
    for (const CallTransform& t : controller_->transforms())
        if (const std::string l = labelOf(t); !l.empty()) chosen = l;
    const QSignalBlocker quiet(box_);
    const int at = box_->findData(QString::fromStdString(chosen));
    box_->setCurrentIndex(at >= 0 ? at : 0);
}

} // namespace gilscope::ui
