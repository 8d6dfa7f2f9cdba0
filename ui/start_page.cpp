#include "ui/start_page.h"

#include "ui/process_picker.h"
#include "ui/recent_files.h"
#include "ui/window_actions.h"

#include <QAction>
#include <QFileInfo>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QToolButton>
#include <QVBoxLayout>

namespace gilscope::ui {

namespace {

QToolButton* actionButton(QAction* action, QWidget* parent) {
    auto* b = new QToolButton(parent);
    b->setDefaultAction(action);
    b->setToolButtonStyle(Qt::ToolButtonTextOnly);
    b->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    b->setMinimumHeight(b->fontMetrics().height() * 2);
    return b;
}

} // namespace

StartPage::StartPage(const WindowActions& actions, RecentFiles* recent, QWidget* parent)
    : QWidget(parent), picker_(new ProcessPicker(this)), recent_(recent) {
    setObjectName(QStringLiteral("startPage"));
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 0, 0, 0);
    auto* processes = new QGroupBox(tr("Python processes"), this);
    auto* processLayout = new QVBoxLayout(processes);
    processLayout->addWidget(picker_);
    row->addWidget(processes, 1);

    auto* side = new QWidget(this);
    side->setFixedWidth(fontMetrics().averageCharWidth() * 36);
    auto* column = new QVBoxLayout(side);
    column->setContentsMargins(0, 8, 0, 0);
    column->addWidget(actionButton(actions.record, side));
    column->addWidget(actionButton(actions.launch, side));
    column->addWidget(actionButton(actions.open, side));
    back_ = actionButton(actions.page, side);
    back_->setObjectName(QStringLiteral("backToRecording"));
    column->addWidget(back_);
    column->addSpacing(12);
    column->addWidget(new QLabel(tr("Recent files"), side));
    recentList_ = new QListWidget(side);
    recentList_->setObjectName(QStringLiteral("recentList"));
    connect(recentList_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
        const QString path = item->data(Qt::UserRole).toString();
        if (!path.isEmpty()) emit recent_->openRequested(path);
    });
    column->addWidget(recentList_, 1);
    row->addWidget(side);
    connect(recent_, &RecentFiles::changed, this, &StartPage::showRecentFiles);
    showRecentFiles();
}

void StartPage::setBackVisible(bool visible) {
    back_->setVisible(visible);
}

void StartPage::showRecentFiles() {
    recentList_->clear();
    const QStringList files = recent_->files();
    for (const QString& path : files) {
        auto* item = new QListWidgetItem(QFileInfo(path).fileName(), recentList_);
        item->setToolTip(path);
        item->setData(Qt::UserRole, path);
    }
    if (files.isEmpty())
        (new QListWidgetItem(tr("None yet: recordings you open appear here"), recentList_))
            ->setFlags(Qt::NoItemFlags);
}

} // namespace gilscope::ui
