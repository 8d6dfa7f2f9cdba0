// The process's counter tracks above the threads: resident memory, thread count, CPU use
// (in cores) and the share of samples in garbage collection. They share the tracks' time
// axis, zoom and range; hovering tells the value, and with a range selected its
// min, max and change.
#include "ui/timeline_layout.h"
#include "ui/timeline_widget.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <array>
#include <cmath>
#include <optional>
#include <utility>

namespace gilscope::ui {
using namespace timeline;

namespace {

// Memory amber, threads slate; CPU and GC as the thread lanes' On CPU and GC; parallelism
// as the GIL-held (running Python) lane, a pause as the stopped one.
const QColor kCounterColors[kCounterTrackCount] = {QColor(185, 140, 30), QColor(90, 125, 145),
                                                   QColor(40, 110, 220), QColor(160, 60, 190),
                                                   QColor(46, 160, 67)};

QString megabytes(double bytes) {
    return QObject::tr("%1 MB").arg(bytes / (1024.0 * 1024.0), 0, 'f', 1);
}

QString signedMegabytes(double bytes) {
    return (bytes >= 0 ? QStringLiteral("+") : QString()) + megabytes(bytes);
}

// CPU use at `t` in cores: the CPU time between the readings around it over their gap.
double coresBetween(const ProcessCounters& before, const ProcessCounters& next) {
    if (next.timeUs <= before.timeUs || next.cpuNs < before.cpuNs) return 0;
    return double(next.cpuNs - before.cpuNs) / (double(next.timeUs - before.timeUs) * 1e3);
}

// The readings just before and after t (nullopt at either end of the series).
std::optional<std::pair<const ProcessCounters*, const ProcessCounters*>>
readingsAround(const std::vector<ProcessCounters>& r, uint64_t t) {
    const auto byTime = [](uint64_t at, const ProcessCounters& c) { return at < c.timeUs; };
    auto next = std::upper_bound(r.begin(), r.end(), t, byTime);
    if (next == r.begin() || next == r.end()) return std::nullopt;
    return std::pair{&*(next - 1), &*next};
}

double coresAt(const std::vector<ProcessCounters>& r, uint64_t t) {
    const auto around = readingsAround(r, t);
    return around ? coresBetween(*around->first, *around->second) : -1;
}

// The interpreter's GC collections (per generation) between the readings at or before
// fromUs and toUs; nullopt when its counts are not known there.
std::optional<std::array<uint64_t, kGcGenerations>>
collectionsBetween(const CounterSeries& c, uint64_t fromUs, uint64_t toUs) {
    const ProcessCounters* a = c.at(fromUs);
    const ProcessCounters* b = c.at(toUs);
    if (!a || !b || !a->gcKnown || !b->gcKnown) return std::nullopt;
    std::array<uint64_t, kGcGenerations> n{};
    for (size_t g = 0; g < kGcGenerations; ++g)
        n[g] = b->gcCollections[g] >= a->gcCollections[g]
                   ? b->gcCollections[g] - a->gcCollections[g]
                   : 0;
    return n;
}

QString collectionsText(const std::array<uint64_t, kGcGenerations>& n) {
    return QObject::tr("collections: gen 0 ×%1, gen 1 ×%2, gen 2 ×%3")
        .arg(n[0])
        .arg(n[1])
        .arg(n[2]);
}

} // namespace

QStringList TimelineWidget::counterTrackNames() {
    return {tr("Memory"), tr("Threads"), tr("CPU"), tr("GC"), tr("Parallel")};
}

bool TimelineWidget::counterTrackShown(int track) const {
    if (track == int(CounterTrack::Parallel))
        return snapshot_.threads.size() > 1 && !snapshot_.parallel.empty();
    return !snapshot_.counters.empty() && track >= 0 && track < kCounterTrackCount;
}

int TimelineWidget::countersHeight() const {
    int shown = 0;
    for (int i = 0; i < kCounterTrackCount; ++i)
        shown += counterTrackShown(i) ? 1 : 0;
    return shown ? shown * kCounterTrackHeight + kLaneGap : 0;
}

QRect TimelineWidget::counterTrackRect(int track) const {
    if (!counterTrackShown(track)) return {};
    int above = 0;
    for (int i = 0; i < track; ++i)
        above += counterTrackShown(i) ? 1 : 0;
    return QRect(kMargin, kPlotTop + above * kCounterTrackHeight, width() - 2 * kMargin,
                 kCounterTrackHeight);
}

ParallelBucket TimelineWidget::parallelIn(uint64_t fromUs, uint64_t toUs) const {
    ParallelBucket sum;
    const uint64_t bucket = std::max<uint64_t>(snapshot_.bucketUs, 1);
    const uint64_t origin = snapshot_.originUs;
    if (toUs < origin) return sum;
    const size_t first = size_t((fromUs > origin ? fromUs - origin : 0) / bucket);
    const size_t last = std::min(snapshot_.parallel.size(), size_t((toUs - origin) / bucket) + 1);
    for (size_t i = first; i < last; ++i)
        sum.merge(snapshot_.parallel[i]);
    return sum;
}

double TimelineWidget::parallelTop() const {
    if (!snapshot_.freeThreaded) return 1.0;
    if (snapshot_.cpus) return double(snapshot_.cpus);
    double top = 1.0; // no CPU count: the most that wanted to run, on average, in a bucket
    for (const ParallelBucket& b : snapshot_.parallel)
        if (b.ticks) top = std::max(top, double(b.wanting) / b.ticks);
    return top;
}

// Per pixel column, how many threads ran Python at once (filled, up to the CPUs or the
// GIL's one), how many wanted to (a line, at the top when more than fit), and where a
// stop-the-world pause stopped threads (a mark along the top).
void TimelineWidget::paintParallelism(QPainter& p, const QRect& plot) {
    const int w = plot.width();
    const double from = double(viewStartUs()), span = double(viewEndUs()) - from;
    if (w <= 0 || span <= 0) return;
    const double top = parallelTop();
    QColor fill = kCounterColors[int(CounterTrack::Parallel)];
    fill.setAlpha(130);
    const QColor want = fill.darker(160);
    const QColor pause = kLanes[kWaitLane].color;
    for (int x = 0; x < w; ++x) {
        const auto t0 = uint64_t(from + x * span / w), t1 = uint64_t(from + (x + 1) * span / w);
        const ParallelBucket b = parallelIn(t0, t1 > t0 ? t1 - 1 : t0);
        if (b.ticks == 0) continue;
        const double running = double(b.running) / b.ticks, wanting = double(b.wanting) / b.ticks;
        const int h = int(std::lround(std::clamp(running / top, 0.0, 1.0) * plot.height()));
        if (h > 0) p.fillRect(plot.left() + x, plot.bottom() + 1 - h, 1, h, fill);
        if (wanting > running) {
            const int y = plot.bottom() + 1 -
                          int(std::lround(std::clamp(wanting / top, 0.0, 1.0) * plot.height()));
            p.fillRect(plot.left() + x, std::max(plot.top(), y - 1), 1, 2, want);
        }
        if (b.stopped) p.fillRect(plot.left() + x, plot.top(), 1, 3, pause);
    }
    const ParallelBucket whole = parallelIn(0, UINT64_MAX);
    QString label = counterTrackNames()[int(CounterTrack::Parallel)];
    if (whole.ticks)
        label += snapshot_.freeThreaded
                     ? tr("  %1 avg").arg(double(whole.running) / whole.ticks, 0, 'f', 2)
                     : tr("  GIL %1 %").arg(100.0 * whole.running / whole.ticks, 0, 'f', 0);
    p.setPen(palette().color(QPalette::Text));
    const QRect name(kMargin + kTwistyWidth, plot.top() - 2,
                     plotLeft() - kTwistyWidth - 2 * kMargin, kCounterTrackHeight);
    p.fillRect(kMargin + 3, plot.center().y() - 4, 8, 8,
               kCounterColors[int(CounterTrack::Parallel)]);
    p.drawText(name, Qt::AlignVCenter | Qt::AlignLeft,
               fontMetrics().elidedText(label, Qt::ElideRight, name.width()));
}

QString TimelineWidget::parallelismToolTip(QPoint pos) const {
    const uint64_t origin = snapshot_.originUs;
    const auto sec = [origin](uint64_t t) { return double(int64_t(t) - int64_t(origin)) / 1e6; };
    const QString ran = snapshot_.freeThreaded ? tr("ran Python") : tr("held the GIL");
    const QString cap =
        snapshot_.freeThreaded
            ? (snapshot_.cpus ? tr(" (%1 CPUs)").arg(snapshot_.cpus) : tr(" (CPUs not known)"))
            : tr(" (the GIL lets one run)");
    const auto describe = [&](const ParallelBucket& b) {
        if (!b.ticks) return tr("no samples");
        QString text = tr("%1 threads %2 at once, %3 wanted to%4")
                           .arg(double(b.running) / b.ticks, 0, 'f', 2)
                           .arg(ran)
                           .arg(double(b.wanting) / b.ticks, 0, 'f', 2)
                           .arg(cap);
        if (b.stopped)
            text += tr("; stop-the-world pauses stopped %1 threads on average")
                        .arg(double(b.stopped) / b.ticks, 0, 'f', 2);
        return text;
    };
    QString text;
    if (pos.x() >= plotLeft()) {
        const uint64_t t = timeAt(pos.x());
        const uint64_t bucket = std::max<uint64_t>(snapshot_.bucketUs, 1);
        const uint64_t at = origin + (t - std::min(t, origin)) / bucket * bucket;
        text = tr("Parallel at %1 s: ").arg(sec(t), 0, 'f', 3) + describe(parallelIn(at, at));
    } else {
        text = tr("Parallel\nHow many threads ran Python at once, tick by tick (filled), and "
                  "how many wanted to (the line): under a GIL one at most; without one, as "
                  "many as the CPUs. A mark on top: a stop-the-world pause stopped threads.");
    }
    const uint64_t from = hasHighlight_ ? highlightStartUs_ : viewStartUs();
    const uint64_t to = hasHighlight_ ? highlightEndUs_ : viewEndUs();
    text += tr("\n%1 %2–%3 s: ")
                .arg(hasHighlight_ ? tr("In the selected range") : tr("In view"))
                .arg(sec(from), 0, 'f', 3)
                .arg(sec(to), 0, 'f', 3) +
            describe(parallelIn(from, to));
    return text;
}

int TimelineWidget::counterTrackAt(QPoint pos) const {
    for (int i = 0; i < kCounterTrackCount; ++i)
        if (counterTrackRect(i).contains(pos)) return i;
    return -1;
}

double TimelineWidget::gcShareIn(uint64_t fromUs, uint64_t toUs) const {
    uint64_t gc = 0, samples = 0;
    for (const ThreadTimeline& t : snapshot_.threads) {
        const TimelineBucket b = totalIn(t, fromUs, toUs);
        gc += b.gc;
        samples += b.samples;
    }
    return samples ? double(gc) / double(samples) : -1;
}

void TimelineWidget::paintCounters(QPainter& p) {
    const QColor faint = palette().color(QPalette::Mid);
    for (int i = 0; i < kCounterTrackCount; ++i) {
        if (!counterTrackShown(i)) continue;
        const QRect track = counterTrackRect(i);
        const QRect plot(plotLeft(), track.top() + 2, plotWidth(), track.height() - 4);
        p.setPen(faint);
        p.drawLine(plot.left(), track.bottom(), plot.right(), track.bottom());
        if (i == int(CounterTrack::Parallel))
            paintParallelism(p, plot);
        else
            paintCounter(p, i, plot);
    }
}

void TimelineWidget::paintCounter(QPainter& p, int track, const QRect& plot) {
    const auto& readings = snapshot_.counters.readings();
    const auto kind = CounterTrack(track);
    const int w = plot.width();
    // Per pixel column, the value drawn there (negative: nothing known there).
    std::vector<double> values(size_t(w), -1.0);
    const double from = double(viewStartUs()), span = double(viewEndUs()) - from;
    const uint64_t first = readings.front().timeUs, last = readings.back().timeUs;
    if (kind == CounterTrack::Gc) {
        std::vector<uint64_t> gc(static_cast<size_t>(w)), samples(static_cast<size_t>(w));
        for (const ThreadTimeline& t : snapshot_.threads) {
            const auto columns = columnsOf(t, w);
            for (int x = 0; x < w; ++x) {
                gc[size_t(x)] += columns[size_t(x)].gc;
                samples[size_t(x)] += columns[size_t(x)].total();
            }
        }
        for (int x = 0; x < w; ++x)
            if (samples[size_t(x)]) values[size_t(x)] = double(gc[size_t(x)]) / samples[size_t(x)];
    } else {
        for (int x = 0; x < w; ++x) {
            const auto t = uint64_t(from + (x + 0.5) * span / w);
            if (t < first || t > last) continue;
            const ProcessCounters* r = snapshot_.counters.at(t);
            values[size_t(x)] = kind == CounterTrack::Memory    ? double(r->rssBytes)
                                : kind == CounterTrack::Threads ? double(r->threads)
                                                                : coresAt(readings, t);
        }
    }
    // The scale: memory from the recording's low to its peak, as the Firefox Profiler's
    // memory track, so 20 MB on top of 2 GB still shows; threads from none to their peak;
    // CPU from idle to at least one core; GC the whole of the samples. Zooming keeps it.
    double bottom = 0, top = 1.0;
    if (kind == CounterTrack::Memory || kind == CounterTrack::Threads) {
        const auto whole = snapshot_.counters.whole();
        top = kind == CounterTrack::Memory ? double(whole->rssMax) : double(whole->threadsMax);
        if (kind == CounterTrack::Memory) bottom = double(whole->rssMin);
    } else if (kind == CounterTrack::Cpu) {
        for (size_t i = 1; i < readings.size(); ++i)
            top = std::max(top, coresBetween(readings[i - 1], readings[i]));
    }
    QColor fill = kCounterColors[track];
    fill.setAlpha(110);
    const int floor = kind == CounterTrack::Memory ? 2 : 0; // the low is drawn, thinly
    for (int x = 0; x < w; ++x) {
        const double v = values[size_t(x)];
        if (v < 0) continue;
        const double share = top > bottom ? std::clamp((v - bottom) / (top - bottom), 0.0, 1.0)
                                          : (v > 0 ? 1.0 : 0.0);
        const int h = floor + int(std::lround(share * (plot.height() - floor)));
        if (h > 0) p.fillRect(plot.left() + x, plot.bottom() + 1 - h, 1, h, fill);
    }
    if (kind == CounterTrack::Gc) paintCollections(p, plot);
    // The name and the latest value, on the left.
    const ProcessCounters& now = readings.back();
    QString label = counterTrackNames()[track];
    if (kind == CounterTrack::Memory)
        label += QStringLiteral("  ") + megabytes(double(now.rssBytes));
    if (kind == CounterTrack::Threads) label += QStringLiteral("  %1").arg(now.threads);
    if (kind == CounterTrack::Cpu)
        if (const auto whole = snapshot_.counters.whole(); whole && whole->elapsedUs)
            label += tr("  %1 cores avg").arg(whole->cores(), 0, 'f', 2);
    if (kind == CounterTrack::Gc) {
        // Short: the label column is narrow, and full collections are what the marks show.
        const auto whole = snapshot_.counters.whole();
        const uint64_t full = whole && whole->gcKnown ? whole->gcCollections[2] : 0;
        if (const double share = gcShareIn(0, UINT64_MAX); share >= 0)
            label += full ? tr("  %1 %, %2 full").arg(100.0 * share, 0, 'f', 1).arg(full)
                          : tr("  %1 % of samples").arg(100.0 * share, 0, 'f', 1);
    }
    p.setPen(palette().color(QPalette::Text));
    const QRect name(kMargin + kTwistyWidth, plot.top() - 2,
                     plotLeft() - kTwistyWidth - 2 * kMargin, kCounterTrackHeight);
    p.fillRect(kMargin + 3, plot.center().y() - 4, 8, 8, kCounterColors[track]);
    p.drawText(name, Qt::AlignVCenter | Qt::AlignLeft,
               fontMetrics().elidedText(label, Qt::ElideRight, name.width()));
}

QString TimelineWidget::counterToolTip(int track, QPoint pos) const {
    const auto kind = CounterTrack(track);
    if (kind == CounterTrack::Parallel) return parallelismToolTip(pos);
    const auto& counters = snapshot_.counters;
    const uint64_t origin = snapshot_.originUs;
    const auto sec = [origin](uint64_t t) { return double(int64_t(t) - int64_t(origin)) / 1e6; };
    QString text;
    if (pos.x() >= plotLeft()) {
        const uint64_t t = timeAt(pos.x());
        const ProcessCounters* r = counters.at(t);
        text = tr("%1 at %2 s: ").arg(counterTrackNames()[track]).arg(sec(t), 0, 'f', 3);
        if (kind == CounterTrack::Memory) text += megabytes(double(r->rssBytes)) + tr(" resident");
        if (kind == CounterTrack::Threads) text += tr("%1 threads").arg(r->threads);
        if (kind == CounterTrack::Cpu) {
            const double cores = coresAt(counters.readings(), t);
            text += cores < 0 ? tr("not read then") : tr("%1 cores busy").arg(cores, 0, 'f', 2);
        }
        if (kind == CounterTrack::Gc) {
            const uint64_t bucket = std::max<uint64_t>(snapshot_.bucketUs, 1);
            const uint64_t at = origin + (t - std::min(t, origin)) / bucket * bucket;
            const double share = gcShareIn(at, at + bucket - 1);
            text += share < 0 ? tr("no samples")
                              : tr("%1 % of samples in GC").arg(100 * share, 0, 'f', 1);
            // The collections the interpreter counted between the readings around t.
            if (const auto around = readingsAround(counters.readings(), t))
                if (const auto n =
                        collectionsBetween(counters, around->first->timeUs, around->second->timeUs))
                    text += QStringLiteral("; ") + collectionsText(*n);
        }
    } else {
        text = counterTrackNames()[track];
        static const char* what[] = {
            QT_TR_NOOP("The target's resident memory (RSS), read from /proc about every 20 ms"),
            QT_TR_NOOP("How many threads the process has (Python or not)"),
            QT_TR_NOOP("CPU use of all the process's threads, in cores (1 = one core busy)"),
            QT_TR_NOOP("The share of all threads' samples with a <GC> frame on the stack; "
                       "a mark where the interpreter ran a collection of its older "
                       "generations (short: generation 1, full height: a full collection)")};
        text += QStringLiteral("\n") + tr(what[track]);
    }
    // The range in force (the selection, else the view): min, max, change.
    const uint64_t from = hasHighlight_ ? highlightStartUs_ : viewStartUs();
    const uint64_t to = hasHighlight_ ? highlightEndUs_ : viewEndUs();
    text += tr("\n%1 %2–%3 s: ")
                .arg(hasHighlight_ ? tr("In the selected range") : tr("In view"))
                .arg(sec(from), 0, 'f', 3)
                .arg(sec(to), 0, 'f', 3);
    if (kind == CounterTrack::Gc) {
        const double share = gcShareIn(from, to);
        text += share < 0 ? tr("no samples") : tr("%1 % in GC").arg(100 * share, 0, 'f', 1);
        if (const auto n = collectionsBetween(counters, from, to)) {
            text += QStringLiteral("; ") + collectionsText(*n);
            if (const auto span = counters.span(from, to); span && span->gcKnown)
                text += tr(", %1 objects freed").arg(span->gcCollected);
        }
        return text;
    }
    const auto span = counters.span(from, to);
    if (!span) return text + tr("no readings");
    if (kind == CounterTrack::Memory)
        text += tr("min %1, max %2, change %3")
                    .arg(megabytes(double(span->rssMin)), megabytes(double(span->rssMax)),
                         signedMegabytes(double(span->rssDelta())));
    if (kind == CounterTrack::Threads)
        text += tr("min %1, max %2").arg(span->threadsMin).arg(span->threadsMax);
    if (kind == CounterTrack::Cpu)
        text += tr("%1 s of CPU, %2 cores on average")
                    .arg(double(span->cpuNs) / 1e9, 0, 'f', 3)
                    .arg(span->cores(), 0, 'f', 2);
    return text;
}

// Where the interpreter collected its older generations: per pixel column, a short mark
// for generation 1 and a full-height one for a full collection. Young collections come
// by the hundred a second and are left to the tooltip.
void TimelineWidget::paintCollections(QPainter& p, const QRect& plot) {
    const auto& readings = snapshot_.counters.readings();
    const int w = plot.width();
    const double from = double(viewStartUs()), span = double(viewEndUs()) - from;
    if (w <= 0 || span <= 0) return;
    std::vector<uint8_t> level(size_t(w), 0); // 0 none, 1 generation 1, 2 full
    for (size_t i = 1; i < readings.size(); ++i) {
        const ProcessCounters &a = readings[i - 1], &b = readings[i];
        if (!a.gcKnown || !b.gcKnown) continue;
        const uint8_t l = b.gcCollections[2] > a.gcCollections[2]   ? 2
                          : b.gcCollections[1] > a.gcCollections[1] ? 1
                                                                    : 0;
        if (l == 0) continue;
        const double x = (double(b.timeUs) - from) * w / span;
        if (x < 0 || x >= w) continue;
        level[size_t(x)] = std::max(level[size_t(x)], l);
    }
    const QColor mark = kCounterColors[int(CounterTrack::Gc)].darker(150);
    for (int x = 0; x < w; ++x) {
        if (!level[size_t(x)]) continue;
        const int h = level[size_t(x)] == 2 ? plot.height() : plot.height() / 3;
        p.fillRect(plot.left() + x, plot.top(), 1, h, mark);
    }
}

} // namespace gilscope::ui
