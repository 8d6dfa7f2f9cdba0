#include "core/remote/frame_labels.h"

namespace gilscope::remote {

FrameLabels::FrameLabels(ProcessMemory& mem, const PythonLayout& layout,
                         const FrameRegistry& registry, std::vector<LabelSource> sources)
    : layout_(layout), registry_(registry), sources_(std::move(sources)), reads_(mem, layout),
      names_(mem, layout) {
}

uint32_t FrameLabels::matches(FrameId id) {
    if (id.index() >= matches_.size()) matches_.resize(id.index() + 1, 0);
    uint32_t& bits = matches_[id.index()];
    if (bits & kKnown) return bits & ~kKnown;
    bits = kKnown;
    const FrameInfo& info = registry_.frame(id);
    if (info.native) return 0;
    const std::string& func = registry_.string(info.funcname);
    const std::string& file = registry_.string(info.filename);
    for (size_t i = 0; i < sources_.size() && i < 31; ++i)
        if (labelFunctionMatches(sources_[i].function, func, file)) bits |= 1u << i;
    return bits & ~kKnown;
}

void FrameLabels::findAnchors(std::span<const FrameId> frames,
                              std::span<const FrameAddress> addresses,
                              std::vector<Anchor>& anchors) {
    anchors.assign(sources_.size(), {});
    size_t found = 0;
    // Leaf first: the first frame of a function is its innermost.
    for (const FrameAddress& a : addresses) {
        if (a.index >= frames.size()) continue;
        const uint32_t bits = matches(frames[a.index]);
        if (!bits) continue;
        for (size_t i = 0; i < anchors.size() && i < 31; ++i)
            if ((bits & (1u << i)) && anchors[i].frame == 0) {
                anchors[i] = {a.frame, a.code};
                ++found;
            }
        if (found == anchors.size()) return;
    }
}

std::optional<FrameLocalsReader::Slot> FrameLabels::slot(size_t source, uint64_t code) {
    auto it = slots_.find(code);
    if (it == slots_.end()) {
        if (slots_.size() >= kMaxCodes) slots_.clear();
        it = slots_.emplace(code, CodeSlots{}).first;
        it->second.bySource.resize(sources_.size());
        it->second.looked.resize(sources_.size());
    }
    CodeSlots& c = it->second;
    if (!c.looked[source]) {
        std::string error;
        c.bySource[source] = names_.slotOf(code, sources_[source].variable, error);
        // A code object that could not be read (torn) is looked at again next time; one
        // without the variable is not.
        c.looked[source] = c.bySource[source].has_value() || error.starts_with("it has no");
    }
    if (!c.bySource[source])
        why_ = sources_[source].function + " has no variable " + sources_[source].variable;
    return c.bySource[source];
}

FrameLabels::Outcome FrameLabels::follow(const LabelPathStep& step, uint64_t& object) {
    RemoteDicts& objects = reads_.objects();
    uint64_t next = 0;
    if (step.kind == LabelPathStep::Kind::Attribute) {
        if (!reads_.attribute(object, step.name, next)) return Outcome::Unreadable;
    } else {
        std::string type;
        if (!reads_.typeName(object, type)) return Outcome::Unreadable;
        if (type != "dict") return unreadable("['" + step.name + "'] of a " + type);
        if (!objects.lookup(object, step.name, next))
            return unreadable("['" + step.name + "']: " + objects.why());
    }
    object = next;
    // An attribute or key not set (yet): no label, as for a variable not assigned yet.
    return next == 0 ? Outcome::Absent : Outcome::Value;
}

FrameLabels::Outcome FrameLabels::unreadable(std::string why) {
    reads_.fail(std::move(why));
    return Outcome::Unreadable;
}

FrameLabels::Outcome FrameLabels::readOne(size_t source, const Anchor& at, std::string& value) {
    const LabelSource& s = sources_[source];
    const auto where = slot(source, at.code);
    if (!where) return unreadable(why_);
    uint64_t word = 0;
    if (!reads_.objects().read(at.frame + layout_.frLocalsplus + 8 * where->index, &word, 8))
        return unreadable("the frame of " + s.function + " cannot be read");
    if (names_.taggedInt(word)) { // an int in the slot itself (3.14+): it has no attributes
        if (!s.path.empty()) return unreadable(s.variable + " is an int");
        value = std::to_string(FrameLocalsReader::taggedIntValue(word));
        return Outcome::Value;
    }
    uint64_t object = names_.decodeSlot(word);
    if (object != 0 && where->cell) object = reads_.followCell(object);
    if (object == 0) return Outcome::Absent; // not assigned yet (or deleted)
    for (const LabelPathStep& step : s.path) {
        if (!plausibleAddress(object)) return unreadable("a pointer into nowhere");
        if (const Outcome o = follow(step, object); o != Outcome::Value) return o;
    }
    value = reads_.valueText(object);
    return Outcome::Value;
}

bool FrameLabels::read(std::span<const Anchor> anchors,
                       std::vector<std::optional<std::string>>& values) {
    values.assign(sources_.size(), std::nullopt);
    reads_.begin();
    why_.clear();
    bool any = false, ok = true;
    std::string value;
    for (size_t i = 0; i < sources_.size() && i < anchors.size(); ++i) {
        if (anchors[i].frame == 0) continue; // its function is not on the stack
        any = true;
        const Outcome o = readOne(i, anchors[i], value);
        if (o == Outcome::Value) {
            values[i] = std::move(value);
        } else if (o == Outcome::Unreadable) {
            values[i] = std::string(kUnreadableLabel);
            if (why_.empty()) why_ = sources_[i].spec() + ": " + reads_.why();
            reads_.clearWhy();
            ok = false;
        }
    }
    if (!any) reads_.spoil(); // nothing read: nothing to prove
    // A frame left and its objects freed as they were read would mix two requests: the
    // same bytes read again prove they were not (as for a context, ContextLabels::read).
    if (ok && any && !reads_.unchangedSinceRead()) {
        for (size_t i = 0; i < values.size(); ++i)
            if (values[i]) values[i] = std::string(kUnreadableLabel);
        why_ = "the frames changed as they were read";
        reads_.spoil();
        return false;
    }
    return ok;
}

} // namespace gilscope::remote
