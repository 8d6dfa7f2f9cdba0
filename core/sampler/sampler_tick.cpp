// One recording's tick, on the sampler's thread or its group's: read every thread's
// stack, hand the samples on, keep the figures, and end when asked or when the target does.
#include "core/sampler/sampler_impl.h"

#include "core/sample/thread_status.h"
#include "core/sampler/sampler_group.h"
#include "core/sampler/thread_scheduling.h"

#include <algorithm>
#include <exception>

#include <sys/prctl.h>
#include <time.h>

namespace gilscope {

namespace {

// Slice hint for the sampler thread: the kernel's minimum, since each tick runs far less.
constexpr uint64_t kSliceHintUs = 100;
// How often the sampler refreshes its own CPU time (a syscall, so not every tick).
constexpr uint64_t kCpuRefreshUs = 100000;

uint64_t threadCpuUs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000u + static_cast<uint64_t>(ts.tv_nsec) / 1000u;
}

} // namespace

void Sampler::Impl::recordInterval(RawSamplerStats& s, uint64_t prevTick, uint64_t t) {
    const uint64_t d = t - prevTick;
    s.minIntervalUs = s.intervals == 0 ? d : std::min(s.minIntervalUs, d);
    s.maxIntervalUs = std::max(s.maxIntervalUs, d);
    s.sumIntervalUs += d;
    ++s.intervals;
}

size_t Sampler::Impl::emit(uint64_t t, const std::vector<ThreadStack>& stacks, size_t count) {
    size_t emitted = 0;
    for (size_t i = 0; i < count; ++i) {
        const ThreadStack& st = stacks[i];
        // A thread state whose thread has not started yet has no native id and no
        // frames: it is not a thread to show (it made an empty "Thread-0").
        if (st.threadId == 0 && st.frames.empty()) continue;
        SampleBatch batch;
        batch.threadId = st.threadId;
        batch.interpreterId = st.interpreterId;
        batch.status = st.status;
        batch.frames = std::span<const FrameId>(st.frames.data(), st.frames.size());
        batch.timestampsUs = std::span<const uint64_t>(&t, 1);
        if (st.skipped) { // --mode keeps no sample of it; a live view shows its state
            sink.addSkipped(batch);
            continue;
        }
        ++emitted;
        sink.addBatch(batch);
    }
    return emitted;
}

void Sampler::Impl::begin(uint64_t startUs) {
    endUs = endOfRecordingUs(startUs, options.durationSec);
    s.startUs = startUs;
    s.lastTickUs = startUs;
    s.running = 1;
    next = startUs;
    // A group's samplers tick on one grid, so that they share the group's wake-ups
    // (100 a second for any number of processes at 100 Hz), not one wake-up each.
    if (options.group && options.intervalUs > 0)
        next = (startUs + options.intervalUs - 1) / options.intervalUs * options.intervalUs;
    nextCpuRefresh = startUs + kCpuRefreshUs;
}

void Sampler::Impl::run(uint64_t startUs) {
    // Timer slack: how late the kernel may wake us to batch wakeups. The default
    // (50 µs) is a whole tick at 20 kHz; a tenth of the interval keeps ticks on time
    // without forcing a precise (costly, on a VM) timer for every slow tick.
    const unsigned long slackNs = std::clamp<uint64_t>(options.intervalUs * 100, 1000, 50000);
    prctl(PR_SET_TIMERSLACK, slackNs, 0, 0, 0);
    if (options.realtimePriority > 0 && requestRealtimePriority(options.realtimePriority))
        waiter.forbidSpinning();
    else
        requestShortTimeSlice(kSliceHintUs);
    if (options.intervalUs >= TickWaiter::kSleepOnlyFromIntervalUs) waiter.forbidSpinning();
    begin(startUs);
    for (;;) {
        if (!sleepUntil(deadline())) {
            stopNow();
            break;
        }
        if (!step()) break;
    }
    end();
}

void Sampler::Impl::stopNow() {
    reason = StopReason::Requested;
    s.lastTickUs = std::max(s.lastTickUs, std::min(clock.nowUs(), endUs));
}

bool Sampler::Impl::step() {
    const uint64_t interval = options.intervalUs;
    try {
        if (next >= endUs) {
            reason = StopReason::Duration;
            s.lastTickUs = std::max(s.lastTickUs, std::min(clock.nowUs(), endUs));
            return false;
        }
        const uint64_t t = clock.nowUs();
        if (t >= endUs) {
            reason = StopReason::Duration;
            s.lastTickUs = endUs;
            return false;
        }
        errands.handOn(sink); // marked while on or off: the instant is the user's
        if (!enabled.load(std::memory_order_relaxed)) {
            // Off (--control disable): nothing is read, and a pause is no missed tick.
            const uint64_t passed = 1 + (t > next ? (t - next) / interval : 0);
            s.paused += passed;
            next += passed * interval;
            s.lastTickUs = t;
            pausedSinceTick = true;
            publisher.publish(s);
            return true;
        }
        // Behind by whole intervals: skip those ticks and count them, never burst.
        if (t - next >= interval) {
            const uint64_t skipped = (t - next) / interval;
            s.missed += skipped;
            next += skipped * interval;
        }
        size_t count = 0;
        const ReadOutcome outcome = source.read(stacks, count);
        if (outcome == ReadOutcome::ProcessEnded) {
            reason = StopReason::TargetExited;
            endReason = source.why();
            s.lastTickUs = std::max(s.lastTickUs, t);
            return false;
        }
        ++s.ticks;
        if (s.ticks > 1 && !pausedSinceTick) recordInterval(s, prevTick, t);
        pausedSinceTick = false;
        prevTick = t;
        window.add(t - s.startUs);
        if (outcome == ReadOutcome::Ok) {
            ++s.okTicks;
            s.threadSamples += emit(t, stacks, count);
            // Names are read off this thread, and change rarely: looked for at the first
            // tick (which starts that thread), every 8th after (a look touches that
            // thread's memory, a cost per process for the host agent), and at the end.
            if (s.okTicks == 1 || s.okTicks - namesAskedAt >= 8) handOnNames();
            // A sink that can no longer store samples (disk full, a failed write)
            // ends the recording now: what it holds so far can still be written.
            if (sink.failed()) {
                std::lock_guard lock(failureMutex);
                const Error e = sink.sinkError();
                failure = "recording stopped: " + e.message;
                failureKind = e.kind;
                reason = StopReason::SinkFailed;
                s.lastTickUs = t;
                publisher.publish(s);
                return false;
            }
        } else {
            ++s.errors;
        }
        s.torn = source.tornReads();
        s.waits = source.waitTally();
        next += interval;
        s.lastTickUs = t;
        s.windowTicks = window.ticks();
        s.windowSpanUs = window.spanUs(t - s.startUs);
        if (t >= nextCpuRefresh) {
            s.cpuUs = threadCpuUs();
            nextCpuRefresh = t + kCpuRefreshUs;
        }
        publisher.publish(s);
        return true;
    } catch (const std::exception& e) {
        std::lock_guard lock(failureMutex);
        failure = std::string("recording stopped: ") + e.what();
        reason = StopReason::SinkFailed;
        return false;
    }
}

void Sampler::Impl::handOnNames() {
    namesAskedAt = s.okTicks;
    if (source.takeThreadNames(names))
        for (const ThreadName& n : names)
            sink.nameThread(n.threadId, n.name);
}

void Sampler::Impl::end() {
    try {
        if (s.okTicks > 0 && !sink.failed()) handOnNames();
    } catch (const std::exception&) {
        // the names are a courtesy: the recording's end matters more
    }
    // Errands waiting run now, still on this thread; later ones are refused, so none
    // waits for a sampler that will not tick again.
    errands.handOn(sink);
    errands.close();
    s.cpuUs = threadCpuUs(); // a group's: the group thread's, shared by its samplers
    s.running = 0;
    finalStats = s;
    publisher.publish(s);
    {
        const std::lock_guard lock(endMutex);
        ended = true;
    }
    isRunning.store(false, std::memory_order_release);
    endCv.notify_all();
}

bool Sampler::tickInGroup(Impl& d, uint64_t nowUs, uint64_t& wakeUs) {
    if (d.stopRequested.load(std::memory_order_relaxed)) {
        endInGroup(d);
        return false;
    }
    if (nowUs >= d.deadline() && !d.step()) {
        d.end();
        return false;
    }
    wakeUs = std::min(wakeUs, d.deadline());
    return true;
}

void Sampler::endInGroup(Impl& d) {
    d.stopNow();
    d.end();
}

} // namespace gilscope
