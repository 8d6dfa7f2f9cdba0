#include "core/remote/context_labels.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace gilscope::remote {

namespace {

// Python/context.c and Include/internal/pycore_hamt.h (3.7 - 3.15). Offsets past a GIL
// build's 16-byte object header; a free-threaded header is longer (headerShift).
constexpr uint64_t kContextVars = 24; // PyContext: ctx_prev, then ctx_vars
constexpr uint64_t kVarName = 16;     // PyContextVar: var_name first
constexpr uint64_t kHamtRoot = 16;    // PyHamtObject: h_root first
constexpr uint64_t kNodeSlots = 32;   // bitmap and collision nodes: a var header, a 32-bit
                                      // bitmap or hash, then key/value slots
constexpr uint64_t kVarSize = 16;     // ob_size, the number of slots
constexpr size_t kArraySize = 32;     // HAMT_ARRAY_NODE_SIZE
constexpr size_t kMaxSlots = 2 * 32;  // a bitmap node holds at most 32 pairs
constexpr size_t kMaxCollisionSlots = 2 * 64;

} // namespace

ContextLabels::ContextLabels(ProcessMemory& mem, const PythonLayout& layout,
                             std::vector<LabelSource> sources)
    : mem_(mem), recorded_(mem), layout_(layout), sources_(std::move(sources)),
      objects_(recorded_, layout), describer_(objects_, layout) {
}

void ContextLabels::RecordingMemory::keep(uint64_t addr, const void* bytes, size_t len) {
    if (!proof.complete || len == 0) return;
    if (proof.ranges.size() >= kMaxProofRanges || proof.bytes.size() + len > kMaxProofBytes) {
        proof.complete = false;
        return;
    }
    proof.ranges.emplace_back(addr, static_cast<uint32_t>(len));
    const auto* b = static_cast<const uint8_t*>(bytes);
    proof.bytes.insert(proof.bytes.end(), b, b + len);
}

void ContextLabels::RecordingMemory::limit(uint64_t addr, size_t len) {
    size_t at = 0;
    for (auto& [start, size] : proof.ranges) {
        if (start == addr && size > len) {
            proof.bytes.erase(proof.bytes.begin() + at + len, proof.bytes.begin() + at + size);
            size = static_cast<uint32_t>(len);
            return;
        }
        at += size;
    }
}

size_t ContextLabels::RecordingMemory::readPartial(uint64_t addr, void* dst, size_t len) {
    const size_t got = inner_.readPartial(addr, dst, len);
    lastErrno_ = inner_.lastErrno();
    keep(addr, dst, got);
    return got;
}

size_t ContextLabels::RecordingMemory::readMany(std::span<const iovec> local,
                                                std::span<const iovec> remote) {
    const size_t got = inner_.readMany(local, remote);
    lastErrno_ = inner_.lastErrno();
    for (size_t i = 0; i < got && i < remote.size(); ++i)
        keep(reinterpret_cast<uint64_t>(remote[i].iov_base), local[i].iov_base, local[i].iov_len);
    return got;
}

bool ContextLabels::stillHolds(const Proof& proof) {
    if (!proof.complete || proof.ranges.empty()) return false;
    check_.resize(proof.bytes.size());
    checkLocal_.resize(proof.ranges.size());
    checkRemote_.resize(proof.ranges.size());
    size_t at = 0;
    for (size_t i = 0; i < proof.ranges.size(); ++i) {
        checkLocal_[i] = {check_.data() + at, proof.ranges[i].second};
        checkRemote_[i] = {reinterpret_cast<void*>(proof.ranges[i].first), proof.ranges[i].second};
        at += proof.ranges[i].second;
    }
    if (mem_.readBatch(checkLocal_, checkRemote_) != checkRemote_.size()) return false;
    // An object's header up to its type is its reference count(s) (and, free-threaded,
    // its owner and lock): taken as recorded.
    at = 0;
    const size_t counts = layout_.obType;
    for (const auto& [addr, len] : proof.ranges) {
        if (std::find(proof.objects.begin(), proof.objects.end(), addr) != proof.objects.end())
            std::copy_n(proof.bytes.begin() + at, std::min<size_t>(counts, len),
                        check_.begin() + at);
        at += len;
    }
    return check_ == proof.bytes;
}

bool ContextLabels::fail(std::string why) {
    if (why_.empty()) why_ = std::move(why);
    recorded_.proof.complete = false; // a value said unreadable is read again next time
    return false;
}

bool ContextLabels::typeName(uint64_t object, std::string& name) {
    uint64_t type = 0;
    if (!objects_.pointer(object + layout_.obType, type))
        return fail("an object's type cannot be read");
    return typeNameOf(object, type, name);
}

bool ContextLabels::typeNameOf(uint64_t object, uint64_t type, std::string& name) {
    if (!plausibleAddress(type)) return fail("an object's type cannot be read");
    if (auto it = typeNames_.find(type); it != typeNames_.end()) {
        name = it->second;
        return true;
    }
    auto got = objects_.typeName(object);
    if (!got) return fail("an object's type has no readable name");
    if (typeNames_.size() < 4096) typeNames_.emplace(type, *got);
    name = std::move(*got);
    return true;
}

bool ContextLabels::read(uint64_t context, std::vector<std::optional<std::string>>& values) {
    why_.clear();
    values.assign(sources_.size(), std::nullopt);
    recorded_.begin();
    if (context == 0) {
        recorded_.proof.complete = false; // nothing read: nothing to prove
        return true;                      // the thread has never entered a context: nothing set
    }
    objects_.beginRefresh();
    describer_.beginThread();
    // Each object's head (its type and the fields used) comes in one read.
    const uint64_t shift = layout_.headerShift();
    uint64_t head[6] = {};
    std::string type;
    recorded_.object(context);
    if (!plausibleAddress(context) || !objects_.read(context, head, 32 + shift) ||
        !typeNameOf(context, head[layout_.obType / 8], type))
        return fail("the thread's context cannot be read");
    if (type != "_contextvars.Context" && type != "Context")
        return fail("the thread's context is a " + type + ", not a Context");
    const uint64_t hamt = head[(kContextVars + shift) / 8];
    recorded_.object(hamt);
    if (!plausibleAddress(hamt) || !objects_.read(hamt, head, 24 + shift) ||
        !typeNameOf(hamt, head[layout_.obType / 8], type) || type != "hamt")
        return fail("the context's variables cannot be read");
    const uint64_t root = head[(kHamtRoot + shift) / 8];
    values_ = &values;
    found_ = 0;
    size_t nodes = 0;
    const bool ok = root == 0 || walk(root, 0, nodes);
    values_ = nullptr;
    if (!ok) recorded_.proof.complete = false;
    return ok;
}

bool ContextLabels::walk(uint64_t node, int depth, size_t& nodes) {
    if (found_ == sources_.size()) return true; // every label found: the rest is not read
    if (depth > kMaxDepth || ++nodes > kMaxNodes)
        return fail("the context's variables nest deeper than a HAMT can");
    const uint64_t shift = layout_.headerShift();
    // The header and the first pairs in one read: most nodes hold a few variables.
    constexpr size_t kFirstWords = 4 + 16;
    uint64_t first[kFirstWords + 2] = {};
    const size_t firstWords = (kFirstWords * 8 + shift) / 8;
    std::string type;
    recorded_.object(node);
    // Fewer bytes where the node ends a mapping; its header at least.
    const size_t got = objects_.readSome(node, first, firstWords * 8) / 8;
    if (got < (kNodeSlots + shift) / 8 || !typeNameOf(node, first[layout_.obType / 8], type))
        return fail("a HAMT node cannot be read");
    if (type == "hamt_array_node") {
        // 3.8 - 3.13 put the 32 children after a plain object header, then their count;
        // later versions after a var-object header. The count tells which.
        uint64_t words[kArraySize + 2] = {};
        if (!objects_.read(node + 16 + shift, words, sizeof words))
            return fail("a HAMT node cannot be read");
        for (const size_t first : {size_t{0}, size_t{1}}) {
            uint64_t used = 0;
            for (size_t i = 0; i < kArraySize; ++i)
                used += words[first + i] != 0;
            if (used == 0 || used != words[first + kArraySize]) continue;
            for (size_t i = 0; i < kArraySize; ++i)
                if (words[first + i] && !walk(words[first + i], depth + 1, nodes)) return false;
            return true;
        }
        return fail("a HAMT array node's count does not match its children");
    }
    const bool collision = type == "hamt_collision_node";
    if (!collision && type != "hamt_bitmap_node")
        return fail("a node of the context's variables is a " + type);
    const uint64_t sizeWord = first[(kVarSize + shift) / 8];
    const int64_t slots = static_cast<int64_t>(sizeWord);
    const uint32_t bitmap = static_cast<uint32_t>(first[(kVarSize + 8 + shift) / 8]);
    const size_t maxSlots = collision ? kMaxCollisionSlots : kMaxSlots;
    if (slots < 0 || slots % 2 != 0 || size_t(slots) > maxSlots ||
        (!collision && size_t(slots) != 2 * size_t(std::popcount(bitmap))))
        return fail("a HAMT node's size does not match its bitmap");
    uint64_t pairs[kMaxCollisionSlots];
    const size_t inFirst = got - (kNodeSlots + shift) / 8;
    const size_t n = size_t(slots);
    std::copy_n(first + (kNodeSlots + shift) / 8, std::min(n, inFirst), pairs);
    if (n > inFirst &&
        !objects_.read(node + kNodeSlots + shift + 8 * inFirst, pairs + inFirst, 8 * (n - inFirst)))
        return fail("a HAMT node cannot be read");
    for (int64_t i = 0; i < slots; i += 2) {
        const uint64_t key = pairs[i], value = pairs[i + 1];
        if (key == 0 && !collision) { // no key: the value is a child node
            if (!walk(value, depth + 1, nodes)) return false;
        } else if (!visitPair(key, value)) {
            return false;
        }
        if (found_ == sources_.size()) break;
    }
    return true;
}

std::optional<std::string> ContextLabels::varName(uint64_t var) {
    if (auto it = varNames_.find(var); it != varNames_.end()) return it->second;
    std::string type;
    if (!typeName(var, type)) return std::nullopt;
    if (type != "_contextvars.ContextVar" && type != "ContextVar") {
        fail("a key of the context's variables is a " + type);
        return std::nullopt;
    }
    uint64_t name = 0;
    if (!objects_.pointer(var + kVarName + layout_.headerShift(), name) || !plausibleAddress(name))
        return std::nullopt;
    auto text = objects_.string(name, RemoteDicts::kMaxKeyChars * 4);
    if (!text) return std::nullopt;
    // A ContextVar lives as long as the module that made it: its name is read once.
    if (varNames_.size() >= kMaxVarNames) varNames_.clear();
    varNames_.emplace(var, *text);
    return text;
}

bool ContextLabels::visitPair(uint64_t key, uint64_t value) {
    const auto name = varName(key);
    if (!name) return fail("a context variable's name cannot be read");
    for (size_t i = 0; i < sources_.size(); ++i)
        if (!(*values_)[i] && sources_[i].varName == *name) {
            (*values_)[i] = valueText(value);
            ++found_;
        }
    return true;
}

void ContextLabels::limitToString(uint64_t str) {
    // The str's extent from its header, as RemoteObjects decodes it: a compact str's text
    // follows its header, `length` characters of `kind` bytes and a terminator.
    int64_t length = 0;
    uint32_t state = 0;
    for (size_t at = 0, i = 0; i < recorded_.proof.ranges.size();
         at += recorded_.proof.ranges[i++].second) {
        const auto& [start, size] = recorded_.proof.ranges[i];
        if (start != str || size < layout_.strState + 4) continue;
        std::memcpy(&length, recorded_.proof.bytes.data() + at + layout_.strLength, 8);
        std::memcpy(&state, recorded_.proof.bytes.data() + at + layout_.strState, 4);
        const unsigned kind = (state >> 2) & 7;
        const bool ascii = state & 0x40;
        if (length < 0 || length > int64_t(RemoteObjects::kMaxStringChars) || kind == 0) return;
        const size_t header = ascii ? layout_.strAsciiSize : layout_.strCompactSize;
        recorded_.limit(str, header + (size_t(length) + 1) * kind);
        return;
    }
}

std::string ContextLabels::valueText(uint64_t value) {
    objects_.clearError();
    recorded_.object(value);
    // The value's head in one read: its type, and a short str's whole text.
    uint8_t head[128];
    std::string type;
    const size_t got = plausibleAddress(value) ? objects_.readSome(value, head, sizeof head) : 0;
    uint64_t typeAddr = 0;
    if (got >= layout_.obType + 8) std::memcpy(&typeAddr, head + layout_.obType, 8);
    if (typeAddr != 0 && typeNameOf(value, typeAddr, type) && type == "str") {
        // A str is its own text, not its repr: "/checkout", not "'/checkout'".
        if (auto text = objects_.string(value, kMaxLabelValueBytes, {head, got})) {
            limitToString(value);
            return shortLabelValue(*text);
        }
        return ValueDescriber::kUnreadable;
    }
    why_.clear();
    return shortLabelValue(describer_.describe(value).text);
}

} // namespace gilscope::remote
