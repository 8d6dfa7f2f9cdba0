#pragma once

#include "core/sampler/sampler.h"

#include <QWidget>

class QLabel;

namespace gilscope::ui {

// The sampler's live figures: requested and achieved rate, missed and error shares,
// samples per thread and in total, elapsed time. Fed from Sampler::stats() by the window's 5 Hz
// timer.
class LiveFigures : public QWidget {
    Q_OBJECT
public:
    explicit LiveFigures(QWidget* parent = nullptr);
    void setStats(const SamplerStats& stats);
    void clear();
    const SamplerStats& stats() const { return stats_; }
    static constexpr double kMissedWarningPct = 10; // above this, Missed turns red
    bool missedFlagged() const;
    bool errorsFlagged() const; // more than kTornWarningPct of thread reads dropped as torn

private:
    QLabel* addFigure(const QString& name, const QString& objectName, int column);

    SamplerStats stats_;
    QLabel* requested_;
    QLabel* achieved_;
    QLabel* missed_;
    QLabel* errors_;
    QLabel* samples_;       // per thread: sampling ticks
    QLabel* threadSamples_; // all threads' stacks
    QLabel* elapsed_;
};

} // namespace gilscope::ui
