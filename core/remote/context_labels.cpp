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
    : layout_(layout), reads_(mem, layout), objects_(reads_.objects()),
      sources_(std::move(sources)) {
}

bool ContextLabels::read(uint64_t context, std::vector<std::optional<std::string>>& values) {
    values.assign(sources_.size(), std::nullopt);
    reads_.begin();
    if (context == 0) {
        reads_.spoil(); // nothing read: nothing to prove
        return true;    // the thread has never entered a context: nothing set
    }
    // Each object's head (its type and the fields used) comes in one read.
    const uint64_t shift = layout_.headerShift();
    uint64_t head[6] = {};
    std::string type;
    reads_.object(context);
    if (!plausibleAddress(context) || !objects_.read(context, head, 32 + shift) ||
        !reads_.typeNameOf(context, head[layout_.obType / 8], type))
        return fail("the thread's context cannot be read");
    if (type != "_contextvars.Context" && type != "Context")
        return fail("the thread's context is a " + type + ", not a Context");
    const uint64_t hamt = head[(kContextVars + shift) / 8];
    reads_.object(hamt);
    if (!plausibleAddress(hamt) || !objects_.read(hamt, head, 24 + shift) ||
        !reads_.typeNameOf(hamt, head[layout_.obType / 8], type) || type != "hamt")
        return fail("the context's variables cannot be read");
    const uint64_t root = head[(kHamtRoot + shift) / 8];
    values_ = &values;
    done_.assign(sources_.size(), false);
    found_ = 0;
    size_t nodes = 0;
    const bool ok = root == 0 || walk(root, 0, nodes);
    values_ = nullptr;
    if (!ok) {
        reads_.spoil();
        return false;
    }
    // The thread may leave the context as it is read, and its objects be freed and their
    // memory reused: a read that spans such a change mixes two requests (a span id from a
    // freed int). The same bytes read again prove it did not.
    if (!reads_.unchangedSinceRead()) return fail("the context changed as it was read");
    return true;
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
    reads_.object(node);
    // Fewer bytes where the node ends a mapping; its header at least.
    const size_t got = objects_.readSome(node, first, firstWords * 8) / 8;
    if (got < (kNodeSlots + shift) / 8 || !reads_.typeNameOf(node, first[layout_.obType / 8], type))
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
    // A small node ends within the first read: the objects after it change with other
    // threads' work (a blocked thread's labels once failed to prove, sample after sample).
    reads_.objectSize(node, kNodeSlots + shift + 8 * n);
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
    if (!reads_.typeName(var, type)) return std::nullopt;
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
    std::optional<Span> span; // read once for the sources that ask for it
    for (size_t i = 0; i < sources_.size(); ++i) {
        const LabelSource& source = sources_[i];
        if (done_[i] || source.varName != *name) continue;
        if (source.span == LabelSource::Span::None) {
            (*values_)[i] = reads_.valueText(value);
        } else {
            if (!span && !readSpan(value, span.emplace())) return false;
            if (!span->isOtel) continue; // another variable of that name: not OpenTelemetry's
            (*values_)[i] = spanField(*span, source.span);
        }
        done_[i] = true;
        ++found_;
    }
    return true;
}

namespace {

std::string hexId(unsigned __int128 value, int digits) {
    std::string out(size_t(digits), '0');
    for (int i = digits - 1; i >= 0 && value != 0; --i, value >>= 4)
        out[size_t(i)] = "0123456789abcdef"[size_t(value & 15)];
    return out;
}

} // namespace

bool ContextLabels::readSpan(uint64_t otelContext, Span& span) {
    span = {};
    // Reference counts need no marking here: RemoteDicts marks every header it reads.
    uint64_t flags = 0;
    if (!plausibleAddress(otelContext) || !reads_.typeFlags(otelContext, flags))
        return fail("OpenTelemetry's context cannot be read");
    if (!(flags & RemoteDicts::kDictSubclass)) return true;
    span.isOtel = true;
    uint64_t current = 0;
    if (!objects_.lookupPrefix(otelContext, kOtelSpanKeyPrefix, current))
        return fail("OpenTelemetry's context cannot be read: " + objects_.why());
    if (current == 0) return true; // no span is current
    if (!plausibleAddress(current)) return fail("OpenTelemetry's span is a pointer into nowhere");
    // The SDK's span: _context always, _name unless it is a NonRecordingSpan.
    uint64_t context = 0, name = 0;
    if (!reads_.attribute(current, "_context", context)) return false;
    if (context == 0) return true; // not a span OpenTelemetry made: no labels
    if (!reads_.attribute(current, "_name", name)) return false;
    if (!plausibleAddress(context) || !reads_.typeFlags(context, flags) ||
        !(flags & RemoteDicts::kTupleSubclass))
        return fail("OpenTelemetry's span context is not a tuple");
    int64_t size = 0;
    uint64_t items[2] = {};
    if (!objects_.read(context + layout_.varSize, &size, 8) || size < 2 ||
        !objects_.read(context + layout_.tupleItems, items, sizeof items))
        return fail("OpenTelemetry's span context cannot be read");
    unsigned __int128 ids[2] = {};
    for (size_t i = 0; i < 2; ++i) {
        if (!plausibleAddress(items[i]) || !reads_.typeFlags(items[i], flags) ||
            !(flags & RemoteDicts::kLongSubclass) || !objects_.wideInt(items[i], ids[i]))
            return fail("OpenTelemetry's trace and span ids are not ints of 128 bits");
    }
    if (ids[1] == 0) return true;     // INVALID_SPAN: no span
    span.traceId = hexId(ids[0], 32); // as W3C trace context and Grafana write them
    span.spanId = hexId(ids[1], 16);
    if (name != 0) span.name = reads_.valueText(name);
    return true;
}

std::optional<std::string> ContextLabels::spanField(const Span& span,
                                                    LabelSource::Span field) const {
    switch (field) {
    case LabelSource::Span::TraceId:
        return span.traceId;
    case LabelSource::Span::SpanId:
        return span.spanId;
    case LabelSource::Span::SpanName:
        return span.name;
    case LabelSource::Span::None:
        break;
    }
    return std::nullopt;
}

} // namespace gilscope::remote
