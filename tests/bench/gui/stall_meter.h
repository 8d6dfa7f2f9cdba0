#pragma once

// What the responsiveness benchmark measures: the GUI event loop's longest stall, as
// the longest gap between fires of a 2 ms timer, and which event handlers ran long
// (a QApplication whose notify() times every delivery, wall and thread CPU time), so
// a stall can be pinned on a widget or a slot without a profiler.
#include <QApplication>
#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include <vector>

class QTimer;

namespace gilscope::bench {

// One event delivery that took long.
struct SlowEvent {
    double wallMs = 0;
    double cpuMs = 0;     // the GUI thread's CPU time: small when the thread was only waiting
    double waitMs = 0;    // time it was runnable but had no core (schedstat run delay)
    long blocks = 0;      // times it blocked (voluntary context switches)
    long majorFaults = 0; // page faults that read from disk
    int depth = 0;        // 0: straight from the event loop
    QString what;         // "QWidgetWindow mainWindow: UpdateRequest"
};

// Times every event delivered on the GUI thread while recording is on.
class TimedApplication : public QApplication {
public:
    TimedApplication(int& argc, char** argv) : QApplication(argc, argv) {}
    bool notify(QObject* receiver, QEvent* event) override;
    void startRecording(double thresholdMs);
    std::vector<SlowEvent> takeSlowEvents();
    // Longest GUI-thread CPU time spent in one event straight from the loop: the GUI's
    // own work, whatever the machine's load.
    double maxCpuMs() const { return maxCpuMs_; }

private:
    bool on_ = false;
    double thresholdMs_ = 10;
    int depth_ = 0;
    double maxCpuMs_ = 0;
    std::vector<SlowEvent> slow_;
};

// Max gap between the fires of a precise 2 ms timer, between start() and stop().
class StallMeter : public QObject {
public:
    explicit StallMeter(QObject* parent = nullptr);
    void start();
    void stop();
    double maxGapMs() const { return maxGapNs_ / 1e6; }
    // Of the longest gap: the GUI thread's CPU time, and how long it was runnable but
    // had no core (the machine's load, not the GUI's work).
    double maxGapCpuMs() const { return maxGapCpuMs_; }
    double maxGapWaitMs() const { return maxGapWaitMs_; }
    // The 99th percentile gap: how the loop usually keeps up.
    double p99GapMs() const;

private:
    void onTick();
    QTimer* timer_;
    QElapsedTimer clock_;
    qint64 lastNs_ = 0;
    qint64 maxGapNs_ = 0;
    double lastCpuMs_ = 0, lastWaitMs_ = 0;
    double maxGapCpuMs_ = 0, maxGapWaitMs_ = 0;
    std::vector<qint64> gaps_;
};

double median(std::vector<double> v);
double threadCpuMs();
double runDelayMs(); // this thread's time runnable without a core, from schedstat

} // namespace gilscope::bench
