// The interval-marker state machine (cpython-profiling.md §2.6) and the closing of open
// intervals at export (§2.7).

#include "core/gecko/gecko_collector_impl.h"
#include "core/sample/thread_status.h"
#include "core/sample/wait_reason.h"
#include "core/util/utf8.h"

#include <algorithm>

namespace gilscope {

void GeckoCollector::Impl::emitInterval(GeckoThread& th, MarkerKind kind, double start,
                                        double end) {
    const MarkerKindInfo& info = kMarkerKinds[kind];
    const uint32_t name = strings.intern(info.name); // interned at emission, as CPython
    MarkerRecord rec;
    rec.kind = kind;
    rec.duration = end - start;
    Status s = th.appendMarker(name, start, end, info.category, rec);
    if (!s.ok()) spillFailed(s.error());
}

// dict[tid] = t (overwrite) or dict.setdefault(tid, t).
void GeckoCollector::Impl::openInterval(GeckoThread& th, MarkerKind kind, double t,
                                        bool overwrite) {
    OpenInterval& s = th.open[kind];
    if (s.open) {
        if (overwrite) s.start = t;
        return;
    }
    s.open = true;
    s.start = t;
    s.seq = ++seq;
}

// if tid in dict: emit marker from dict.pop(tid) to end.
void GeckoCollector::Impl::closeInterval(GeckoThread& th, MarkerKind kind, double end) {
    OpenInterval& s = th.open[kind];
    if (!s.open) return;
    s.open = false;
    emitInterval(th, kind, s.start, end);
}

void GeckoCollector::Impl::transition(GeckoThread& th, bool cond, MarkerKind active,
                                      MarkerKind inactive, double t) {
    if (!th.initialized) {
        // First sight of the thread: remember the state, no marker (the past is unknown).
        openInterval(th, cond ? active : inactive, t, true);
        return;
    }
    if (cond) {
        openInterval(th, active, t, false);
        closeInterval(th, inactive, t);
    } else {
        openInterval(th, inactive, t, false);
        closeInterval(th, active, t);
    }
}

void GeckoCollector::Impl::runStateMachine(GeckoThread& th, uint32_t status, bool hasGc, double t) {
    const bool hasGil = status & ThreadStatus::HasGil;
    const bool onCpu = status & ThreadStatus::OnCpu;
    // A free-threaded target has no GIL: its bits say whether the thread is attached
    // (runs Python) and whether a stop-the-world request stopped it (thread_status.h).
    if (freeThreaded)
        transition(th, hasGil, kAttached, kDetached, t);
    else
        transition(th, hasGil, kHasGil, kNoGil, t);
    transition(th, onCpu, kOnCpu, kOffCpu, t);
    if (hasGil) {
        transition(th, true, kPythonCode, kNativeCode, t);
    } else if (onCpu) {
        transition(th, true, kNativeCode, kPythonCode, t);
    } else if (th.initialized) {
        closeInterval(th, kPythonCode, t);
        closeInterval(th, kNativeCode, t);
    }
    const MarkerKind waits = freeThreaded ? kStopped : kGilWait;
    if (status & ThreadStatus::GilRequested)
        openInterval(th, waits, t, false);
    else
        closeInterval(th, waits, t);
    transition(th, (status & ThreadStatus::HasException) != 0, kHasException, kNoException, t);
    if (hasGc)
        openInterval(th, kGcCollecting, t, false);
    else
        closeInterval(th, kGcCollecting, t);
    // Off CPU and why: one interval per run of samples waiting the same way.
    const WaitKind wait = waitKindOf(waitReasonOf(status));
    const auto waiting = [&](WaitKind kind, MarkerKind marker) {
        if (wait == kind) {
            openInterval(th, marker, t, false);
            usesWaitCategories = true;
        } else {
            closeInterval(th, marker, t);
        }
    };
    waiting(WaitKind::Lock, kLockWait);
    waiting(WaitKind::Io, kIoWait);
    waiting(WaitKind::Poll, kPollWait);
    waiting(WaitKind::Sleep, kSleepWait);
    th.initialized = true;
}

void GeckoCollector::Impl::emitUserMarks() {
    if (userMarks.empty() || threads.empty() || !haveBase) return; // no samples: no timeline
    GeckoThread* on = threads.front().get();
    for (auto& th : threads)
        if (th->isMainThread) on = th.get();
    for (const auto& [t, text] : userMarks) {
        const double ms = static_cast<double>(static_cast<int64_t>(t - baseUs)) / 1000.0;
        MarkerRecord rec;
        rec.kind = kUserMarker;
        Status s = on->appendMarker(strings.intern(sanitizeUtf8(text)), ms, ms, 0, rec);
        if (!s.ok()) spillFailed(s.error());
        wroteUserMarks = true;
    }
    userMarks.clear();
}

void GeckoCollector::Impl::finalizeMarkers() {
    const double end = lastSampleTime;
    // Never end an interval before it starts (replayed files are not in time order).
    const auto endFor = [end](double start) { return std::max(end, start); };
    std::vector<std::pair<uint64_t, GeckoThread*>> order;
    for (int kind = 0; kind < kIntervalKinds; ++kind) {
        order.clear();
        for (auto& th : threads)
            if (th->open[kind].open) order.emplace_back(th->open[kind].seq, th.get());
        std::sort(order.begin(), order.end());
        for (auto& [seqNo, th] : order) {
            OpenInterval& s = th->open[kind];
            s.open = false;
            emitInterval(*th, static_cast<MarkerKind>(kind), s.start, endFor(s.start));
        }
    }
    for (auto& th : threads) {
        for (const OpenLabel& label : th->labels)
            emitLabelMarker(*th, label, endFor(label.start));
        th->labels.clear();
    }
    order.clear();
    for (auto& th : threads)
        if (th->opcode.present) order.emplace_back(th->opcode.seq, th.get());
    std::sort(order.begin(), order.end());
    for (auto& [seqNo, th] : order) {
        emitOpcodeMarker(*th, th->opcode, endFor(th->opcode.start));
        th->opcode.present = false;
    }
}

} // namespace gilscope
