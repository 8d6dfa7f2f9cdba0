#pragma once

#include "ui/analysis/analysis_result.h"

#include <QWidget>

#include <string>
#include <vector>

class QLabel;
class QTableWidget;

namespace gilscope::ui {

// The selected function's file with a heat column: samples per line (own / total, as
// the filter keeps them). A live recording's file is read from the target's own
// filesystem (/proc/PID/root/...), an opened recording's from this machine's disk.
// When the file cannot be read, it says so and why.
class SourceView : public QWidget {
    Q_OBJECT
public:
    explicit SourceView(QWidget* parent = nullptr);

    // pid > 0: a live target.
    void showFunction(const AnalysisResultPtr& result, uint32_t func, int pid);
    void clear();

    QString status() const;
    QTableWidget* table() const { return table_; }
    int hottestLine() const { return hottestLine_; }

private:
    // The samples column for func's file; touches only the cells whose figure moved.
    void applyHeat(const ProfileSnapshot& s, uint32_t func);

    QLabel* status_;
    QTableWidget* table_;
    int hottestLine_ = -1;
    std::string shownName_, shownFile_; // what the table shows now
    int shownPid_ = 0;
    std::vector<uint64_t> shownHeat_; // per line: the total shown now
    uint64_t shownMax_ = 0, shownMatched_ = 0;
};

// Reads a target's source file: through /proc/PID/root when pid > 0 (else, or when that
// fails, from this machine's disk), as the --heatmap pages do. Returns false with *why set
// when it cannot.
bool readSourceFile(const QString& file, int pid, QByteArray* contents, QString* why,
                    QString* readFrom);

} // namespace gilscope::ui
