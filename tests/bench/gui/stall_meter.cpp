#include "tests/bench/gui/stall_meter.h"

#include <QEvent>
#include <QMetaEnum>
#include <QTimer>

#include <algorithm>
#include <cstdio>
#include <fcntl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

namespace gilscope::bench {

double threadCpuMs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

// How long this thread has waited, runnable, for a core (the second field of
// /proc/thread-self/schedstat, in ns); 0 where the kernel does not say.
double runDelayMs() {
    static const int fd = ::open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    char buf[128];
    const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    if (n <= 0) return 0;
    buf[n] = 0;
    unsigned long long run = 0, wait = 0;
    if (std::sscanf(buf, "%llu %llu", &run, &wait) != 2) return 0;
    return double(wait) / 1e6;
}

namespace {

// Who got the event, taken before delivery: the event may delete its receiver.
struct Receiver {
    const QMetaObject* type;
    const QMetaObject* parentType;
    QString name;
    explicit Receiver(const QObject* o)
        : type(o->metaObject()), parentType(o->parent() ? o->parent()->metaObject() : nullptr),
          name(o->objectName()) {}
};

QString describe(const Receiver& receiver, QEvent::Type eventType) {
    const QMetaEnum types = QMetaEnum::fromType<QEvent::Type>();
    const char* type = types.valueToKey(eventType);
    QString what = QString::fromLatin1(receiver.type->className());
    if (!receiver.name.isEmpty()) what += QLatin1Char(' ') + receiver.name;
    if (receiver.parentType)
        what +=
            QStringLiteral(" (in %1)").arg(QString::fromLatin1(receiver.parentType->className()));
    return what + QStringLiteral(": ") +
           (type ? QString::fromLatin1(type) : QString::number(int(eventType)));
}

} // namespace

bool TimedApplication::notify(QObject* receiver, QEvent* event) {
    if (!on_) return QApplication::notify(receiver, event);
    QElapsedTimer wall;
    wall.start();
    const double cpu0 = threadCpuMs();
    const double wait0 = depth_ == 0 ? runDelayMs() : 0;
    rusage u0{};
    getrusage(RUSAGE_THREAD, &u0);
    const Receiver who(receiver);
    const QEvent::Type type = event->type(); // the event may be gone after delivery too
    const int depth = depth_++;
    const bool result = QApplication::notify(receiver, event);
    --depth_;
    const double ms = double(wall.nsecsElapsed()) / 1e6;
    const double cpu = threadCpuMs() - cpu0;
    if (depth == 0) maxCpuMs_ = std::max(maxCpuMs_, cpu);
    if (ms >= thresholdMs_) {
        rusage u1{};
        getrusage(RUSAGE_THREAD, &u1);
        slow_.push_back({ms, cpu, depth == 0 ? runDelayMs() - wait0 : 0, u1.ru_nvcsw - u0.ru_nvcsw,
                         u1.ru_majflt - u0.ru_majflt, depth, describe(who, type)});
    }
    return result;
}

void TimedApplication::startRecording(double thresholdMs) {
    thresholdMs_ = thresholdMs;
    maxCpuMs_ = 0;
    slow_.clear();
    on_ = true;
}

std::vector<SlowEvent> TimedApplication::takeSlowEvents() {
    on_ = false;
    std::sort(slow_.begin(), slow_.end(),
              [](const SlowEvent& a, const SlowEvent& b) { return a.wallMs > b.wallMs; });
    return std::exchange(slow_, {});
}

StallMeter::StallMeter(QObject* parent) : QObject(parent), timer_(new QTimer(this)) {
    timer_->setTimerType(Qt::PreciseTimer);
    timer_->setInterval(2);
    connect(timer_, &QTimer::timeout, this, &StallMeter::onTick);
}

void StallMeter::start() {
    gaps_.clear();
    maxGapNs_ = 0;
    maxGapCpuMs_ = maxGapWaitMs_ = 0;
    lastCpuMs_ = threadCpuMs();
    lastWaitMs_ = runDelayMs();
    clock_.start();
    lastNs_ = 0;
    timer_->start();
}

void StallMeter::stop() {
    onTick(); // a stall still going on counts too
    timer_->stop();
}

void StallMeter::onTick() {
    const qint64 now = clock_.nsecsElapsed();
    const qint64 gap = now - lastNs_;
    lastNs_ = now;
    gaps_.push_back(gap);
    const double cpu = threadCpuMs(), wait = runDelayMs();
    if (gap > maxGapNs_) {
        maxGapNs_ = gap;
        maxGapCpuMs_ = cpu - lastCpuMs_;
        maxGapWaitMs_ = wait - lastWaitMs_;
    }
    lastCpuMs_ = cpu;
    lastWaitMs_ = wait;
}

double StallMeter::p99GapMs() const {
    if (gaps_.empty()) return 0;
    std::vector<qint64> g = gaps_;
    const size_t k = g.size() * 99 / 100;
    std::nth_element(g.begin(), g.begin() + long(k), g.end());
    return double(g[k]) / 1e6;
}

double median(std::vector<double> v) {
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace gilscope::bench
