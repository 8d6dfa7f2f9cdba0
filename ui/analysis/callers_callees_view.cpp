#include "ui/analysis/callers_callees_view.h"

#include <QHeaderView>
#include <QLabel>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

namespace gilscope::ui {

namespace {

QTableWidget* makeTable(const QString& what, QWidget* parent) {
    auto* t = new QTableWidget(parent);
    t->setColumnCount(4);
    t->setHorizontalHeaderLabels(
        {what, QObject::tr("Samples"), QObject::tr("Share"), QObject::tr("File:line")});
    t->verticalHeader()->hide();
    t->horizontalHeader()->setStretchLastSection(true);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setColumnWidth(0, 240);
    return t;
}

void fill(QTableWidget* table, const ProfileSnapshot& s, const std::vector<FunctionRow>& rows,
          uint64_t of) {
    table->setRowCount(int(rows.size()));
    for (int i = 0; i < int(rows.size()); ++i) {
        const FunctionRow& r = rows[size_t(i)];
        auto* samples = new QTableWidgetItem(QString::number(r.total));
        samples->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        auto* share = new QTableWidgetItem(
            QStringLiteral("%1%").arg(100.0 * r.total / std::max<uint64_t>(of, 1), 0, 'f', 1));
        share->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        auto* name = new QTableWidgetItem(functionName(s, r.func));
        name->setData(Qt::UserRole, r.func);
        table->setItem(i, 0, name);
        table->setItem(i, 1, samples);
        table->setItem(i, 2, share);
        table->setItem(i, 3, new QTableWidgetItem(functionLocation(s, r.func)));
    }
}

} // namespace

CallersCalleesView::CallersCalleesView(QWidget* parent)
    : QWidget(parent), title_(new QLabel(this)), callers_(makeTable(tr("Caller"), this)),
      callees_(makeTable(tr("Callee"), this)) {
    callers_->setObjectName(QStringLiteral("callersTable"));
    callees_->setObjectName(QStringLiteral("calleesTable"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(callers_);
    split->addWidget(callees_);
    layout->addWidget(title_);
    layout->addWidget(split, 1);
    clear();
}

void CallersCalleesView::clear() {
    callers_->setRowCount(0);
    callees_->setRowCount(0);
    title_->setText(tr("Select a function to see its callers and callees."));
}

void CallersCalleesView::showFunction(const AnalysisResultPtr& result, uint32_t func) {
    if (!result || !result->snapshot || func >= result->snapshot->functions.size()) return clear();
    const ProfileSnapshot& s = *result->snapshot;
    const CallersCallees cc = callersAndCallees(s, func);
    title_->setText(
        tr("%1 is on the stack in %2 samples").arg(functionName(s, func)).arg(cc.total));
    fill(callers_, s, cc.callers, cc.total);
    fill(callees_, s, cc.callees, cc.total);
}

} // namespace gilscope::ui
