#pragma once

#include "ui/analysis/analysis_result.h"

#include <QWidget>

class QLabel;
class QTableWidget;

namespace gilscope::ui {

// Who calls the selected function and what it calls, each with the samples (and share of
// the function's samples) in which that neighbour is next to it on the stack.
class CallersCalleesView : public QWidget {
    Q_OBJECT
public:
    explicit CallersCalleesView(QWidget* parent = nullptr);

    void showFunction(const AnalysisResultPtr& result, uint32_t func);
    void clear();

    QTableWidget* callers() const { return callers_; }
    QTableWidget* callees() const { return callees_; }

private:
    QLabel* title_;
    QTableWidget* callers_;
    QTableWidget* callees_;
};

} // namespace gilscope::ui
