#include "core/native/stack_merge.h"

#include <algorithm>
#include <cstdio>

namespace gilscope::native {

namespace {

using Run = std::pair<size_t, size_t>; // [begin, end) in the Python frames

bool pythonRuns(const MergeInput& in, const MergeOptions& o, std::vector<Run>& runs,
                std::string& why) {
    runs.clear();
    if (o.runs == PythonRuns::OnePerFrame) {
        const size_t lead = std::min(in.syntheticLeaf, in.python.size());
        for (size_t i = lead; i < in.python.size(); ++i)
            runs.emplace_back(runs.empty() ? 0 : i, i + 1);
        if (runs.empty() && !in.python.empty()) runs.emplace_back(0, in.python.size());
        return true;
    }
    size_t begin = 0;
    for (const EvalEntry& e : in.entries) {
        if (e.end < begin || e.end > in.python.size()) {
            why = "eval-loop entries out of order (torn read)";
            return false;
        }
        runs.emplace_back(begin, e.end);
        begin = e.end;
    }
    if (begin != in.python.size()) {
        why = "Python frames below the outermost eval-loop entry";
        return false;
    }
    return true;
}

constexpr size_t kNowhere = SIZE_MAX;

// The native frame at or after `from` whose stack range [its SP, its caller's SP) holds
// address a, if that frame can be an eval loop: named so, or unnamed code of the
// interpreter's module (a stripped interpreter). Any other frame there means the stacks
// do not pair (the Python stack was read where the sample had other C frames).
size_t evalFrameHolding(const MergeInput& in, uint64_t a, size_t from, StringId interpreter,
                        const FrameRegistry& registry) {
    for (size_t i = from; i + 1 < in.native.size(); ++i) {
        if (!(in.native[i].sp <= a && a < in.native[i + 1].sp)) continue;
        const NativeSymbol& s = in.native[i].symbol;
        const bool canEval = s.kind == NativeKind::Eval ||
                             (!s.named && registry.frame(s.frame).filename == interpreter);
        return canEval ? i : kNowhere;
    }
    return kNowhere;
}

// Pairs runs [first, runs) with the eval loops holding their entry frames, in order
// (evalOf[i]: the run native frame i runs, or -1). Returns the first run that lies in no
// eval loop, or kNowhere.
size_t pairRunsByAddress(const MergeInput& in, size_t first, size_t runs, StringId interpreter,
                         const FrameRegistry& registry, std::vector<int>& evalOf) {
    size_t from = 0;
    for (size_t k = first; k < runs; ++k) {
        const size_t i = evalFrameHolding(in, in.entries[k].address, from, interpreter, registry);
        if (i == kNowhere) return k;
        evalOf[i] = int(k);
        from = i + 1;
    }
    return kNowhere;
}

// Every eval loop (by name) on the native stack runs a run of Python frames.
bool everyEvalLoopRuns(const MergeInput& in, const std::vector<int>& evalOf) {
    for (size_t i = 0; i < in.native.size(); ++i)
        if (evalOf[i] < 0 && in.native[i].symbol.kind == NativeKind::Eval) return false;
    return true;
}

bool pairByAddress(const MergeInput& in, const std::vector<Run>& runs, StringId interpreter,
                   const FrameRegistry& registry, std::vector<int>& evalOf, std::string& why) {
    if (const size_t k = pairRunsByAddress(in, 0, runs.size(), interpreter, registry, evalOf);
        k != kNowhere) {
        char buf[160];
        std::snprintf(buf, sizeof buf,
                      "the entry frame 0x%llx of Python run %zu lies in no eval loop",
                      static_cast<unsigned long long>(in.entries[k].address), k);
        why = buf;
        return false;
    }
    if (!everyEvalLoopRuns(in, evalOf)) {
        why = "an eval loop on the native stack runs no Python frames";
        return false;
    }
    return true;
}

// pairByAddress's exception (see mergeStacks): runs 1.. by address, run 0 by its caller.
bool pairInnermostByCaller(const MergeInput& in, const std::vector<Run>& runs, StringId interpreter,
                           const FrameRegistry& registry, std::vector<int>& evalOf) {
    std::fill(evalOf.begin(), evalOf.end(), -1);
    if (pairRunsByAddress(in, 1, runs.size(), interpreter, registry, evalOf) != kNowhere)
        return false;
    const size_t outerFrame = size_t(std::find(evalOf.begin(), evalOf.end(), 1) - evalOf.begin());
    int innermost = -1; // the one eval loop leafward of the outer runs (by name only)
    for (size_t i = 0; i < outerFrame; ++i)
        if (in.native[i].symbol.kind == NativeKind::Eval) {
            if (innermost >= 0) return false;
            innermost = int(i);
        }
    const uint64_t caller = in.entries[0].previous;
    if (innermost < 0 || caller == 0) return false;
    for (const SampledEntry& s : in.sampled)
        if (s.frame == size_t(innermost) && s.previous == caller) {
            evalOf[size_t(innermost)] = 0;
            return everyEvalLoopRuns(in, evalOf);
        }
    return false;
}

// An entry frame this far beyond the sample's leaf is no C local of this thread's stack.
constexpr uint64_t kMaxBeyondLeaf = 8u << 20;

// pairByAddress's second exception (see mergeStacks): runs 1.. by address, run 0 begun
// after the sample.
bool innermostBegunAfter(const MergeInput& in, const std::vector<Run>& runs, StringId interpreter,
                         const FrameRegistry& registry, std::vector<int>& evalOf) {
    if (runs.size() < 2 || in.native.empty()) return false;
    std::fill(evalOf.begin(), evalOf.end(), -1);
    if (pairRunsByAddress(in, 1, runs.size(), interpreter, registry, evalOf) != kNowhere)
        return false;
    const size_t outerFrame = size_t(std::find(evalOf.begin(), evalOf.end(), 1) - evalOf.begin());
    // The run was called from the outer run's eval loop, so its entry frame lies leafward
    // of that loop's frame, on this stack: else the read is not of this stack.
    const uint64_t entry = in.entries[0].address, leafSp = in.native[0].sp;
    if (entry >= in.native[outerFrame].sp || (entry < leafSp && leafSp - entry > kMaxBeyondLeaf))
        return false;
    for (size_t i = 0; i < outerFrame; ++i) {
        const NativeSymbol& s = in.native[i].symbol;
        if (s.kind == NativeKind::Eval ||
            (!s.named && registry.frame(s.frame).filename == interpreter))
            return false; // maybe another callback's eval loop, whose frames the read lacks
    }
    return everyEvalLoopRuns(in, evalOf);
}

bool pairByName(const MergeInput& in, const std::vector<Run>& runs, std::vector<int>& evalOf,
                std::string& why) {
    size_t k = 0;
    for (size_t i = 0; i < in.native.size(); ++i)
        if (in.native[i].symbol.kind == NativeKind::Eval) {
            if (k < runs.size()) evalOf[i] = int(k);
            ++k;
        }
    if (k != runs.size()) {
        why = "the native stack has " + std::to_string(k) + " eval loops for " +
              std::to_string(runs.size()) + " runs of Python frames";
        return false;
    }
    return true;
}

} // namespace

bool mergeStacks(const MergeInput& in, const MergeOptions& options, const FrameRegistry& registry,
                 std::vector<FrameId>& out, std::string& why, MergeHow* how) {
    if (how) *how = MergeHow::Exact;
    out.clear();
    std::vector<Run> runs;
    if (!pythonRuns(in, options, runs, why)) return false;
    // A run with no Python frame: the read caught an eval loop entering or leaving its
    // frames. At the sample's instant, earlier, the same loop may still have run them, so
    // pairing it would show that loop's C frames under no Python: not paired.
    if (in.readAfterSample)
        for (const Run& r : runs)
            if (r.first == r.second) {
                why = "a run of Python frames was empty at the read (an eval loop entering or "
                      "leaving)";
                return false;
            }
    std::vector<int> evalOf(in.native.size(), -1);
    // The interpreter's module: where its eval loop and call machinery are (by name). Its
    // unnamed code may be a stripped eval loop, and is plumbing.
    StringId interpreter = options.interpreter;
    for (size_t i = 0; i < in.native.size() && interpreter == kNoString; ++i)
        if (in.native[i].symbol.kind != NativeKind::Code)
            interpreter = registry.frame(in.native[i].symbol.frame).filename;
    bool byAddress = options.runs == PythonRuns::Entries && !runs.empty();
    for (const EvalEntry& e : in.entries)
        byAddress = byAddress && e.address != 0;
    if (byAddress && !pairByAddress(in, runs, interpreter, registry, evalOf, why)) {
        if (!in.readAfterSample) return false;
        if (!in.sampled.empty() && pairInnermostByCaller(in, runs, interpreter, registry, evalOf)) {
            if (how) *how = MergeHow::ByCaller;
        } else if (innermostBegunAfter(in, runs, interpreter, registry, evalOf)) {
            if (how) *how = MergeHow::BeforeInnermost;
            runs.erase(runs.begin());
            for (int& k : evalOf)
                k -= k > 0;
        } else {
            return false;
        }
    } else if (!byAddress && !pairByName(in, runs, evalOf, why)) {
        return false;
    }
    size_t done = 0; // runs placed so far
    for (size_t i = 0; i < in.native.size(); ++i) {
        const NativeSymbol& s = in.native[i].symbol;
        if (evalOf[i] >= 0) {
            const Run& r = runs[size_t(evalOf[i])];
            for (size_t p = r.first; p < r.second; ++p)
                out.push_back(in.python[p]);
            ++done;
            if (options.all) out.push_back(s.frame);
            continue;
        }
        if (options.all) {
            out.push_back(s.frame);
            continue;
        }
        const bool belowPython = !runs.empty() && done == runs.size();
        const bool plumbing = s.kind != NativeKind::Code ||
                              (!s.named && registry.frame(s.frame).filename == interpreter);
        if (!belowPython && !plumbing) out.push_back(s.frame);
    }
    return true;
}

} // namespace gilscope::native
