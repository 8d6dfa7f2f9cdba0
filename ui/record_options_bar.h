#pragma once

#include "core/common/error.h"
#include "core/session/recording_session.h"

#include <QList>
#include <QObject>

class QCheckBox;
class QComboBox;
class QLabel;
class QSettings;
class QWidget;
class QSpinBox;
class QToolBar;

namespace gilscope::ui {

// The options of the next recording, as CPython's `python -m profiling.sampling` names
// them: rate (-r), all threads or the main thread (-a), mode (--mode), opcodes
// (--opcodes), GC frames (--no-gc), native frames (--native), async-aware
// (--async-aware, --async-mode), duration (-d). Remembered between runs. Options that
// CPython refuses together, or that the selected process's version cannot give, are
// named in problemLabel(), which the window shows by its recording status, where a
// narrow window cannot hide it (core/sample/capture_rules.h decides both).
// Each option is its own toolbar item, so a narrow window moves the last ones into the
// toolbar's overflow menu instead of growing wider than the screen.
class RecordOptionsBar : public QObject {
    Q_OBJECT
public:
    explicit RecordOptionsBar(QWidget* parent);
    void addTo(QToolBar* toolbar);
    void setEnabled(bool enabled);

    // The options chosen, or CPython's words for a rate it would refuse or options it
    // refuses together.
    Result<SessionOptions> options() const;
    // The version of the process Record would attach to ("3.11.7"; empty: not known).
    void setTargetVersion(const QString& version);
    // Why the chosen options cannot record that process, or empty.
    QString versionProblem() const;
    // Why Record cannot start with these options (conflict or version), or empty.
    QString problem() const;
    QString summary() const; // "1khz · all threads · mode all", for tooltips and status

    void load(const QSettings& settings);
    void save(QSettings& settings) const;

    QComboBox* rateBox() const { return rate_; }
    QComboBox* threadsBox() const { return threads_; }
    QComboBox* modeBox() const { return mode_; }
    QCheckBox* opcodesBox() const { return opcodes_; }
    QCheckBox* gcBox() const { return gc_; }
    QSpinBox* durationBox() const { return duration_; }
    QCheckBox* nativeBox() const { return native_; }
    QCheckBox* nativeStacksBox() const { return nativeStacks_; }
    QCheckBox* asyncBox() const { return async_; }
    QComboBox* asyncModeBox() const { return asyncMode_; }
    QLabel* problemLabel() const { return problemLabel_; }

signals:
    void changed(); // any option was changed by the user or load()

private:
    QString conflictProblem() const;
    void refresh(); // the async mode box's state and the problem note

    QList<QWidget*> groups_;
    QComboBox* rate_;
    QComboBox* threads_;
    QComboBox* mode_;
    QCheckBox* opcodes_;
    QCheckBox* gc_;
    QSpinBox* duration_;
    QCheckBox* native_;
    QCheckBox* nativeStacks_;
    QCheckBox* async_;
    QComboBox* asyncMode_;
    QLabel* problemLabel_;
    QString targetVersion_;
};

} // namespace gilscope::ui
