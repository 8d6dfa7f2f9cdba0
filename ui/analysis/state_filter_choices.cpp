#include "ui/analysis/state_filter_choices.h"

#include "core/analysis/profile_filter.h"

#include <QComboBox>
#include <QStandardItemModel>

namespace gilscope::ui {

void markRecordedStates(QComboBox* stateBox, int mode, int pythonMinor, bool freeThreaded) {
    auto* model = qobject_cast<QStandardItemModel*>(stateBox->model());
    if (!model) return;
    for (int row = 0; row < stateBox->count(); ++row) {
        const auto state = StateFilter(stateBox->itemData(row).toInt());
        const std::string why = stateFilterUnavailable(state, mode, pythonMinor, freeThreaded);
        QStandardItem* item = model->item(row);
        // A free-threaded target's GIL states are its attached and suspended threads.
        item->setText(QString::fromUtf8(stateFilterLabel(state, freeThreaded).data(),
                                        int(stateFilterLabel(state, freeThreaded).size())));
        item->setEnabled(why.empty());
        item->setToolTip(why.empty() ? QString()
                                     : QObject::tr("This recording cannot show it: %1.")
                                           .arg(QString::fromStdString(why))
                                           .replace(QStringLiteral("`--mode all`"),
                                                    QObject::tr("recording in mode “all”")));
        if (!why.empty() && stateBox->currentIndex() == row) stateBox->setCurrentIndex(0);
    }
}

} // namespace gilscope::ui
