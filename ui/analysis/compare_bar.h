#pragma once

#include "ui/analysis/compare_controller.h"

#include <QWidget>

#include <functional>

class QAction;
class QLabel;
class QPushButton;

namespace gilscope::ui {

class AnalysisPanel;

// File › Compare with… for the analysis panel: a bar above its views (hidden until a
// baseline is chosen) that names the baseline, says how the filters apply to it, shows
// the flame graph's colour legend and clears the comparison. It hands each comparison
// to the top-functions model (Baseline %, Δ) and the flame graph. Its actions exist
// before the panel (the window builds its menus first); attach() puts it in the panel.
class CompareBar : public QWidget {
    Q_OBJECT
public:
    explicit CompareBar(QWidget* dialogParent);
    void attach(AnalysisPanel* panel);

    QAction* compareAction() const { return compareAction_; }
    QAction* clearAction() const { return clearAction_; }
    CompareController* controller() const { return controller_; }
    QLabel* note() const { return note_; }

    // Compares the shown recording with the .bin at path (what the action does once a
    // file is picked).
    void compareWith(const QString& path);
    void clear();

    // Dialog hooks, replaced by tests.
    std::function<QString()> askBaselinePath;
    std::function<void(const QString& title, const QString& text)> showError;

private:
    void onComparison(const ComparisonPtr& comparison);

    QWidget* dialogParent_;
    AnalysisPanel* panel_ = nullptr;
    CompareController* controller_ = nullptr;
    QAction* compareAction_;
    QAction* clearAction_;
    QLabel* note_;
};

} // namespace gilscope::ui
