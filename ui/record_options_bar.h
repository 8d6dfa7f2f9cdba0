#pragma once

#include "core/common/error.h"
#include "core/live/recording_session.h"

#include <QList>
#include <QObject>

class QCheckBox;
class QComboBox;
class QSettings;
class QWidget;
class QSpinBox;
class QToolBar;

namespace gilscope::ui {

// The options of the next recording, as CPython's `python -m profiling.sampling` names
// them: rate (-r), all threads or the main thread (-a), mode (--mode), opcodes
// (--opcodes), GC frames (--no-gc), duration (-d). Remembered between runs.
// Each option is its own toolbar item, so a narrow window moves the last ones into the
// toolbar's overflow menu instead of growing wider than the screen.
class RecordOptionsBar : public QObject {
    Q_OBJECT
public:
    explicit RecordOptionsBar(QWidget* parent);
    void addTo(QToolBar* toolbar);
    void setEnabled(bool enabled);

    // The options chosen, or CPython's words for a rate it would refuse.
    Result<RecordingOptions> options() const;
    QString summary() const; // "1khz · all threads · mode all", for tooltips and status

    void load(const QSettings& settings);
    void save(QSettings& settings) const;

    QComboBox* rateBox() const { return rate_; }
    QComboBox* threadsBox() const { return threads_; }
    QComboBox* modeBox() const { return mode_; }
    QCheckBox* opcodesBox() const { return opcodes_; }
    QCheckBox* gcBox() const { return gc_; }
    QSpinBox* durationBox() const { return duration_; }

private:
    QList<QWidget*> groups_;
    QComboBox* rate_;
    QComboBox* threads_;
    QComboBox* mode_;
    QCheckBox* opcodes_;
    QCheckBox* gc_;
    QSpinBox* duration_;
};

} // namespace gilscope::ui
