#include "ui/analysis/transform_menu.h"

#include "core/analysis/module_color.h"
#include "ui/analysis/analysis_controller.h"

#include <QMenu>

namespace gilscope::ui {

namespace {

QString quoted(const std::string& name) {
    return QStringLiteral("“%1”").arg(QString::fromStdString(name));
}

} // namespace

QMenu* transformMenu(const FrameTarget& target, AnalysisController* controller, QWidget* parent) {
    auto* menu = new QMenu(parent);
    menu->setObjectName(QStringLiteral("transformMenu"));
    const QString name = quoted(target.function.name);
    const ModuleLocation module = locateModule(target.function.file);
    auto add = [&](const char* id, const QString& text, CallTransform t) {
        QAction* a = menu->addAction(text);
        a->setObjectName(QString::fromLatin1(id));
        QObject::connect(a, &QAction::triggered, controller,
                         [controller, t] { controller->addTransform(t); });
    };
    auto onFunction = [&](TransformKind kind) {
        return CallTransform{kind, target.function, {}, {}};
    };
    auto onModule = [&](TransformKind kind) { return CallTransform{kind, {}, {}, module.name}; };

    add("transformMerge", QObject::tr("Merge function %1").arg(name),
        onFunction(TransformKind::MergeFunction));
    if (!target.path.empty())
        add("transformMergeNode", QObject::tr("Merge this call node only"),
            CallTransform{TransformKind::MergeCallNode, {}, target.path, {}});
    menu->addSeparator();
    add("transformFocus", QObject::tr("Focus on function %1").arg(name),
        onFunction(TransformKind::FocusFunction));
    if (!target.path.empty())
        add("transformFocusSubtree", QObject::tr("Focus on this subtree only"),
            CallTransform{TransformKind::FocusSubtree, {}, target.path, {}});
    add("transformFocusModule", QObject::tr("Focus on module %1").arg(quoted(module.name)),
        onModule(TransformKind::FocusModule));
    menu->addSeparator();
    add("transformCollapseRecursion", QObject::tr("Collapse recursion of %1").arg(name),
        onFunction(TransformKind::CollapseRecursion));
    add("transformCollapseDirect", QObject::tr("Collapse direct recursion only"),
        onFunction(TransformKind::CollapseDirectRecursion));
    add("transformCollapseModule",
        QObject::tr("Collapse %1 into one frame")
            .arg(QString::fromStdString(collapsedModuleName(target.function.file))),
        onModule(TransformKind::CollapseModule));
    add("transformCollapseThirdParty", QObject::tr("Collapse every third-party package"),
        CallTransform{TransformKind::CollapseThirdParty, {}, {}, {}});
    menu->addSeparator();
    add("transformDrop", QObject::tr("Drop samples with %1").arg(name),
        onFunction(TransformKind::DropFunction));
    QAction* invert = menu->addAction(QObject::tr("Invert call stacks"));
    invert->setObjectName(QStringLiteral("transformInvert"));
    invert->setCheckable(true);
    invert->setChecked(controller->inverted());
    QObject::connect(invert, &QAction::toggled, controller, &AnalysisController::setInverted);
    return menu;
}

} // namespace gilscope::ui
