// The interpreter states: one window read of each (its GIL, its thread list, its GC
// flag), where its main thread is, and each of its threads read in turn.
#include "core/remote/live_process_reader.h"

#include "core/remote/struct_view.h"
#include "core/sample/thread_status.h"

namespace gilscope::remote {

namespace {

constexpr uint64_t kMaxWindow = 64 << 10;

} // namespace

void LiveProcessReader::Window::include(uint64_t off, uint64_t width) {
    if (off == kAbsent) return;
    const uint64_t newLo = empty() ? off : std::min(lo, off);
    const uint64_t newHi = empty() ? off + width : std::max(hi, off + width);
    if (newHi - newLo > kMaxWindow) return; // a far-away optional field is not worth it
    lo = newLo;
    hi = newHi;
    bytes.resize(hi - lo);
}

uint64_t LiveProcessReader::Window::u64(uint64_t off) const {
    return off == kAbsent || off < lo ? 0 : StructView(bytes).field<uint64_t>(off - lo);
}

int32_t LiveProcessReader::Window::i32(uint64_t off) const {
    return off == kAbsent || off < lo ? 0 : StructView(bytes).field<int32_t>(off - lo);
}

bool LiveProcessReader::readInterp(uint64_t addr, InterpState& s) {
    if (!mem_.read(addr + interpWin_.lo, interpWin_.bytes.data(), interpWin_.bytes.size()))
        return false;
    s = decodeInterp(addr);
    return true;
}

LiveProcessReader::InterpState LiveProcessReader::decodeInterp(uint64_t addr) {
    InterpState s;
    s.addr = addr;
    s.id = static_cast<uint32_t>(interpWin_.u64(layout_.inId));
    s.next = interpWin_.u64(layout_.inNext);
    s.threadsHead = interpWin_.u64(layout_.inThreadsHead);
    s.threadsMain = interpWin_.u64(layout_.inThreadsMain);
    // Who holds the GIL: <= 3.11 one GIL in the runtime; 3.12 the interpreter's ceval.gil
    // pointer (usually its own _gil); 3.13/3.14 the interpreter's _gil.
    constexpr uint64_t kSwitches =
        PythonLayout::kGilSwitchesInStruct - PythonLayout::kGilHolderInStruct;
    // The GIL's switch counter, when the window holds it (UnchangedStacks).
    auto switchesFrom = [&s](const Window& w, uint64_t holderOff) {
        if (holderOff == kAbsent || !w.has(holderOff + kSwitches, 8)) return;
        s.gilSwitches = w.u64(holderOff + kSwitches);
        s.gilSwitchesKnown = true;
    };
    if (layout_.rtGilLocked != kAbsent) {
        s.gilLocked = runtimeWin_.i32(layout_.rtGilLocked) == 1;
        s.gilHolder = runtimeWin_.u64(layout_.rtGilHolder);
        s.gilStruct = loc_.runtimeAddr + layout_.rtGilHolder - PythonLayout::kGilHolderInStruct;
        switchesFrom(runtimeWin_, layout_.rtGilHolder);
    } else if (layout_.inGilPointer != kAbsent) {
        const uint64_t gil = interpWin_.u64(layout_.inGilPointer);
        if (plausibleAddress(gil)) s.gilStruct = gil;
        if (gil == addr + layout_.inOwnGil) {
            s.gilLocked = interpWin_.i32(layout_.inGilLocked) == 1;
            s.gilHolder = interpWin_.u64(layout_.inGilHolder);
            switchesFrom(interpWin_, layout_.inGilHolder);
        } else if (plausibleAddress(gil)) {
            // Another interpreter's GIL (a subinterpreter sharing the main one's).
            constexpr uint64_t kHolder = PythonLayout::kGilHolderInStruct;
            constexpr uint64_t kLocked = PythonLayout::kGilLockedInStruct;
            constexpr uint64_t kCount = PythonLayout::kGilSwitchesInStruct;
            uint8_t g[kCount + 8];
            if (mem_.read(gil, g, sizeof g)) {
                s.gilHolder = StructView(g, sizeof g).field<uint64_t>(kHolder);
                s.gilLocked = StructView(g, sizeof g).field<int32_t>(kLocked) == 1;
                s.gilSwitches = StructView(g, sizeof g).field<uint64_t>(kCount);
                s.gilSwitchesKnown = true;
            }
        }
    } else if (layout_.inGilLocked != kAbsent) {
        s.gilLocked = interpWin_.i32(layout_.inGilLocked) == 1;
        s.gilHolder = interpWin_.u64(layout_.inGilHolder);
        s.gilStruct = addr + layout_.inGilHolder - PythonLayout::kGilHolderInStruct;
        switchesFrom(interpWin_, layout_.inGilHolder);
    }
    s.gcRunning = layout_.rtGcCollecting != kAbsent ? runtimeWin_.i32(layout_.rtGcCollecting) != 0
                                                    : interpWin_.i32(layout_.inGcCollecting) != 0;
    return s;
}

uint64_t LiveProcessReader::findMainTstate(const InterpState& s) {
    if (layout_.inThreadsMain != kAbsent) {
        if (s.threadsMain) return s.threadsMain;
        // 3.13+ set threads.main only when the main module starts to run: before (site,
        // sitecustomize, `run`'s start-up hook) the main thread is the process's first
        // one, whose native id is the pid.
        uint64_t t = s.threadsHead;
        for (size_t i = 0; t && i < kMaxThreads; ++i) {
            if (!plausibleAddress(t) || !mem_.read(t, tstate_.data(), tstateRead_)) return 0;
            tstateValid_ = true;
            tstateAddr_ = t;
            if (StructView(tstate_).field<uint64_t>(layout_.tsNativeThreadId) == uint64_t(pid_))
                return t;
            t = StructView(tstate_).field<uint64_t>(layout_.tsNext);
        }
        return 0;
    }
    // <= 3.12: the main thread is the one whose pthread id is _PyRuntime.main_thread.
    // Check last time's answer first (it is in the batch read), then walk the list.
    if (tstateValid_ && StructView(tstate_).field<uint64_t>(layout_.tsThreadId) == mainThreadId_ &&
        StructView(tstate_).field<uint64_t>(layout_.tsInterp) == s.addr)
        return tstateAddr_;
    uint64_t t = s.threadsHead;
    for (size_t i = 0; t && i < kMaxThreads; ++i) {
        if (!plausibleAddress(t) || !mem_.read(t, tstate_.data(), tstateRead_)) return 0;
        tstateValid_ = true;
        tstateAddr_ = t;
        if (StructView(tstate_).field<uint64_t>(layout_.tsThreadId) == mainThreadId_) return t;
        t = StructView(tstate_).field<uint64_t>(layout_.tsNext);
    }
    return 0;
}

ReadOutcome LiveProcessReader::readInterpreter(const InterpState& s, bool isMain,
                                               std::vector<ThreadStack>& out, size_t& count) {
    auto nextSlot = [&]() -> ThreadStack& {
        if (count == out.size()) out.emplace_back();
        return out[count];
    };
    if (isMain) unchanged_.beginSample({s.gilSwitches, s.gilHolder, s.gilSwitchesKnown});
    if (!options_.allThreads) {
        const uint64_t t = findMainTstate(s);
        if (!t) return fail("cannot find the main thread");
        predictedTstate_ = t;
        if (!readThread(s, t, true, nextSlot())) return fail(why_);
        if (!skipped_ || options_.reportSkipped) ++count;
        return ReadOutcome::Ok;
    }
    uint64_t t = s.threadsHead;
    bool sawMain = false;
    for (size_t i = 0; t && i < kMaxThreads; ++i) {
        ThreadStack& stack = nextSlot();
        if (!readThread(s, t, isMain, stack)) return fail(why_);
        sawMain = sawMain || (stack.status & ThreadStatus::MainThread);
        if (!skipped_ || options_.reportSkipped) ++count;
        t = StructView(tstate_).field<uint64_t>(layout_.tsNext);
    }
    // The main thread lives as long as the interpreter: a walk that missed it followed a
    // stale `next` of a thread that was exiting, and may have missed others too.
    if (isMain && !sawMain) return fail("the thread list changed while reading");
    return ReadOutcome::Ok;
}

} // namespace gilscope::remote
