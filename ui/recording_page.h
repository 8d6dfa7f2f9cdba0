#pragma once

#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QScrollArea;
class QSettings;
class QSplitter;
class QToolButton;

namespace gilscope {
class RecordingFile;
class RecordingSession;
struct SamplerStats;
} // namespace gilscope

namespace gilscope::ui {

class AnalysisPanel;
class CompareBar;
class LiveFigures;
class RateChart;
class TimelineWidget;

// The window's second page, for a recording (live or ended) or an opened .bin: a slim
// header (the live figures or the file's facts, the rate strip), the thread tracks, the
// analysis views below them, and a launched program's output. It only shows: the
// recording controller and the file flow say what.
class RecordingPage : public QWidget {
    Q_OBJECT
public:
    // dialogParent: for the comparison's file dialog.
    explicit RecordingPage(QWidget* dialogParent, QWidget* parent = nullptr);

    LiveFigures* figures() const { return figures_; }
    TimelineWidget* timeline() const { return timeline_; }
    RateChart* rateChart() const { return rateChart_; }
    AnalysisPanel* analysis() const { return analysis_; }
    CompareBar* compare() const { return compare_; }
    QPlainTextEdit* output() const { return output_; }
    QSplitter* splitter() const { return splitter_; }
    QScrollArea* tracksArea() const { return tracksArea_; }
    QToolButton* rateToggle() const { return rateToggle_; }

    // A recording starts: empty figures, rate strip and tracks, the views fed live.
    void showLive(const RecordingSession& session);
    // Every refresh of a live recording, and once more at its end (live: false).
    void showProgress(const SamplerStats& stats, const RecordingSession& session, bool live);
    // An opened .bin: its facts instead of the live figures, its tracks and views.
    // loading: its analysis model still fills (the views refresh as a live recording's
    // do, and say so) until fileLoaded().
    void showFile(const RecordingFile& file, bool loading = false);
    void fileLoaded(const RecordingFile& file);
    const RecordingFile* shownFile() const { return file_; }
    void forgetFile(); // the file shown was closed
    // A launched program's output pane: cleared with its command line, then appended to.
    void startOutput(const QString& commandLine);
    void appendOutput(const QString& text);

    // View › Reset layout: the track area fitted, the strip slim, every track folded.
    void resetLayout();
    void loadSettings(const QSettings& settings);
    void saveSettings(QSettings& settings) const;
    static void forgetSettings(QSettings& settings);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    // Gives the track area the height its tracks need, up to half the splitter, unless
    // the user sized it.
    void fitTracks();
    void setRateExpanded(bool expanded);
    void alignRateStrip(); // the strip under the tracks' time axis and plot columns
    void setRateStripShown(bool shown);

    const RecordingFile* file_ = nullptr; // the file shown, if any
    LiveFigures* figures_;
    QLabel* fileInfo_;
    QToolButton* rateToggle_;
    RateChart* rateChart_;
    TimelineWidget* timeline_;
    QScrollArea* tracksArea_;
    AnalysisPanel* analysis_;
    CompareBar* compare_;
    QPlainTextEdit* output_;
    QSplitter* splitter_;
    bool tracksSized_ = false; // the user dragged the splitter (or it was restored)
};

} // namespace gilscope::ui
