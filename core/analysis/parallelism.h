#pragma once

#include "core/analysis/analysis_ids.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <vector>

namespace gilscope {

// How many threads ran Python at once, tick by tick, and (free-threaded) the pauses in
// which a stop-the-world request stopped them: why a program does not get faster with
// more threads. From the samples alone, so a `.bin` shows it as a live recording does.
//
// A tick is the samples of one instant (every thread of a tick shares its timestamp).
// In a tick, a thread
//   runs Python   holds the GIL, or (free-threaded) is attached, and is on a CPU;
//   wants to      also when it waits for the GIL or was stopped by a pause;
//   is stopped    free-threaded only: suspended by another thread's stop-the-world.
// The kernel does not tell a thread on a CPU from one ready to run and waiting for one,
// so the running count is capped at the CPUs the target may use (its affinity) when
// that is known: four attached threads on two cores run two at a time.
struct ParallelismSummary {
    uint64_t ticks = 0;
    uint32_t cpus = 0;    // the cap (0: not known, no cap)
    uint32_t ceiling = 0; // 1 under a GIL; the cpus (or the most threads seen) without one
    double meanRunning = 0, meanWanting = 0;
    uint32_t peakRunning = 0;
    std::vector<uint64_t> ticksByRunning; // [n]: ticks in which n threads ran Python
    uint64_t ticksAtCeiling = 0;
    // Samples of threads that ran or wanted to whose tick had been counted before they
    // came (a replay far out of time order): counted as ticks of their own.
    uint64_t lateSamples = 0;
};

// One stop-the-world pause as the samples saw it: the ticks in a row in which some thread
// was stopped, the thread still attached then (the one that asked: the GC, fork,
// sys._current_frames...) with the stack it asked from, and the thread-samples lost.
// Each tick stands for the time to the next one (at most two intervals: a tick the
// sampler missed on a busy machine leaves no hole), so lengths hold when ticks are missed.
struct StopTheWorldPause {
    uint64_t firstUs = 0, lastUs = 0; // the first and the last tick that saw it
    uint64_t ticks = 0;
    uint32_t maxStopped = 0;     // the most threads stopped in one of its ticks
    uint64_t stoppedSamples = 0; // thread-samples stopped
    uint64_t durationUs = 0;     // the time its ticks stand for
    uint64_t lostUs = 0;         // threads stopped x the time each tick stands for
    std::optional<ThreadIndex> requester;
    StackId requesterStack{0};
};

// One tick as counted: threads running Python (capped at the CPUs), wanting to, stopped.
struct TickCounts {
    uint32_t running = 0, wanting = 0, stopped = 0;
};

// Ticks summed over a span of time (a timeline's bucket, an export's window): the ticks,
// and the threads that ran Python, wanted to, and were stopped, over them. running / ticks
// is how many ran at once there.
struct ParallelBucket {
    uint32_t ticks = 0;
    uint32_t running = 0, wanting = 0, stopped = 0;
    void add(const TickCounts& c) {
        ++ticks;
        running += c.running;
        wanting += c.wanting;
        stopped += c.stopped;
    }
    void merge(const ParallelBucket& o) {
        ticks += o.ticks;
        running += o.running;
        wanting += o.wanting;
        stopped += o.stopped;
    }
};

class ParallelismTally {
public:
    // Ticks held back for samples that come out of order, before they are counted: a
    // replayed .bin gives each thread's runs of identical samples whole, so one thread's
    // next minute can come before another's (65,536 ticks: a minute at 1 kHz, ~4 MB).
    static constexpr size_t kReorderTicks = 65536;

    // `freeThreaded`: the GIL bits say attached and suspended (thread_status.h), and
    // suspended samples make pauses; under a GIL they are GIL waits. A live view holds
    // fewer ticks back (`reorderTicks`): its samples come in order, and it shows them soon.
    ParallelismTally(uint32_t cpus, bool freeThreaded, uint64_t intervalUs,
                     size_t reorderTicks = kReorderTicks)
        : cpus_(cpus), freeThreaded_(freeThreaded), intervalUs_(std::max<uint64_t>(intervalUs, 1)),
          reorderTicks_(reorderTicks) {}

    // Called for every tick as it is counted, in time order (the timeline's buckets).
    using TickSink = std::function<void(uint64_t timeUs, const TickCounts& counts)>;
    void setTickSink(TickSink sink) { tickSink_ = std::move(sink); }

    // One thread-sample (compact status, as the model stores it), nearly in time order.
    void add(uint64_t timeUs, uint8_t compactStatus, ThreadIndex thread, StackId stack);
    // Counts the ticks still held back; call once, after the last add.
    void finish();

    ParallelismSummary summary() const;
    const std::vector<StopTheWorldPause>& pauses() const { return pauses_; }

private:
    struct Tick {
        uint32_t running = 0, wanting = 0, stopped = 0, attached = 0;
        std::optional<ThreadIndex> attachedThread;
        StackId attachedStack{0};
    };
    void count(uint64_t timeUs, const Tick& tick);
    void endPauseTick(uint64_t nextUs); // gives the last pause tick its time

    uint32_t cpus_;
    bool freeThreaded_;
    uint64_t intervalUs_;
    size_t reorderTicks_;
    TickSink tickSink_;
    std::map<uint64_t, Tick> open_;           // ticks not yet counted, by time
    std::map<uint64_t, Tick>::iterator last_; // the tick the last sample went to
    bool haveLast_ = false;
    uint64_t countedUpTo_ = 0; // the latest tick counted
    bool anyCounted_ = false;
    uint64_t ticks_ = 0, runningSum_ = 0, wantingSum_ = 0, lateSamples_ = 0;
    uint32_t peak_ = 0, mostWanting_ = 0;
    std::vector<uint64_t> byRunning_;
    std::vector<StopTheWorldPause> pauses_;
    bool inPause_ = false;
    // The last tick counted, if it was in a pause: its time and threads stopped, whose
    // length the next tick tells.
    bool pauseTickOpen_ = false;
    uint64_t pauseTickUs_ = 0;
    uint32_t pauseTickStopped_ = 0;
};

} // namespace gilscope
