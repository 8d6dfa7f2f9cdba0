// Call-tree transforms (core/analysis/call_transforms): each gives the tree written out by
// hand on small recordings, and the same stacks as a plain per-stack recomputation on
// random ones; transforms compose in order, and every view built from the snapshot
// (function table, trees) sees the reshaped stacks.
#include "core/analysis/call_transforms.h"
#include "core/analysis/profile_model.h"
#include "core/analysis/profile_views.h"
#include "core/sample/thread_status.h"
#include "tests/support/synthetic_feed.h"

#include <QTest>

#include <algorithm>
#include <map>
#include <random>

using namespace gilscope;
using gilscope::test::SyntheticFeed;

namespace {

using Stack = std::vector<std::string>;         // function names, root first
using Stacks = std::map<std::string, uint64_t>; // "a;b;c" -> samples

const char* const kApp = "/srv/app/m.py";
const char* const kDjangoCore = "/venv/lib/python3.12/site-packages/django/core.py";
const char* const kDjangoViews = "/venv/lib/python3.12/site-packages/django/views.py";
const char* const kRequests = "/venv/lib/python3.12/site-packages/requests/api.py";
const char* const kAsyncio = "/usr/lib/python3.12/asyncio/events.py";

std::string fileOf(const std::string& func) {
    if (func.starts_with("dj")) return func == "djv" ? kDjangoViews : kDjangoCore;
    if (func.starts_with("rq")) return kRequests;
    if (func.starts_with("aio")) return kAsyncio;
    return kApp;
}

std::string join(const Stack& s) {
    std::string out;
    for (const std::string& f : s)
        out += (out.empty() ? "" : ";") + f;
    return out;
}

// A recording of these stacks (each sample at one of two lines per function, so the
// line-keyed nodes differ where the function-keyed paths do not).
std::shared_ptr<const ProfileSnapshot> record(const std::vector<std::pair<Stack, uint64_t>>& in,
                                              uint32_t seed = 1) {
    ProfileModel model;
    SyntheticFeed feed(model);
    std::mt19937 rng(seed);
    uint64_t t = 1000;
    for (const auto& [stack, count] : in)
        for (uint64_t i = 0; i < count; ++i) {
            std::vector<FrameId> frames;
            for (auto it = stack.rbegin(); it != stack.rend(); ++it)
                frames.push_back(feed.frame(fileOf(*it), 10 + static_cast<int>(rng() % 2), *it));
            feed.add(1, ThreadStatus::OnCpu, frames, {t += 1000});
        }
    model.finish({});
    return model.query({}).value();
}

std::shared_ptr<const ProfileSnapshot> record(const Stacks& in, uint32_t seed = 1) {
    std::vector<std::pair<Stack, uint64_t>> list;
    for (const auto& [text, count] : in) {
        Stack s;
        for (size_t start = 0; start < text.size();) {
            const size_t end = std::min(text.find(';', start), text.size());
            s.push_back(text.substr(start, end - start));
            start = end + 1;
        }
        list.emplace_back(s, count);
    }
    return record(list, seed);
}

Stack pathOf(const ProfileSnapshot& s, uint32_t n) {
    Stack path;
    for (uint32_t a = n; a != 0; a = s.nodes[a].parent)
        path.insert(path.begin(), s.functions[s.nodes[a].func].name);
    return path;
}

Stacks stacksOf(const ProfileSnapshot& s) {
    Stacks out;
    for (uint32_t n = 0; n < s.selfCounts.size(); ++n)
        if (s.selfCounts[n]) out[join(pathOf(s, n))] += s.selfCounts[n];
    return out;
}

std::shared_ptr<const ProfileSnapshot> apply(const std::shared_ptr<const ProfileSnapshot>& s,
                                             const TransformStack& t) {
    auto out = applyTransforms(s, t);
    return out ? *out : nullptr;
}

CallTransform fn(TransformKind kind, const std::string& name) {
    CallTransform t;
    t.kind = kind;
    t.function = {name, name.empty() ? "" : fileOf(name)};
    return t;
}
CallTransform onPath(TransformKind kind, const Stack& path) {
    CallTransform t;
    t.kind = kind;
    for (const std::string& f : path)
        t.path.push_back({f, fileOf(f)});
    return t;
}
CallTransform onModule(TransformKind kind, const std::string& module) {
    CallTransform t;
    t.kind = kind;
    t.module = module;
    return t;
}

// A collapsed frame ("[django]") is in its package too, for a transform after it.
std::string collapsedName(const std::string& func) {
    return func.starts_with("[") ? func : collapsedModuleName(fileOf(func));
}
std::string moduleName(const std::string& func) {
    if (func.starts_with("dj") || func == "[django]") return "django";
    if (func.starts_with("rq") || func == "[requests]") return "requests";
    if (func.starts_with("aio") || func == "[stdlib: asyncio]") return "asyncio";
    return "m";
}
bool thirdParty(const std::string& func) {
    return moduleName(func) == "django" || moduleName(func) == "requests";
}

// The reference: each transform applied to each stack on its own, as its definition
// reads. nullopt: the stack's samples are dropped.
std::optional<Stack> reference(Stack s, const CallTransform& t) {
    const std::string& f = t.function.name;
    auto has = [&](const std::string& name) { return std::find(s.begin(), s.end(), name); };
    switch (t.kind) {
    case TransformKind::MergeFunction:
        std::erase(s, f);
        return s;
    case TransformKind::DropFunction:
        if (has(f) != s.end()) return std::nullopt;
        return s;
    case TransformKind::FocusFunction: {
        auto at = has(f);
        if (at == s.end()) return std::nullopt;
        return Stack(at, s.end());
    }
    case TransformKind::FocusModule:
        std::erase_if(s, [&](const std::string& x) { return moduleName(x) != t.module; });
        if (s.empty()) return std::nullopt;
        return s;
    case TransformKind::MergeCallNode:
    case TransformKind::FocusSubtree: {
        const size_t k = t.path.size();
        bool prefix = s.size() >= k;
        for (size_t i = 0; prefix && i < k; ++i)
            prefix = s[i] == t.path[i].name;
        if (t.kind == TransformKind::MergeCallNode) {
            if (prefix) s.erase(s.begin() + static_cast<long>(k - 1));
            return s;
        }
        if (!prefix) return std::nullopt;
        return Stack(s.begin() + static_cast<long>(k - 1), s.end());
    }
    case TransformKind::CollapseRecursion:
        for (size_t i = 0; i < s.size(); ++i) {
            if (!f.empty() && s[i] != f) continue;
            size_t last = i;
            for (size_t j = i + 1; j < s.size(); ++j)
                if (s[j] == s[i]) last = j;
            s.erase(s.begin() + static_cast<long>(i + 1), s.begin() + static_cast<long>(last + 1));
        }
        return s;
    case TransformKind::CollapseDirectRecursion: {
        Stack out;
        for (const std::string& x : s)
            if (out.empty() || out.back() != x || (!f.empty() && x != f)) out.push_back(x);
        return out;
    }
    case TransformKind::CollapseModule:
    case TransformKind::CollapseThirdParty: {
        Stack out;
        for (const std::string& x : s) {
            const bool collapse = t.kind == TransformKind::CollapseThirdParty
                                      ? thirdParty(x)
                                      : moduleName(x) == t.module;
            const std::string shown = collapse ? collapsedName(x) : x;
            if (collapse && !out.empty() && out.back() == shown) continue;
            out.push_back(shown);
        }
        return out;
    }
    case TransformKind::Invert:
        return s;
    }
    return s;
}

Stacks reference(const Stacks& in, const CallTransform& t) {
    Stacks out;
    for (const auto& [text, count] : in) {
        Stack s;
        for (size_t start = 0; start < text.size();) {
            const size_t end = std::min(text.find(';', start), text.size());
            s.push_back(text.substr(start, end - start));
            start = end + 1;
        }
        if (auto kept = reference(s, t)) out[join(*kept)] += count;
    }
    return out;
}

uint64_t totalOf(const ProfileSnapshot& s, const std::string& name) {
    for (const FunctionRow& r : functionTable(s))
        if (s.functions[r.func].name == name) return r.total;
    return 0;
}

uint64_t samples(const Stacks& s) {
    uint64_t n = 0;
    for (const auto& [k, v] : s)
        n += v;
    return n;
}

} // namespace

class TestCallTransforms : public QObject {
    Q_OBJECT
private slots:
    void mergeFunctionGivesItsTimeToItsCaller() {
        const auto s = record(Stacks{{"main;wrap;work", 5}, {"main;wrap", 2}, {"main;other", 3}});
        const auto m = apply(s, {fn(TransformKind::MergeFunction, "wrap")});
        QCOMPARE(stacksOf(*m), (Stacks{{"main;work", 5}, {"main", 2}, {"main;other", 3}}));
        QCOMPARE(m->matchedSamples, uint64_t(10));
        QCOMPARE(totalOf(*m, "work"), uint64_t(5)); // the wrapped function keeps its total
        QCOMPARE(totalOf(*m, "wrap"), uint64_t(0));
    }

    // A decorator around each of several functions: merged, every decorated function
    // keeps its total, and the caller's grows by nothing.
    void mergingADecoratorKeepsTheDecoratedTotals() {
        const Stacks in{
            {"main;deco;f;deco;g", 4}, {"main;deco;f", 3}, {"main;deco;h", 6}, {"main", 1}};
        const auto s = record(in);
        const auto m = apply(s, {fn(TransformKind::MergeFunction, "deco")});
        QCOMPARE(stacksOf(*m),
                 (Stacks{{"main;f;g", 4}, {"main;f", 3}, {"main;h", 6}, {"main", 1}}));
        for (const char* f : {"main", "f", "g", "h"})
            QCOMPARE(totalOf(*m, f), totalOf(*s, f));
    }

    void mergeCallNodeOnlyTouchesThatPath() {
        const auto s = record(Stacks{{"main;wrap;work", 5}, {"main;x;wrap;work", 2}});
        const auto m = apply(s, {onPath(TransformKind::MergeCallNode, {"main", "wrap"})});
        QCOMPARE(stacksOf(*m), (Stacks{{"main;work", 5}, {"main;x;wrap;work", 2}}));
    }

    void focusFunctionRootsEveryCallSiteAtIt() {
        const auto s = record(Stacks{{"main;a;handle;db", 5},
                                     {"main;b;handle", 2},
                                     {"main;idle", 9},
                                     {"main;handle;x;handle", 1}});
        const auto m = apply(s, {fn(TransformKind::FocusFunction, "handle")});
        QCOMPARE(stacksOf(*m), (Stacks{{"handle;db", 5}, {"handle", 2}, {"handle;x;handle", 1}}));
        QCOMPARE(m->matchedSamples, uint64_t(8));
        QCOMPARE(m->transformDropped, uint64_t(9));
    }

    void focusSubtreeKeepsOnlyThatPath() {
        const auto s = record(Stacks{{"main;a;handle;db", 5}, {"main;b;handle", 2}, {"main;a", 4}});
        const auto m = apply(s, {onPath(TransformKind::FocusSubtree, {"main", "a", "handle"})});
        QCOMPARE(stacksOf(*m), (Stacks{{"handle;db", 5}}));
    }

    void focusModuleHidesEveryOtherFrame() {
        const auto s =
            record(Stacks{{"djc;djv;view;aioq;helper", 5}, {"djc;djv", 3}, {"djc;view", 1}});
        const auto m = apply(s, {onModule(TransformKind::FocusModule, "m")});
        QCOMPARE(stacksOf(*m), (Stacks{{"view;helper", 5}, {"view", 1}}));
    }

    // An AST visitor's tower: visit > generic_visit > visit > ... becomes one visit with
    // the same total.
    void collapseRecursionFlattensATower() {
        Stack tower{"main"};
        for (int i = 0; i < 150; ++i) {
            tower.push_back("visit");
            tower.push_back("generic_visit");
        }
        Stack leaf = tower;
        leaf.push_back("visit_Name");
        const auto s = record(std::vector<std::pair<Stack, uint64_t>>{{tower, 3}, {leaf, 4}});
        const auto m = apply(s, {fn(TransformKind::CollapseRecursion, "visit")});
        QCOMPARE(stacksOf(*m), (Stacks{{"main;visit;generic_visit", 3},
                                       {"main;visit;generic_visit;visit_Name", 4}}));
        QCOMPARE(totalOf(*m, "visit"), totalOf(*s, "visit"));
        // Direct recursion only: the tower has none (visit and generic_visit alternate).
        const auto d = apply(s, {fn(TransformKind::CollapseDirectRecursion, "visit")});
        QCOMPARE(stacksOf(*d), stacksOf(*s));
        const auto r = record(Stacks{{"main;f;f;f;g;f", 2}});
        QCOMPARE(stacksOf(*apply(r, {fn(TransformKind::CollapseDirectRecursion, "f")})),
                 (Stacks{{"main;f;g;f", 2}}));
        QCOMPARE(stacksOf(*apply(r, {fn(TransformKind::CollapseRecursion, "f")})),
                 (Stacks{{"main;f", 2}}));
    }

    void collapseModuleMakesOneFrame() {
        const auto s = record(Stacks{{"main;djc;djv;djc;view;aioq", 5}, {"main;rqget", 2}});
        const auto m = apply(s, {onModule(TransformKind::CollapseModule, "django")});
        QCOMPARE(stacksOf(*m), (Stacks{{"main;[django];view;aioq", 5}, {"main;rqget", 2}}));
        const auto p = apply(s, {onModule(TransformKind::CollapseThirdParty, "")});
        QCOMPARE(stacksOf(*p), (Stacks{{"main;[django];view;aioq", 5}, {"main;[requests]", 2}}));
        const auto a = apply(s, {onModule(TransformKind::CollapseModule, "asyncio")});
        QVERIFY(stacksOf(*a).count("main;djc;djv;djc;view;[stdlib: asyncio]"));
        // The collapsed frame is a function of its own, coloured as its package.
        bool found = false;
        for (const FunctionInfo& f : m->functions)
            if (f.name == "[django]") {
                found = true;
                QCOMPARE(f.file, std::string("/venv/lib/python3.12/site-packages/django"));
            }
        QVERIFY(found);
    }

    void dropRemovesTheSamplesAndTheirShare() {
        const auto s = record(Stacks{{"main;select", 90}, {"main;work", 10}});
        const auto m = apply(s, {fn(TransformKind::DropFunction, "select")});
        QCOMPARE(stacksOf(*m), (Stacks{{"main;work", 10}}));
        QCOMPARE(m->matchedSamples, uint64_t(10));
        QCOMPARE(m->recordedSamples, s->recordedSamples);
    }

    // Invert: the trees are leaf-rooted; the function table is unchanged.
    void invertRootsTheTreesAtTheLeaves() {
        const auto s = record(Stacks{{"main;a;leaf", 5}, {"main;b;leaf", 2}, {"main;a", 1}});
        const auto m = apply(s, {CallTransform{TransformKind::Invert, {}, {}, {}}});
        QVERIFY(m->inverted);
        QCOMPARE(stacksOf(*m), stacksOf(*s));
        const CallTree shown = shownTree(*m);
        QCOMPARE(shown.total(0), uint64_t(8));
        const uint32_t first = shown.children(0)[0];
        QCOMPARE(m->functions[shown.func(first)].name, std::string("leaf"));
        QCOMPARE(shown.total(first), uint64_t(7));
        QCOMPARE(m->functions[shown.func(shown.children(first)[0])].name, std::string("a"));
        QCOMPARE(m->functions[shownTree(*s).func(1)].name, std::string("main"));
        QVERIFY(!apply(m, {CallTransform{TransformKind::Invert, {}, {}, {}}})->inverted);
    }

    void transformsComposeInOrder() {
        const Stacks in{{"main;wrap;handle;wrap;db", 4}, {"main;wrap;idle", 6}, {"main;handle", 1}};
        const auto s = record(in);
        const TransformStack stack{fn(TransformKind::FocusFunction, "handle"),
                                   fn(TransformKind::MergeFunction, "wrap")};
        QCOMPARE(stacksOf(*apply(s, stack)), (Stacks{{"handle;db", 4}, {"handle", 1}}));
        // The other order: merging first changes nothing the focus then keeps.
        const TransformStack swapped{stack[1], stack[0]};
        QCOMPARE(stacksOf(*apply(s, swapped)), (Stacks{{"handle;db", 4}, {"handle", 1}}));
        // A focus on a node path depends on the merge before it.
        const auto path = onPath(TransformKind::FocusSubtree, {"main", "handle"});
        QCOMPARE(stacksOf(*apply(s, {path})), (Stacks{{"handle", 1}}));
        QCOMPARE(stacksOf(*apply(s, {stack[1], path})), (Stacks{{"handle;db", 4}, {"handle", 1}}));
        // Each prefix of the stack gives what applying it alone gives: undo is exact.
        QCOMPARE(stacksOf(*apply(s, {})), in);
        QCOMPARE(apply(s, {}).get(), s.get());
    }

    // Random recordings: every transform (and pairs of them) against the reference.
    void matchesThePerStackReferenceOnRandomTrees() {
        const std::vector<std::string> pool{"main", "a", "b", "c", "djc", "djv", "rqget", "aioq"};
        std::mt19937 rng(20261205);
        int checked = 0;
        for (int round = 0; round < 60; ++round) {
            Stacks in;
            for (int i = 0; i < 25; ++i) {
                Stack s;
                const size_t depth = 1 + rng() % 9;
                for (size_t d = 0; d < depth; ++d)
                    s.push_back(pool[rng() % pool.size()]);
                in[join(s)] += 1 + rng() % 5;
            }
            const auto snap = record(in, static_cast<uint32_t>(round));
            QCOMPARE(stacksOf(*snap), in);
            const std::string f = pool[rng() % pool.size()], g = pool[rng() % pool.size()];
            const std::vector<CallTransform> all{
                fn(TransformKind::MergeFunction, f),
                fn(TransformKind::DropFunction, f),
                fn(TransformKind::FocusFunction, f),
                onModule(TransformKind::FocusModule, moduleName(f)),
                onPath(TransformKind::MergeCallNode, {f, g}),
                onPath(TransformKind::FocusSubtree, {f, g}),
                onPath(TransformKind::FocusSubtree, {f}),
                fn(TransformKind::CollapseRecursion, f),
                fn(TransformKind::CollapseRecursion, ""),
                fn(TransformKind::CollapseDirectRecursion, f),
                fn(TransformKind::CollapseDirectRecursion, ""),
                onModule(TransformKind::CollapseModule, moduleName(f)),
                onModule(TransformKind::CollapseThirdParty, ""),
            };
            for (const CallTransform& t : all) {
                const auto got = apply(snap, {t});
                const Stacks want = reference(in, t);
                if (stacksOf(*got) != want)
                    QFAIL(qPrintable(QString::fromStdString(transformLabel(t) + " on round " +
                                                            std::to_string(round))));
                QCOMPARE(got->matchedSamples, samples(want));
                // Then a second one, on the first's result.
                const CallTransform& u = all[rng() % all.size()];
                Stacks twice;
                for (const auto& [k, v] : reference(want, u))
                    twice[k] += v;
                QCOMPARE(stacksOf(*apply(snap, {t, u})), twice);
                // Mapped (the stack chart's way): each recorded stack's node lands on the
                // node of the stack the reference makes of it, or is dropped with it.
                const auto mapped = applyTransformsMapped(snap, {t, u});
                QVERIFY(mapped);
                QCOMPARE(stacksOf(*mapped->snapshot), twice);
                for (uint32_t n = 0; n < snap->selfCounts.size(); ++n) {
                    if (!snap->selfCounts[n]) continue;
                    const auto once = reference(pathOf(*snap, n), t);
                    const auto both = once ? reference(*once, u) : std::nullopt;
                    const uint32_t m = mapped->nodeMap[n];
                    if (!both) {
                        QCOMPARE(m, kDroppedNode);
                    } else {
                        QVERIFY(m != kDroppedNode);
                        QCOMPARE(pathOf(*mapped->snapshot, m), *both);
                    }
                }
                ++checked;
            }
        }
        qInfo("checked %d transforms on random recordings", checked);
    }

    // A name as a user types it: the last dotted part of 3.11+'s qualified names, and a
    // file by its last parts.
    void functionsMatchByNameAndFileEnd() {
        const FunctionInfo wrapper{"traced.<locals>.wrapper", "/srv/app/deco.py", 3, false};
        QVERIFY(functionMatches({"wrapper", ""}, wrapper));
        QVERIFY(functionMatches({"traced.<locals>.wrapper", "app/deco.py"}, wrapper));
        QVERIFY(functionMatches({"wrapper", "/srv/app/deco.py"}, wrapper));
        QVERIFY(!functionMatches({"rapper", ""}, wrapper));
        QVERIFY(!functionMatches({"wrapper", "pp/deco.py"}, wrapper));
        QVERIFY(!functionMatches({"wrapper", "other.py"}, wrapper));
    }

    // A transform rebuilds the stacks and keeps everything else of the snapshot; nodes that
    // differ only by the instruction they ran (--opcodes) stay apart.
    void keepsTheFiguresAndTheInstructions() {
        auto s = std::make_shared<ProfileSnapshot>();
        s->filter.state = StateFilter::OnCpu;
        s->filter.threads = {7};
        s->originUs = 1, s->lastUs = 2, s->intervalUs = 3, s->recordedMode = 4;
        s->pythonMinor = 12, s->recordedSamples = 50, s->matchedSamples = 30;
        s->contendedTicks = 5, s->finished = true, s->notKept = "disk";
        s->functions = {{"main", "m.py", 1, false}, {"f", "m.py", 5, false}};
        s->lines = {{0, 1}, {1, 6}};
        s->threads = {{7, true, 50, "worker"}};
        auto op = [](uint8_t o) { return uint32_t{o} << StackNode::kOpcodeShift; };
        s->nodes = {{}, {0, 0, 0, op(kNoOpcode)}, {1, 1, 1, op(10)}, {1, 1, 1, op(20)}};
        s->selfCounts = {0, 0, 20, 10};
        const auto m = apply(s, {{TransformKind::MergeFunction, {"main", ""}, {}, {}}});
        QCOMPARE(m->filter, s->filter);
        QCOMPARE(m->originUs + m->lastUs + m->intervalUs, uint64_t(6));
        QCOMPARE(m->recordedMode, 4);
        QCOMPARE(m->pythonMinor, 12);
        QCOMPARE(m->recordedSamples, uint64_t(50));
        QCOMPARE(m->matchedSamples, uint64_t(30));
        QCOMPARE(m->contendedTicks, uint64_t(5));
        QVERIFY(m->finished);
        QCOMPARE(m->notKept, std::string("disk"));
        QCOMPARE(m->threads.size(), size_t(1));
        QCOMPARE(m->threads[0].name, std::string("worker"));
        QCOMPARE(m->functions.size(), size_t(2));
        std::map<uint8_t, uint64_t> byOpcode;
        for (uint32_t n = 1; n < m->nodes.size(); ++n) {
            QCOMPARE(m->nodes[n].parent, 0u); // main merged away: f at the root
            byOpcode[m->nodes[n].opcode()] += m->selfCounts[n];
        }
        QCOMPARE(byOpcode, (std::map<uint8_t, uint64_t>{{10, 20}, {20, 10}}));
    }

    void cancelStopsIt() {
        Stacks in;
        for (int i = 0; i < 70000; ++i)
            in["main;f" + std::to_string(i)] = 1;
        const auto s = record(in);
        CancelToken cancel;
        cancel.cancel();
        QVERIFY(!applyTransforms(s, {fn(TransformKind::MergeFunction, "main")}, &cancel));
    }
};

QTEST_GUILESS_MAIN(TestCallTransforms)
#include "test_call_transforms.moc"
