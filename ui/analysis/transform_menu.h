#pragma once

#include "core/analysis/call_transforms.h"

#include <QString>

#include <vector>

class QMenu;
class QWidget;

namespace gilscope::ui {

class AnalysisController;

// The frame a right-click landed on: its function, and its call path (root first) in a
// top-down view; empty where a view has no call path (tables, bottom-up, inverted).
struct FrameTarget {
    FunctionRef function;
    std::vector<FunctionRef> path;
    bool valid() const { return !function.name.empty(); }
};

// The right-click menu of a frame in any analysis view: every call-tree transform that
// applies to it, each adding to the controller's transform stack. Actions carry object
// names ("transformMerge", "transformFocus", ...) for tests and keyboard users.
QMenu* transformMenu(const FrameTarget& target, AnalysisController* controller, QWidget* parent);

} // namespace gilscope::ui
