#include "core/remote/label_reads.h"

#include "core/sample/sample_label.h"

#include <algorithm>
#include <cstring>

namespace gilscope::remote {

LabelReads::LabelReads(ProcessMemory& mem, const PythonLayout& layout)
    : mem_(mem), layout_(layout), recorded_(mem), objects_(recorded_, layout),
      describer_(objects_, layout) {
    objects_.setCountsObserver([this](uint64_t addr, size_t len) { recorded_.counts(addr, len); });
}

void LabelReads::begin() {
    why_.clear();
    recorded_.begin();
    objects_.beginRefresh();
    describer_.beginThread();
}

void LabelReads::RecordingMemory::keep(uint64_t addr, const void* bytes, size_t len) {
    if (!proof.complete || len == 0) return;
    if (proof.ranges.size() >= kMaxProofRanges || proof.bytes.size() + len > kMaxProofBytes) {
        proof.complete = false;
        return;
    }
    proof.ranges.emplace_back(addr, static_cast<uint32_t>(len));
    const auto* b = static_cast<const uint8_t*>(bytes);
    proof.bytes.insert(proof.bytes.end(), b, b + len);
}

void LabelReads::RecordingMemory::limit(uint64_t addr, size_t len) {
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

size_t LabelReads::RecordingMemory::readPartial(uint64_t addr, void* dst, size_t len) {
    const size_t got = inner_.readPartial(addr, dst, len);
    lastErrno_ = inner_.lastErrno();
    keep(addr, dst, got);
    return got;
}

size_t LabelReads::RecordingMemory::readMany(std::span<const iovec> local,
                                             std::span<const iovec> remote) {
    const size_t got = inner_.readMany(local, remote);
    lastErrno_ = inner_.lastErrno();
    for (size_t i = 0; i < got && i < remote.size(); ++i)
        keep(reinterpret_cast<uint64_t>(remote[i].iov_base), local[i].iov_base, local[i].iov_len);
    return got;
}

bool LabelReads::stillHolds(const Proof& proof) {
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
    for (const auto& [addr, len] : proof.ranges) {
        for (const auto& [start, counts] : proof.counts)
            if (start == addr)
                std::copy_n(proof.bytes.begin() + at, std::min<size_t>(counts, len),
                            check_.begin() + at);
        at += len;
    }
    return check_ == proof.bytes;
}

bool LabelReads::fail(std::string why) {
    if (why_.empty()) why_ = std::move(why);
    recorded_.proof.complete = false; // a value said unreadable is read again next time
    return false;
}

bool LabelReads::typeName(uint64_t object, std::string& name) {
    uint64_t type = 0;
    if (!objects_.pointer(object + layout_.obType, type))
        return fail("an object's type cannot be read");
    return typeNameOf(object, type, name);
}

bool LabelReads::typeNameOf(uint64_t object, uint64_t type, std::string& name) {
    if (!plausibleAddress(type)) return fail("an object's type cannot be read");
    if (auto it = typeNames_.find(type); it != typeNames_.end()) {
        name = it->second;
        return true;
    }
    auto got = objects_.typeName(object);
    if (!got) return fail("an object's type has no readable name");
    if (typeNames_.size() < kMaxTypeNames) typeNames_.emplace(type, *got);
    name = std::move(*got);
    return true;
}

bool LabelReads::attribute(uint64_t object, std::string_view name, uint64_t& value) {
    if (!objects_.attribute(object, name, value))
        return fail("." + std::string(name) + ": " + objects_.why());
    return true;
}

bool LabelReads::typeFlags(uint64_t object, uint64_t& flags) {
    uint64_t type = 0;
    if (!objects_.pointer(object + layout_.obType, type) || !plausibleAddress(type))
        return fail("an object's type cannot be read");
    if (auto it = typeFlags_.find(type); it != typeFlags_.end()) {
        flags = it->second;
        return true;
    }
    if (!objects_.typeFlags(object, flags)) return fail("an object's type cannot be read");
    if (typeFlags_.size() < kMaxTypeNames) typeFlags_.emplace(type, flags);
    return true;
}

void LabelReads::limitToString(uint64_t str) {
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

std::string LabelReads::valueText(uint64_t value) {
    objects_.clearError();
    object(value);
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
