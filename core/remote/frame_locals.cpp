#include "core/remote/frame_locals.h"

#include "core/remote/struct_view.h"

#include <algorithm>

namespace gilscope::remote {

namespace {

// CO_FAST_* kinds of a localsplus slot (Include/internal/pycore_code.h, 3.11+).
constexpr uint8_t kFastHidden = 0x10; // 3.12+: a comprehension's inlined variable
constexpr uint8_t kFastLocal = 0x20, kFastCell = 0x40, kFastFree = 0x80;
// co_flags: the code takes *args / **kwargs (one slot each, after the named arguments).
constexpr int32_t kVarargs = 0x4, kVarkeywords = 0x8;

} // namespace

FrameLocalsReader::FrameLocalsReader(ProcessMemory& mem, const PythonLayout& layout)
    : layout_(layout), objects_(mem, layout), values_(objects_, layout) {
}

bool FrameLocalsReader::supported() const {
    if (layout_.frLocalsplus == kAbsent || layout_.coArgcount == kAbsent) return false;
    if (layout_.legacyFrames) return layout_.coVarnames != kAbsent && layout_.coNlocals != kAbsent;
    return layout_.coLocalsplusNames != kAbsent && layout_.coLocalsplusKinds != kAbsent;
}

void FrameLocalsReader::beginThread() {
    objects_.beginRefresh();
    values_.beginThread();
}

bool FrameLocalsReader::readNameTuple(uint64_t tuple, std::vector<std::string>& out,
                                      std::string& error) {
    int64_t size = 0;
    if (!objects_.read(tuple + layout_.varSize, &size, 8) || size < 0) {
        error = "cannot read the names of its variables";
        return false;
    }
    if (static_cast<uint64_t>(size) > kMaxVariables) {
        error = "more than " + std::to_string(kMaxVariables) + " variables";
        return false;
    }
    std::vector<uint64_t> items(static_cast<size_t>(size));
    if (size && !objects_.read(tuple + layout_.tupleItems, items.data(), items.size() * 8)) {
        error = "cannot read the names of its variables";
        return false;
    }
    for (uint64_t item : items) {
        auto name = objects_.string(item, kMaxNameChars);
        if (!name) {
            error = "cannot read the names of its variables";
            return false;
        }
        out.push_back(std::move(*name));
    }
    return true;
}

bool FrameLocalsReader::readNames(uint64_t code, Names& out, std::string& error) {
    int32_t counts[2] = {}; // co_argcount, co_kwonlyargcount
    int32_t flags = 0;
    // co_flags: <= 3.10 in the layout; 3.11 two words before co_argcount, 3.12+ one (measured
    // against each version's headers; the locals test checks the arguments on each).
    const uint64_t flagsAt = layout_.legacyFrames  ? layout_.coFlags
                             : layout_.minor == 11 ? layout_.coArgcount - 8
                                                   : layout_.coArgcount - 4;
    if (!objects_.read(code + layout_.coArgcount, &counts[0], 4) ||
        !objects_.read(code + layout_.coKwonlyArgcount, &counts[1], 4) ||
        !objects_.read(code + flagsAt, &flags, 4) || counts[0] < 0 || counts[1] < 0) {
        error = "cannot read its code object";
        return false;
    }
    out.arguments = static_cast<size_t>(counts[0]) + static_cast<size_t>(counts[1]) +
                    ((flags & kVarargs) ? 1 : 0) + ((flags & kVarkeywords) ? 1 : 0);
    if (!layout_.legacyFrames) {
        uint64_t names = 0, kinds = 0;
        if (!objects_.pointer(code + layout_.coLocalsplusNames, names) ||
            !objects_.pointer(code + layout_.coLocalsplusKinds, kinds)) {
            error = "cannot read its code object";
            return false;
        }
        if (!readNameTuple(names, out.names, error)) return false;
        int64_t size = 0;
        out.kinds.resize(out.names.size());
        if (!objects_.read(kinds + layout_.bytesSize, &size, 8) ||
            size != static_cast<int64_t>(out.names.size()) ||
            (size &&
             !objects_.read(kinds + layout_.bytesData, out.kinds.data(), out.kinds.size()))) {
            error = "cannot read the kinds of its variables";
            return false;
        }
        return true;
    }
    // <= 3.10: f_localsplus holds co_nlocals locals (named by co_varnames), then a cell for
    // each of co_cellvars, then one for each of co_freevars.
    int32_t nlocals = 0;
    uint64_t tuples[3] = {}; // co_varnames, co_cellvars, co_freevars
    if (!objects_.read(code + layout_.coNlocals, &nlocals, 4) || nlocals < 0 ||
        !objects_.pointer(code + layout_.coVarnames, tuples[0]) ||
        !objects_.pointer(code + layout_.coCellvars, tuples[1]) ||
        !objects_.pointer(code + layout_.coFreevars, tuples[2])) {
        error = "cannot read its code object";
        return false;
    }
    const uint8_t kinds[3] = {kFastLocal, kFastCell, kFastFree};
    for (int k = 0; k < 3; ++k) {
        if (!readNameTuple(tuples[k], out.names, error)) return false;
        if (k == 0 && out.names.size() != static_cast<size_t>(nlocals)) {
            error = "its code object's counts disagree (torn read)";
            return false;
        }
        out.kinds.resize(out.names.size(), kinds[k]);
        if (out.names.size() > kMaxVariables) {
            error = "more than " + std::to_string(kMaxVariables) + " variables";
            return false;
        }
    }
    return true;
}

uint64_t FrameLocalsReader::decodeSlot(uint64_t slot) const {
    // 3.13+: a _PyStackRef, whose low bits tag it (a deferred or borrowed reference).
    return layout_.minor < 13 ? slot : slot & ~uint64_t{3};
}

bool FrameLocalsReader::taggedInt(uint64_t slot) const {
    return layout_.minor >= 14 && (slot & 3) == 3; // Py_INT_TAG: the int is in the bits
}

std::optional<FrameLocalsReader::Slot>
FrameLocalsReader::slotOf(uint64_t code, std::string_view name, std::string& error) {
    Names n;
    objects_.beginRefresh();
    if (!readNames(code, n, error)) return std::nullopt;
    // The last of its name: <= 3.10 moves an argument a closure captures into a cell
    // after the locals, and empties the argument's own slot.
    for (size_t i = n.names.size(); i-- > 0;) {
        if (n.names[i] != name) continue;
        if (layout_.minor >= 12 && (n.kinds[i] & kFastHidden)) continue;
        return Slot{i, (n.kinds[i] & (kFastCell | kFastFree)) != 0};
    }
    error = "it has no variable " + std::string(name);
    return std::nullopt;
}

FrameLocals FrameLocalsReader::read(uint64_t frame, uint64_t code) {
    FrameLocals out;
    auto cached = names_.find(code);
    if (cached == names_.end()) {
        Names names;
        if (!readNames(code, names, out.error)) return out;
        cached = names_.emplace(code, std::move(names)).first;
    }
    const Names& n = cached->second;
    std::vector<uint64_t> slots(n.names.size());
    if (!slots.empty() &&
        !objects_.read(frame + layout_.frLocalsplus, slots.data(), slots.size() * 8)) {
        out.error = "cannot read its variables (" + objects_.why() + ")";
        return out;
    }
    for (size_t i = 0; i < slots.size(); ++i) {
        const uint8_t kind = n.kinds[i];
        if (layout_.minor >= 12 && (kind & kFastHidden)) continue;
        FrameVariable v;
        v.name = n.names[i];
        if (taggedInt(slots[i])) {
            v.kind = i < n.arguments ? FrameVariable::Kind::Argument : FrameVariable::Kind::Local;
            v.type = "int";
            v.value = std::to_string(taggedIntValue(slots[i]));
            out.variables.push_back(std::move(v));
            continue;
        }
        uint64_t object = decodeSlot(slots[i]);
        if (object == 0) continue; // unbound: not assigned yet, or deleted
        if (kind & (kFastCell | kFastFree)) {
            // A cell, once the frame made it (before that, a cell argument is its value).
            object = values_.followCell(object);
            if (object == 0) continue; // an empty cell
        }
        // <= 3.10 moves an argument that a closure captures into a cell of the same name.
        const auto argsEnd =
            n.names.begin() + static_cast<ptrdiff_t>(std::min(n.arguments, n.names.size()));
        const bool argument =
            i < n.arguments || (layout_.legacyFrames && (kind & kFastCell) &&
                                std::find(n.names.begin(), argsEnd, v.name) != argsEnd);
        v.kind = argument           ? FrameVariable::Kind::Argument
                 : kind & kFastFree ? FrameVariable::Kind::Free
                 : kind & kFastCell ? FrameVariable::Kind::Cell
                                    : FrameVariable::Kind::Local;
        ValueDescriber::Value value = values_.describe(object);
        v.type = std::move(value.type);
        v.value = std::move(value.text);
        v.length = value.length;
        out.variables.push_back(std::move(v));
    }
    // Arguments first, in their declared order (a <= 3.10 cell argument comes after).
    std::stable_partition(out.variables.begin(), out.variables.end(), [](const FrameVariable& v) {
        return v.kind == FrameVariable::Kind::Argument;
    });
    return out;
}

} // namespace gilscope::remote
