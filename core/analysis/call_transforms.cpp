#include "core/analysis/call_transforms.h"

#include "core/analysis/module_color.h"

#include "core/gecko/flat_map.h"
#include "core/sample/sample_label.h"

#include <unordered_map>

namespace gilscope {

namespace {

// Where an old node goes: a new node, or one of these.
constexpr uint32_t kDropped = UINT32_MAX;     // its samples are dropped
constexpr uint32_t kPending = UINT32_MAX - 1; // a focus not reached yet: dropped if it ends here

bool fileMatches(std::string_view want, std::string_view file) {
    if (want.empty() || want == file) return true;
    return file.size() > want.size() && file.ends_with(want) &&
           file[file.size() - want.size() - 1] == '/';
}

std::vector<char> functionsMatching(const ProfileSnapshot& s, const FunctionRef& ref) {
    std::vector<char> match(s.functions.size(), 0);
    for (size_t f = 0; f < s.functions.size(); ++f)
        match[f] = functionMatches(ref, s.functions[f]);
    return match;
}

// The snapshot's figures and tables without its stacks (nodes, self counts), which a
// transform rebuilds: copying a million nodes only to drop them cost more than the rest.
// Every other field of ProfileSnapshot is copied here (test_call_transforms checks them).
std::shared_ptr<ProfileSnapshot> withoutStacks(const ProfileSnapshot& in) {
    auto out = std::make_shared<ProfileSnapshot>();
    out->filter = in.filter;
    out->originUs = in.originUs;
    out->lastUs = in.lastUs;
    out->intervalUs = in.intervalUs;
    out->recordedMode = in.recordedMode;
    out->pythonMinor = in.pythonMinor;
    out->freeThreaded = in.freeThreaded;
    out->recordedSamples = in.recordedSamples;
    out->matchedSamples = in.matchedSamples;
    out->contendedTicks = in.contendedTicks;
    out->finished = in.finished;
    out->notKept = in.notKept;
    out->inverted = in.inverted;
    out->transformDropped = in.transformDropped;
    out->functions = in.functions;
    out->lines = in.lines;
    out->threads = in.threads;
    return out;
}
// One transform over one snapshot: old nodes are visited parents first (a parent's id is
// smaller), each placed under its parent's new node by the transform's rule.
class Rebuild {
public:
    Rebuild(const ProfileSnapshot& in, const CancelToken* cancel)
        : in_(in), out_(withoutStacks(in)), cancel_(cancel) {
        out_->nodes.push_back(in.nodes.empty() ? StackNode{} : in.nodes[0]);
        out_->callNodeOf.push_back(0);
        // At most one new node (and call node) per old one: no growing on the way.
        callNodes_.reserve(in.nodes.size());
        shared_.assign(1, 1); // the root: many old nodes may land on it
        // Nodes without a sample at or below them are left out: they would only make
        // empty nodes, and the next transform would walk them again.
        subtree_ = in.selfCounts;
        subtree_.resize(in.nodes.size(), 0);
        for (size_t n = in.nodes.size(); n-- > 1;)
            subtree_[in.nodes[n].parent] += subtree_[n];
    }

    // rule(old node, its parent's new node) -> new node, kDropped or kPending.
    template <typename Rule>
    std::shared_ptr<ProfileSnapshot> run(uint32_t root, Rule&& rule) {
        map_.assign(in_.nodes.size(), kDropped);
        if (!map_.empty()) map_[0] = root;
        for (uint32_t n = 1; n < in_.nodes.size(); ++n) {
            if ((n & 0xffff) == 0 && cancel_ && cancel_->cancelled()) return nullptr;
            const uint32_t parent = map_[in_.nodes[n].parent];
            if (subtree_[n] == 0 || parent == kDropped) continue;
            const auto before = static_cast<uint32_t>(out_->nodes.size());
            const uint32_t m = rule(n, parent);
            // An existing node got one more old node: its children must be looked up.
            if (m < before) shared_[m] = 1;
            map_[n] = m;
        }
        out_->callNodes = callNodes_.nodes();
        out_->selfCounts.assign(out_->nodes.size(), 0);
        uint64_t dropped = 0;
        for (uint32_t n = 0; n < in_.selfCounts.size() && n < map_.size(); ++n) {
            if (!in_.selfCounts[n]) continue;
            if (map_[n] >= kPending)
                dropped += in_.selfCounts[n];
            else
                out_->selfCounts[map_[n]] += in_.selfCounts[n];
        }
        out_->matchedSamples -= std::min(dropped, out_->matchedSamples);
        out_->transformDropped += dropped;
        return std::move(out_);
    }

    // The new child of `parent` for old node n (its function and line).
    uint32_t keep(uint32_t parent, uint32_t n) {
        return child(parent, in_.nodes[n].func, in_.nodes[n].line, in_.nodes[n].flags);
    }
    // flags: the node's opcode and GC bit. Nodes that differ only by opcode stay apart
    // (the instruction each line runs is a view of its own); the GC bit adds up.
    uint32_t child(uint32_t parent, uint32_t func, uint32_t line, uint32_t flags) {
        // Under a node that is one old node's only image, the old tree's children are
        // already distinct: no lookup. (Children made before the node became shared are
        // not found by later lookups; a duplicate sibling then holds part of a path's
        // samples, which every view adds up by function and line.)
        if (!shared_[parent]) return add({parent, func, line, flags});
        const uint32_t opcode = (flags & StackNode::kOpcodeMask) >> StackNode::kOpcodeShift;
        // 24 bits of line id, the opcode above them (a recording with more lines than
        // that only merges nodes across opcodes).
        const uint32_t lineKey = line < (1u << 24) ? line | (opcode << 24) : line;
        const uint64_t key = (static_cast<uint64_t>(parent) << 32) | lineKey;
        const auto [node, added] =
            children_.tryEmplace(key, static_cast<uint32_t>(out_->nodes.size()));
        if (added) add({parent, func, line, flags});
        if (flags & StackNode::kGc) out_->nodes.mutableAt(node).flags |= StackNode::kGc;
        return node;
    }
    uint32_t add(const StackNode& n) {
        out_->nodes.push_back(n);
        out_->callNodeOf.push_back(callNodes_.of(out_->callNodeOf[n.parent], n.func));
        shared_.push_back(0);
        return static_cast<uint32_t>(out_->nodes.size() - 1);
    }
    const StackNode& newNode(uint32_t n) const { return out_->nodes[n]; }
    ProfileSnapshot& out() { return *out_; }
    // After run(): each old node's new node, or kDroppedNode.
    std::vector<uint32_t> takeMap() {
        for (uint32_t& m : map_)
            if (m >= kPending) m = kDroppedNode;
        return std::move(map_);
    }

private:
    const ProfileSnapshot& in_;
    std::shared_ptr<ProfileSnapshot> out_;
    const CancelToken* cancel_;
    std::vector<uint64_t> subtree_;
    std::vector<uint32_t> map_;
    std::vector<uint8_t> shared_; // per new node: more than one old node maps to it
    FlatMap64 children_;          // parent << 32 | line -> new node
    CallNodeIndex callNodes_;     // the new nodes' call nodes
};

// How far each old node follows a call path (root first): -1 off it, 0..k along it,
// k + 1 below its end.
std::vector<int32_t> pathDepths(const ProfileSnapshot& s, const std::vector<FunctionRef>& path) {
    std::vector<std::vector<char>> steps;
    for (const FunctionRef& ref : path)
        steps.push_back(functionsMatching(s, ref));
    const auto k = static_cast<int32_t>(path.size());
    std::vector<int32_t> depth(s.nodes.size(), -1);
    if (!depth.empty()) depth[0] = 0;
    for (uint32_t n = 1; n < s.nodes.size(); ++n) {
        const int32_t d = depth[s.nodes[n].parent];
        if (d >= k)
            depth[n] = k + 1;
        else if (d >= 0 && steps[d][s.nodes[n].func])
            depth[n] = d + 1;
    }
    return depth;
}

// Per function: the collapsed frame it becomes (kNoFunction: none), and that frame's
// line. Adds the collapsed functions, and a line for each, to the output.
struct Collapsed {
    std::vector<uint32_t> function;
    std::unordered_map<uint32_t, uint32_t> line; // collapsed function -> its line
};
Collapsed collapsedFunctions(Rebuild& r, const CallTransform& t) {
    ProfileSnapshot& out = r.out();
    const size_t count = out.functions.size();
    Collapsed c;
    c.function.assign(count, kNoFunction);
    std::unordered_map<std::string, uint32_t> made;
    for (size_t f = 0; f < count; ++f) {
        const ModuleLocation where = locateModule(out.functions[f].file);
        const bool collapse = t.kind == TransformKind::CollapseThirdParty
                                  ? where.origin == ModuleOrigin::ThirdParty
                                  : where.name == t.module;
        if (!collapse) continue;
        const std::string name = collapsedModuleName(out.functions[f].file);
        auto [it, added] = made.try_emplace(name, static_cast<uint32_t>(out.functions.size()));
        if (added) {
            out.functions.push_back({name, where.root, kNoLocation, out.functions[f].native});
            c.line[it->second] = static_cast<uint32_t>(out.lines.size());
            out.lines.push_back({it->second, kNoLocation});
        }
        c.function[f] = it->second;
    }
    return c;
}

std::shared_ptr<ProfileSnapshot> applyOne(const ProfileSnapshot& in, const CallTransform& t,
                                          Rebuild& r) {
    const auto funcOf = [&in](uint32_t n) { return in.nodes[n].func; };
    switch (t.kind) {
    case TransformKind::MergeFunction: {
        const auto match = functionsMatching(in, t.function);
        return r.run(0,
                     [&](uint32_t n, uint32_t p) { return match[funcOf(n)] ? p : r.keep(p, n); });
    }
    case TransformKind::DropFunction: {
        const auto match = functionsMatching(in, t.function);
        return r.run(
            0, [&](uint32_t n, uint32_t p) { return match[funcOf(n)] ? kDropped : r.keep(p, n); });
    }
    case TransformKind::FocusFunction: {
        const auto match = functionsMatching(in, t.function);
        return r.run(kPending, [&](uint32_t n, uint32_t p) {
            if (p != kPending) return r.keep(p, n);
            return match[funcOf(n)] ? r.keep(0, n) : kPending;
        });
    }
    case TransformKind::FocusModule: {
        std::vector<char> inModule(in.functions.size());
        for (size_t f = 0; f < in.functions.size(); ++f)
            inModule[f] = moduleOf(in.functions[f].file) == t.module;
        return r.run(kPending, [&](uint32_t n, uint32_t p) {
            if (!inModule[funcOf(n)]) return p;
            return r.keep(p == kPending ? 0 : p, n);
        });
    }
    case TransformKind::MergeCallNode:
    case TransformKind::FocusSubtree: {
        if (t.path.empty()) break; // names no call node: changes nothing
        const auto depth = pathDepths(in, t.path);
        const auto k = static_cast<int32_t>(t.path.size());
        if (t.kind == TransformKind::MergeCallNode)
            return r.run(0,
                         [&](uint32_t n, uint32_t p) { return depth[n] == k ? p : r.keep(p, n); });
        return r.run(kPending, [&](uint32_t n, uint32_t p) {
            if (depth[n] == k) return r.keep(0, n);
            return depth[n] == k + 1 ? r.keep(p, n) : kPending;
        });
    }
    case TransformKind::CollapseRecursion:
    case TransformKind::CollapseDirectRecursion: {
        const bool every = t.function.name.empty();
        const auto match = every ? std::vector<char>() : functionsMatching(in, t.function);
        const bool direct = t.kind == TransformKind::CollapseDirectRecursion;
        return r.run(0, [&](uint32_t n, uint32_t p) {
            const uint32_t f = funcOf(n);
            if (!every && !match[f]) return r.keep(p, n);
            // The outermost call of the function on the new path takes this one's place.
            uint32_t found = kDropped;
            for (uint32_t a = p; a != 0; a = r.newNode(a).parent) {
                if (r.newNode(a).func == f)
                    found = a;
                else if (direct)
                    break;
            }
            return found != kDropped ? found : r.keep(p, n);
        });
    }
    case TransformKind::CollapseModule:
    case TransformKind::CollapseThirdParty: {
        Collapsed to = collapsedFunctions(r, t);
        return r.run(0, [&](uint32_t n, uint32_t p) {
            const uint32_t f = to.function[funcOf(n)];
            if (f == kNoFunction) return r.keep(p, n);
            if (p != 0 && r.newNode(p).func == f) return p;
            return r.child(p, f, to.line[f],
                           (in.nodes[n].flags & StackNode::kGc) |
                               (uint32_t{kNoOpcode} << StackNode::kOpcodeShift));
        });
    }
    case TransformKind::Invert: {
        auto out = std::make_shared<ProfileSnapshot>(in);
        out->inverted = !in.inverted;
        return out;
    }
    }
    return std::make_shared<ProfileSnapshot>(in);
}

// Whether `t` rebuilt the tree (else its nodes are the input's).
bool rebuilds(const CallTransform& t) {
    return t.kind != TransformKind::Invert &&
           !((t.kind == TransformKind::MergeCallNode || t.kind == TransformKind::FocusSubtree) &&
             t.path.empty());
}

} // namespace

bool functionMatches(const FunctionRef& ref, const FunctionInfo& f) {
    // "wrapper" names 3.11+'s "traced.<locals>.wrapper" too, as a user types it.
    const bool named =
        f.name == ref.name || (f.name.size() > ref.name.size() && f.name.ends_with(ref.name) &&
                               f.name[f.name.size() - ref.name.size() - 1] == '.');
    return named && fileMatches(ref.file, f.file);
}

std::string collapsedModuleName(std::string_view file) {
    const ModuleLocation where = locateModule(file);
    return where.origin == ModuleOrigin::Stdlib ? "[stdlib: " + where.name + "]"
                                                : "[" + where.name + "]";
}

std::string transformLabel(const CallTransform& t) {
    const std::string& name = t.function.name;
    switch (t.kind) {
    case TransformKind::MergeFunction:
        return "Merge: " + name;
    case TransformKind::MergeCallNode:
        return "Merge node: " + (t.path.empty() ? std::string() : t.path.back().name);
    case TransformKind::FocusFunction:
        if (const auto label = labelOfFrame(t.function.file, name)) // --label-filter
            return "Label: " + std::string(label->key) + "=" + std::string(label->value);
        return "Focus: " + name;
    case TransformKind::FocusSubtree:
        return "Focus on subtree: " + (t.path.empty() ? std::string() : t.path.back().name);
    case TransformKind::FocusModule:
        return "Focus on module: " + t.module;
    case TransformKind::CollapseRecursion:
        return name.empty() ? "Collapse recursion" : "Collapse recursion: " + name;
    case TransformKind::CollapseDirectRecursion:
        return name.empty() ? "Collapse direct recursion" : "Collapse direct recursion: " + name;
    case TransformKind::CollapseModule:
        return "Collapse: [" + t.module + "]";
    case TransformKind::CollapseThirdParty:
        return "Collapse: third-party packages";
    case TransformKind::DropFunction:
        return "Drop: " + name;
    case TransformKind::Invert:
        return "Invert";
    }
    return {};
}

std::string transformsLabel(const TransformStack& stack) {
    std::string out;
    for (const CallTransform& t : stack)
        out += (out.empty() ? "" : " \u203a ") + transformLabel(t);
    return out;
}

bool transformsAddFunctions(const TransformStack& transforms) {
    for (const CallTransform& t : transforms)
        if (t.kind == TransformKind::CollapseModule || t.kind == TransformKind::CollapseThirdParty)
            return true;
    return false;
}

std::optional<std::shared_ptr<const ProfileSnapshot>>
applyTransforms(std::shared_ptr<const ProfileSnapshot> snapshot, const TransformStack& transforms,
                const CancelToken* cancel) {
    for (const CallTransform& t : transforms) {
        if (!snapshot) break;
        Rebuild r(*snapshot, cancel);
        auto next = applyOne(*snapshot, t, r);
        if (!next) return std::nullopt;
        snapshot = std::move(next);
    }
    return snapshot;
}

std::optional<MappedTransform>
applyTransformsMapped(std::shared_ptr<const ProfileSnapshot> snapshot,
                      const TransformStack& transforms, const CancelToken* cancel) {
    MappedTransform out;
    out.nodeMap.resize(snapshot ? snapshot->nodes.size() : 0);
    for (uint32_t n = 0; n < out.nodeMap.size(); ++n)
        out.nodeMap[n] = n;
    for (const CallTransform& t : transforms) {
        if (!snapshot) break;
        Rebuild r(*snapshot, cancel);
        auto next = applyOne(*snapshot, t, r);
        if (!next) return std::nullopt;
        if (rebuilds(t)) {
            const std::vector<uint32_t> step = r.takeMap();
            for (uint32_t& m : out.nodeMap)
                if (m != kDroppedNode) m = m < step.size() ? step[m] : kDroppedNode;
        }
        snapshot = std::move(next);
    }
    out.snapshot = std::move(snapshot);
    return out;
}

} // namespace gilscope
