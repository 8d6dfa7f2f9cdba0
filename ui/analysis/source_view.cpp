#include "ui/analysis/source_view.h"

#include "core/gecko/opcode_names.h"
#include "core/heatmap/source_text.h"
#include "core/util/file_name.h"

#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QTableWidget>
#include <QVBoxLayout>

#include <set>

namespace gilscope::ui {

SourceView::SourceView(QWidget* parent)
    : QWidget(parent), status_(new QLabel(this)), table_(new QTableWidget(this)) {
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    status_->setObjectName(QStringLiteral("sourceStatus"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    table_->setObjectName(QStringLiteral("sourceTable"));
    table_->setColumnCount(3);
    table_->setHorizontalHeaderLabels({tr("Line"), tr("Samples"), tr("Source")});
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setShowGrid(false);
    table_->setWordWrap(false);
    QFont mono(QStringLiteral("monospace"));
    mono.setStyleHint(QFont::Monospace);
    table_->setFont(mono);
    table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 2);
    layout->addWidget(status_);
    layout->addWidget(table_, 1);
    // The user scrolled: their place stays.
    connect(table_->verticalScrollBar(), &QScrollBar::actionTriggered, this,
            [this] { focusPending_ = false; });
    clear();
}

int SourceView::readableWidth() const {
    const QFontMetrics m = table_->fontMetrics();
    return m.horizontalAdvance(QStringLiteral("00000  100.0%  ")) +
           m.horizontalAdvance(QLatin1Char('x')) * 80;
}

int SourceView::firstVisibleLine() const {
    return table_->rowAt(0) + 1;
}

void SourceView::scrollToFocus() {
    if (focusLine_ < 1 || focusLine_ > table_->rowCount()) return;
    // Rows just added: their scroll range is only set by the view's delayed layout, and a
    // scroll before it is clamped to the top.
    table_->doItemsLayout();
    table_->scrollToItem(table_->item(focusLine_ - 1, 0), QAbstractItemView::PositionAtCenter);
    // Centred at a real size: done (later resizes keep the user's place).
    if (table_->viewport()->height() > table_->verticalHeader()->defaultSectionSize() * 3 &&
        isVisible())
        focusPending_ = false;
}

void SourceView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    if (focusPending_) scrollToFocus();
}

void SourceView::showEvent(QShowEvent* event) {
    QWidget::showEvent(event);
    if (focusPending_) scrollToFocus();
}

QString SourceView::status() const {
    return status_->text();
}

void SourceView::clear() {
    table_->setRowCount(0);
    shownHeat_.clear();
    shownName_.clear();
    shownFile_.clear();
    hottestLine_ = -1;
    focusLine_ = 0;
    focusPending_ = false;
    status_->setText(tr("Select a function to see its source with samples per line."));
}

void SourceView::showFunction(const AnalysisResultPtr& result, uint32_t func,
                              heatmap::SourceCache& sources) {
    // The same function again (a live update, another filter): only the heat column
    // changes, and where the user scrolled stays.
    const bool sameFunction = result && result->snapshot &&
                              func < result->snapshot->functions.size() &&
                              result->snapshot->functions[func].name == shownName_ &&
                              result->snapshot->functions[func].file == shownFile_ &&
                              &sources == shownSources_ && table_->rowCount() > 0;
    if (sameFunction) {
        applyHeat(*result->snapshot, func);
        return;
    }
    shownName_.clear();
    shownFile_.clear();
    table_->setRowCount(0);
    shownHeat_.clear();
    hottestLine_ = -1;
    if (!result || !result->snapshot || func >= result->snapshot->functions.size()) return clear();
    const ProfileSnapshot& s = *result->snapshot;
    const std::string& file = s.functions[func].file;
    const QString name = functionName(s, func);
    if (s.functions[func].native) { // --native-stacks: its "file" is its library
        status_->setText(tr("%1 is native code in %2 (%3): no source to show.")
                             .arg(name, QString::fromStdString(std::string(fileName(file))),
                                  QString::fromStdString(file)));
        return;
    }
    const heatmap::SourceText text = sources.get(file);
    if (!text.ok) {
        status_->setText(tr("No source for %1: %2.").arg(name, QString::fromStdString(text.why)));
        return;
    }
    const QString from = QString::fromStdString(text.readFrom);
    const QList<QByteArray> lines = QByteArray::fromStdString(text.bytes).split('\n');
    table_->setRowCount(int(lines.size()));
    shownHeat_.assign(size_t(lines.size()), 0);
    for (int i = 0; i < lines.size(); ++i) {
        auto* num = new QTableWidgetItem(QString::number(i + 1));
        num->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        num->setForeground(palette().color(QPalette::PlaceholderText));
        auto* samples = new QTableWidgetItem;
        samples->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
        auto* code = new QTableWidgetItem(
            QString::fromUtf8(lines[i]).replace(QLatin1Char('\t'), QStringLiteral("    ")));
        table_->setItem(i, 0, num);
        table_->setItem(i, 1, samples);
        table_->setItem(i, 2, code);
    }
    table_->resizeColumnToContents(0);
    table_->setColumnWidth(1, table_->fontMetrics().horizontalAdvance(QStringLiteral("100.0%  ")));
    status_->setText(tr("%1 — %2").arg(name, from));
    shownName_ = s.functions[func].name;
    shownFile_ = file;
    shownSources_ = &sources;
    applyHeat(s, func);
    focusLine_ = hottestLine_ > 0 ? hottestLine_ : std::max(1, s.functions[func].firstLine);
    focusPending_ = true;
    scrollToFocus();
}

void SourceView::applyHeat(const ProfileSnapshot& s, uint32_t func) {
    const auto heat = fileLineHeat(s, s.functions[func].file);
    // The selected function's hottest line, not another function's.
    std::set<int32_t> funcLines;
    for (const LineKey& k : s.lines)
        if (k.func == func) funcLines.insert(k.line);
    uint64_t maxTotal = 1;
    for (const FileLineHeat& h : heat)
        maxTotal = std::max(maxTotal, h.total);
    const bool scaleMoved = maxTotal != shownMax_ || s.matchedSamples != shownMatched_;
    shownMax_ = maxTotal;
    shownMatched_ = s.matchedSamples;
    std::vector<uint64_t> now(shownHeat_.size(), 0);
    std::vector<uint64_t> own(shownHeat_.size(), 0);
    std::vector<QString> instructions(shownHeat_.size()); // --opcodes: the own split
    uint64_t best = 0;
    hottestLine_ = -1;
    for (const FileLineHeat& h : heat) {
        if (h.line < 1 || size_t(h.line) > now.size()) continue;
        now[size_t(h.line - 1)] = h.total;
        own[size_t(h.line - 1)] = h.own;
        for (const auto& [opcode, count] : h.opcodes)
            instructions[size_t(h.line - 1)] +=
                QStringLiteral("\n  %1  %2 (%3%)")
                    .arg(QString::fromStdString(formatOpcode(opcode, s.pythonMinor)))
                    .arg(count)
                    .arg(100.0 * double(count) / double(std::max<uint64_t>(h.own, 1)), 0, 'f', 1);
        if (h.total > best && funcLines.count(h.line)) {
            best = h.total;
            hottestLine_ = h.line;
        }
    }
    // Only the cells whose figure (or the scale they are shaded by) moved are touched.
    for (size_t i = 0; i < now.size(); ++i) {
        if (now[i] == shownHeat_[i] && (!scaleMoved || now[i] == 0)) continue;
        QTableWidgetItem* samples = table_->item(int(i), 1);
        if (!samples) continue;
        if (now[i] == 0) {
            samples->setText({});
            samples->setToolTip({});
            samples->setBackground({});
        } else {
            const double share = 100.0 * now[i] / std::max<uint64_t>(s.matchedSamples, 1);
            samples->setText(QStringLiteral("%1%").arg(share, 0, 'f', 1));
            QString tip = tr("%1 samples with this line on the stack, %2 with it executing")
                              .arg(now[i])
                              .arg(own[i]);
            // Which instruction ran: "LOAD_ATTR" where a "LOAD_ATTR_INSTANCE_VALUE" was
            // hoped for says the load never specialised.
            if (!instructions[i].isEmpty()) tip += tr("\nby instruction:") + instructions[i];
            samples->setToolTip(tip);
            const int alpha = 40 + int(200.0 * double(now[i]) / double(maxTotal));
            samples->setBackground(QColor(230, 60, 30, alpha));
        }
    }
    shownHeat_ = std::move(now);
}

} // namespace gilscope::ui
