#pragma once

#include <QWidget>

class QHBoxLayout;

namespace gilscope::ui {

class AnalysisController;

// The transform stack as breadcrumbs above the views: "Whole tree › Merge: wrapper ›
// Focus: handle_request". A crumb's ✕ removes that transform; the first crumb removes
// them all. Hidden while there is none.
class TransformBar : public QWidget {
    Q_OBJECT
public:
    explicit TransformBar(AnalysisController* controller, QWidget* parent = nullptr);
    QStringList labels() const; // the crumbs shown, for tests

private:
    void rebuild();

    AnalysisController* controller_;
    QHBoxLayout* row_;
};

} // namespace gilscope::ui
