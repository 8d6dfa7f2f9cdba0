// Ingest: CPython GeckoCollector.collect() for one SampleBatch (one thread, one status,
// one or more timestamps), including the §2.6 marker state machine.

#include "core/gecko/gecko_collector_impl.h"
#include "core/gecko/opcode_names.h"
#include "core/sample/sample_label.h"
#include "core/sample/thread_status.h"
#include "core/sample/wait_reason.h"
#include "core/util/file_name.h"
#include "core/util/utf8.h"

#include <algorithm>
#include <cstring>

namespace gilscope {

namespace {

// How many frames, counted from the root (the end of both leaf-first lists), two
// stacks share. Compared four ids at a time: stacks are deep and mostly differ near
// the leaf only.
size_t commonRootDepth(std::span<const FrameId> a, const std::vector<FrameId>& b) {
    const size_t limit = std::min(a.size(), b.size());
    const FrameId* ea = a.data() + a.size();
    const FrameId* eb = b.data() + b.size();
    size_t common = 0;
    while (common + 4 <= limit &&
           std::memcmp(ea - common - 4, eb - common - 4, 4 * sizeof(FrameId)) == 0)
        common += 4;
    while (common < limit &&
           ea[-1 - static_cast<ptrdiff_t>(common)] == eb[-1 - static_cast<ptrdiff_t>(common)])
        ++common;
    return common;
}

struct FrameScan {
    bool same = false; // identical to the thread's previous stack
    bool hasGc = false;
    int32_t leaf = -1; // innermost unfiltered registry frame, -1 when none
};

} // namespace

void GeckoCollector::Impl::fail(Error e) {
    if (!misuse) misuse = std::move(e);
}

void GeckoCollector::Impl::spillFailed(Error e) {
    if (!spillError) spillError = std::move(e);
}

void GeckoCollector::Impl::addBatch(const SampleBatch& batch) {
    if (exportStarted) {
        fail(makeError(ErrorKind::Internal,
                       "cannot add samples to the Gecko collector after export"));
        return;
    }
    if (!registry) {
        fail(makeError(ErrorKind::Internal, "the Gecko collector got samples before begin()"));
        return;
    }
    if (batch.timestampsUs.empty()) return;
    if (tally) {
        const uint8_t compact = compactStatus(batch.status);
        for (uint64_t ts : batch.timestampsUs)
            tally->add(ts, compact, ThreadIndex{0}, StackId{0});
    }
    if (!haveBase) {
        haveBase = true;
        baseUs = batch.timestampsUs.front();
    }
    // Python: (ts - base) / 1000, an exact integer difference then one rounding.
    const auto toMs = [this](uint64_t ts) {
        return static_cast<double>(static_cast<int64_t>(ts - baseUs)) / 1000.0;
    };
    const double firstTime = toMs(batch.timestampsUs.front());
    const double lastTime =
        batch.timestampsUs.size() == 1 ? firstTime : toMs(batch.timestampsUs.back());
    // CPython recomputes interval = (last - previous last) / count on every call; only
    // the last such value can survive, so keep its operands and divide at export.
    if (sampleCount > 0 && lastSampleTime > 0) {
        intervalSpan = lastTime - lastSampleTime;
        intervalCount = sampleCount;
    }
    lastSampleTime = lastTime;

    GeckoThread* th = threadFor(batch.threadId, (batch.status & ThreadStatus::MainThread) != 0);
    if (!th) return;

    // Frames shared with the previous stack from the root up need no new lookups.
    const auto frames = batch.frames;
    const size_t n = frames.size();
    const size_t prev = th->lastFrames.size();
    const size_t common = commonRootDepth(frames, th->lastFrames);

    // A look at the changed part of the stack (no interning yet: string order must follow
    // CPython's, where state-machine markers come before the stack's new functions).
    FrameScan scan;
    scan.same = common == n && n == prev;
    if (scan.same) {
        scan.hasGc = th->lastHasGc;
        scan.leaf = th->lastLeaf;
    } else {
        scan.hasGc = common ? th->chainGc[common - 1] : false;
        int32_t leaf = -1;
        for (size_t i = 0; i + common < n; ++i) {
            const FrameFacts& f = facts.frame(*registry, frames[i]);
            if (f.filtered) continue;
            if (leaf < 0) leaf = static_cast<int32_t>(frames[i].value());
            scan.hasGc |= f.isGc;
        }
        scan.leaf = leaf >= 0 ? leaf : (common ? th->chainLeaf[common - 1] : -1);
    }

    // Times never go back within one thread (see docs/gecko-differences.md).
    const double t0 = th->hasTime ? std::max(firstTime, th->lastTime) : firstTime;
    runStateMachine(*th, batch.status, scan.hasGc, t0);
    if (!scan.same) trackLabels(*th, frames, t0); // the same stack has the same labels
    th->lastTime = t0;
    th->hasTime = true;

    if (scan.leaf >= 0) {
        int32_t stack = th->lastStack;
        if (!scan.same) {
            stack = stackFor(*th, frames, common);
            th->lastHasGc = scan.hasGc;
            th->lastLeaf = scan.leaf;
        }
        const bool single = batch.timestampsUs.size() == 1;
        for (uint64_t ts : batch.timestampsUs) {
            const double t = std::max(single ? firstTime : toMs(ts), th->lastTime);
            th->lastTime = t;
            Status s = th->appendSample(stack, t);
            if (!s.ok()) spillFailed(s.error());
        }
        if (opt.opcodes) trackOpcode(*th, t0);
    }
    sampleCount += batch.timestampsUs.size();
}

GeckoThread* GeckoCollector::Impl::threadFor(uint64_t tid, bool isMain) {
    if (lastThread && lastThread->tid == tid) return lastThread;
    if (threads.size() <= 8) { // a linear scan beats hashing for a few threads
        for (auto& t : threads)
            if (t->tid == tid) return lastThread = t.get();
    }
    auto it = threadIndex.find(tid);
    if (it != threadIndex.end()) return lastThread = threads[it->second].get();
    if (!spill) {
        auto dir = TempDir::create(temp_prefix::kGeckoSpill);
        if (dir.ok()) {
            spillDir = std::move(dir.value());
            spill = std::make_unique<SpillStore>(spillDir.path() / "spill.bin");
        } else {
            // No spill at all: the samples stay in memory and the recording stops.
            spill = std::make_unique<SpillStore>(dir.error());
            spillFailed(dir.error());
        }
    }
    threads.push_back(
        std::make_unique<GeckoThread>(spill.get(), tid, isMain, opt.spillBufferBytes));
    threadIndex.emplace(tid, static_cast<uint32_t>(threads.size() - 1));
    return lastThread = threads.back().get();
}

int32_t GeckoCollector::Impl::stackFor(GeckoThread& th, std::span<const FrameId> frames,
                                       size_t common) {
    // Depths below `common` (from the root) are unchanged since the previous stack and
    // keep their stack indices; only the rest is looked up.
    const size_t n = frames.size();
    th.lastChain.resize(n);
    th.chainGc.resize(n);
    th.chainLeaf.resize(n);
    int32_t prefix = common ? th.lastChain[common - 1] : -1;
    bool gc = common ? th.chainGc[common - 1] : false;
    int32_t leaf = common ? th.chainLeaf[common - 1] : -1;
    for (size_t i = common; i < n; ++i) {
        const FrameId id = frames[n - 1 - i];
        const FrameFacts& f = facts.frame(*registry, id);
        if (!f.filtered) {
            const uint32_t frame = frameFor(th, id, f);
            const uint64_t key =
                (static_cast<uint64_t>(frame) << 32) | static_cast<uint32_t>(prefix + 1);
            auto [index, inserted] =
                th.stackIndex.tryEmplace(key, static_cast<uint32_t>(th.stackFrame.size()));
            if (inserted) {
                th.stackFrame.push_back(frame);
                th.stackPrefix.push_back(prefix);
                th.stackCategory.push_back(f.category);
            }
            prefix = static_cast<int32_t>(index);
            gc |= f.isGc;
            leaf = static_cast<int32_t>(id.value());
        }
        th.lastChain[i] = prefix;
        th.chainGc[i] = gc;
        th.chainLeaf[i] = leaf;
    }
    th.lastFrames.assign(frames.begin(), frames.end());
    th.lastStack = prefix;
    return prefix;
}

uint32_t GeckoCollector::Impl::frameFor(GeckoThread& th, FrameId id, const FrameFacts& f) {
    if (th.localFrame.contains(id) && th.localFrame[id] != 0) return th.localFrame[id] - 1;
    const uint32_t func = funcFor(th, f);
    auto [it, inserted] = th.frameIndex.try_emplace(FrameKey{func, f.column, f.line},
                                                    static_cast<uint32_t>(th.frameFunc.size()));
    if (inserted) {
        th.frameFunc.push_back(func);
        th.frameCategory.push_back(th.funcIsJs[func] ? 1 : 2);
        th.frameLine.push_back(f.line == 0 ? kNullLine : f.line); // Python: lineno or None
        th.frameColumn.push_back(f.column);
    }
    th.localFrame.cover(id, 0) = it->second + 1;
    return it->second;
}

uint32_t GeckoCollector::Impl::funcFor(GeckoThread& th, const FrameFacts& f) {
    const uint64_t key = (static_cast<uint64_t>(f.file) << 32) | f.func;
    auto found = th.funcIndex.find(key);
    if (found != th.funcIndex.end()) return found->second;
    // Interning order as CPython: funcname, resource name, basename.
    const uint32_t name = strings.intern(facts.text(f.func));
    const std::string_view file = facts.text(f.file);
    auto [res, newResource] =
        th.resourceIndex.try_emplace(f.file, static_cast<uint32_t>(th.resourceName.size()));
    if (newResource) {
        th.resourceName.push_back(strings.intern(fileName(file)));
        int64_t lib = -1;
        if (f.native) { // a C function's resource is its library, as Firefox's own are
            auto [it, newLib] = libIndex.try_emplace(f.file, static_cast<uint32_t>(libs.size()));
            if (newLib) libs.push_back(f.file);
            lib = it->second;
        }
        th.resourceLib.push_back(lib);
    }
    const auto idx = static_cast<uint32_t>(th.funcName.size());
    th.funcName.push_back(name);
    th.funcIsJs.push_back(f.isPython);
    th.funcResource.push_back(res->second);
    th.funcFileName.push_back(f.isPython ? static_cast<int64_t>(strings.intern(fileName(file)))
                                         : -1);
    th.funcLine.push_back(f.isPython ? f.line : kNullLine);
    th.funcIndex.emplace(key, idx);
    return idx;
}

void GeckoCollector::Impl::trackOpcode(GeckoThread& th, double firstTime) {
    const FrameFacts& leaf = facts.frame(*registry, FrameId{static_cast<uint32_t>(th.lastLeaf)});
    OpcodeState& st = th.opcode;
    const bool same = st.present && st.opcode == leaf.opcode && st.line == leaf.line &&
                      st.column == leaf.column && st.func == leaf.func && st.file == leaf.file;
    if (same) return;
    if (st.present)
        emitOpcodeMarker(th, st, firstTime);
    else
        st.seq = ++seq; // a Python dict keeps a key's first insertion position
    st.present = true;
    st.opcode = leaf.opcode;
    st.line = leaf.line;
    st.column = leaf.column;
    st.func = leaf.func;
    st.file = leaf.file;
    st.functionName = strings.intern(facts.text(leaf.func)); // already interned by funcFor
    st.start = firstTime;
}

void GeckoCollector::Impl::trackLabels(GeckoThread& th, std::span<const FrameId> frames, double t) {
    // Labels are the outermost frames: read from the root until a frame is none.
    std::vector<SampleLabel> now;
    for (size_t i = frames.size(); i-- > 0;) {
        if (!registry->has(frames[i])) break;
        const FrameInfo& f = registry->frame(frames[i]);
        const auto label = labelOfFrame(registry->string(f.filename), registry->string(f.funcname));
        if (!label) break;
        now.push_back(*label);
    }
    if (now.empty() && th.labels.empty()) return;
    const auto valueOf = [&now](std::string_view key) -> std::optional<std::string_view> {
        for (const SampleLabel& l : now)
            if (l.key == key) return l.value;
        return std::nullopt;
    };
    // A run ends where its key is gone or has another value.
    std::erase_if(th.labels, [&](const OpenLabel& open) {
        const auto value = valueOf(open.key);
        if (value && *value == open.value) return false;
        emitLabelMarker(th, open, t);
        return true;
    });
    for (const SampleLabel& l : now) {
        const bool running = std::any_of(th.labels.begin(), th.labels.end(),
                                         [&](const OpenLabel& open) { return open.key == l.key; });
        if (!running) th.labels.push_back({std::string(l.key), std::string(l.value), t});
    }
}

void GeckoCollector::Impl::emitLabelMarker(GeckoThread& th, const OpenLabel& label, double end) {
    MarkerRecord rec;
    rec.kind = kLabelMarker;
    rec.function = strings.intern(sanitizeUtf8(label.value)); // the target's bytes
    rec.duration = end - label.start;
    Status s = th.appendMarker(strings.intern(label.key), label.start, end, 0, rec);
    if (!s.ok()) spillFailed(s.error());
    wroteLabels = true;
}

void GeckoCollector::Impl::emitOpcodeMarker(GeckoThread& th, const OpcodeState& st, double end) {
    if (st.opcode == kNoOpcode) return; // None opcodes are tracked, never shown
    const uint32_t name = strings.intern(formatOpcode(st.opcode, pythonMinor));
    MarkerRecord rec;
    rec.kind = kOpcodeMarker;
    rec.opcode = st.opcode;
    rec.column = st.column;
    rec.function = st.functionName;
    rec.line = st.line;
    rec.duration = end - st.start;
    Status s = th.appendMarker(name, st.start, end, 7, rec);
    if (!s.ok()) spillFailed(s.error());
}

} // namespace gilscope
