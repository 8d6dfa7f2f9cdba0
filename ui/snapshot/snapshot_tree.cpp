#include "ui/snapshot/snapshot_tree.h"

#include "core/snapshot/snapshot_format.h"
#include "core/util/utf8.h"

#include <QTreeWidget>

namespace gilscope::ui {

namespace {

QString display(const std::string& s) {
    return QString::fromStdString(escapeForDisplay(s));
}

QString threadTitle(const ThreadSnapshot& t, bool freeThreaded) {
    QStringList states;
    for (const std::string& s : threadStatusNames(t.status, freeThreaded))
        states << QString::fromStdString(s);
    QString title = QObject::tr("Thread %1").arg(t.threadId);
    if (t.name) title += QStringLiteral(" \"%1\"").arg(display(*t.name));
    return title + QStringLiteral(" (%1)").arg(states.join(QStringLiteral(", ")));
}

} // namespace

void fillSnapshotTree(QTreeWidget* tree, const ProcessSnapshot& snapshot) {
    tree->clear();
    for (const ThreadSnapshot& t : snapshot.threads) {
        auto* thread = new QTreeWidgetItem(tree);
        thread->setText(0, threadTitle(t, snapshot.freeThreaded));
        if (!t.waiting.empty())
            thread->setText(1, QObject::tr("waiting: %1").arg(display(t.waiting)));
        for (const FrameSnapshot& f : t.frames) {
            auto* frame = new QTreeWidgetItem(thread);
            frame->setText(
                0,
                QStringLiteral("%1 (%2:%3)").arg(display(f.function), display(f.file)).arg(f.line));
            frame->setText(1, display(f.source));
            if (f.sourceChanged)
                frame->setToolTip(1, QObject::tr("The file changed after the program started: "
                                                 "this may not be the line that runs"));
            if (!f.locals) continue;
            if (!f.locals->error.empty()) {
                auto* error = new QTreeWidgetItem(frame);
                error->setText(0, QObject::tr("<variables unreadable>"));
                error->setText(1, display(f.locals->error));
                continue;
            }
            for (const FrameVariable& v : f.locals->variables) {
                auto* var = new QTreeWidgetItem(frame);
                var->setText(0, display(v.name));
                var->setText(1, QString::fromStdString(sanitizeUtf8(v.value)));
                var->setToolTip(
                    1, QObject::tr("%1, %2").arg(QString::fromStdString(variableKindName(v.kind)),
                                                 v.type.empty() ? QObject::tr("unreadable")
                                                                : QString::fromStdString(v.type)));
            }
        }
        thread->setExpanded(true);
    }
}

} // namespace gilscope::ui
