#include "core/remote/remote_dict.h"

#include "core/remote/struct_view.h"

#include <algorithm>
#include <cstring>

// Dict and instance layouts (GIL builds, x86_64), from CPython's Objects/dictobject.c and
// Include/internal/pycore_object.h of each minor, checked against live 3.8-3.15 processes:
// - keys object <= 3.10: dk_size@8 (Py_ssize_t), dk_nentries@32, indices@40, whose width
//   follows dk_size; 3.11+: dk_log2_size@8, dk_log2_index_bytes@9, dk_kind@10,
//   dk_nentries@24, indices@32. Entries follow the indices: {hash, key, value} (24 bytes),
//   or {key, value} (16) for 3.11+'s str-only kinds.
// - split tables keep values in ma_values[i] (3.13+: after an 8-byte header).
// - instances <= 3.10: __dict__ at tp_dictoffset. 3.11+ with Py_TPFLAGS_MANAGED_DICT: the
//   dict at obj-24 (3.12: tagged, odd = values pointer - 1), 3.11's values at obj-32, 3.13+'s
//   inline values at obj+tp_basicsize (Py_TPFLAGS_INLINE_VALUES); values are keyed by the
//   type's ht_cached_keys.
// A free-threaded build (3.13t) moves every field after the object header 16 bytes on
// (PythonLayout::headerShift) and keeps the managed dict at obj-8.
namespace gilscope::remote {

namespace {

// PyTypeObject fields on a GIL build; add PythonLayout::headerShift().
constexpr uint64_t kTpName = 24, kTpBasicSize = 32, kTpFlags = 168, kTpDictOffset = 288;
constexpr uint64_t kManagedDict = 1 << 4, kInlineValues = 1 << 2;
constexpr uint64_t kMaxTableSize = uint64_t{1} << 24; // slots; entries are capped far lower

} // namespace

RemoteDicts::RemoteDicts(ProcessMemory& mem, const PythonLayout& layout)
    : mem_(mem), layout_(layout), objects_(mem, layout) {
}

void RemoteDicts::beginRefresh() {
    bytesLeft_ = kMaxRefreshBytes;
    why_.clear();
}

bool RemoteDicts::fail(std::string why) {
    if (why_.empty()) why_ = std::move(why);
    return false;
}

bool RemoteDicts::spend(size_t bytes) {
    if (bytes > bytesLeft_) return fail("the objects are larger than gilscope reads at once");
    bytesLeft_ -= bytes;
    return true;
}

bool RemoteDicts::read(uint64_t addr, void* dst, size_t len) {
    if (!plausibleAddress(addr)) return fail("a pointer between the objects is not valid");
    if (!spend(len)) return false;
    if (!mem_.read(addr, dst, len)) return fail("the objects changed while being read");
    return true;
}

std::optional<std::string> RemoteDicts::string(uint64_t addr, size_t maxChars,
                                               std::span<const uint8_t> prefix) {
    if (!spend(maxChars * 4)) return std::nullopt;
    headRead(addr);
    return objects_.readString(addr, maxChars, prefix);
}

size_t RemoteDicts::readSome(uint64_t addr, void* dst, size_t len) {
    if (!plausibleAddress(addr)) {
        fail("a pointer between the objects is not valid");
        return 0;
    }
    if (!spend(len)) return 0;
    return mem_.readPartial(addr, dst, len);
}

std::optional<std::string> RemoteDicts::string(uint64_t addr, size_t maxChars) {
    if (!spend(512 + maxChars * 4)) return std::nullopt;
    headRead(addr);
    return objects_.readString(addr, maxChars);
}

bool RemoteDicts::entries(uint64_t dict, std::vector<DictEntry>& out) {
    out.clear();
    uint8_t d[72];
    const size_t need = std::max(layout_.dictKeys, layout_.dictValues) + 8;
    const StructView view(d, std::min(need, sizeof d));
    headRead(dict);
    if (!view.covers(layout_.dictKeys, 8) || !view.covers(layout_.dictValues, 8) ||
        !read(dict, d, view.size()))
        return fail("cannot read a dict");
    return keyEntries(view.field<uint64_t>(layout_.dictKeys),
                      view.field<uint64_t>(layout_.dictValues), out);
}

bool RemoteDicts::keyEntries(uint64_t keys, uint64_t values, std::vector<DictEntry>& out) {
    out.clear();
    uint8_t h[40];
    if (counts_) counts_(keys, 8); // dk_refcnt: instances sharing the keys change it
    if (!read(keys, h, sizeof h)) return false;
    const StructView header(h, sizeof h);
    uint64_t size = 0, entriesAt = 0, entrySize = 24, keyAt = 8;
    int64_t used = 0;
    if (layout_.minor <= 10) {
        size = header.field<uint64_t>(8);
        used = header.field<int64_t>(32);
        const uint64_t width = size <= 0xff ? 1 : size <= 0xffff ? 2 : size <= 0xffffffff ? 4 : 8;
        if (size == 0 || (size & (size - 1)) || size > kMaxTableSize)
            return fail("a dict's table size is not valid");
        entriesAt = keys + 40 + size * width;
    } else {
        const uint8_t log2Size = h[8], log2IndexBytes = h[9], kind = h[10];
        used = header.field<int64_t>(24);
        if (log2Size > 24 || log2IndexBytes > 27 || kind > 2)
            return fail("a dict's table size is not valid");
        size = uint64_t{1} << log2Size;
        entriesAt = keys + 32 + (uint64_t{1} << log2IndexBytes);
        if (kind != 0) { // str keys only: no hash in the entry
            entrySize = 16;
            keyAt = 0;
        }
    }
    if (used < 0 || static_cast<uint64_t>(used) > size)
        return fail("a dict's entry count is not valid");
    const size_t n = std::min<size_t>(static_cast<size_t>(used), kMaxEntries);
    table_.resize(n * entrySize);
    if (n && !read(entriesAt, table_.data(), table_.size())) return false;
    std::vector<uint64_t> split;
    if (plausibleAddress(values) && n) {
        split.resize(n);
        if (!read(values + (layout_.minor >= 13 ? 8 : 0), split.data(), n * 8)) return false;
    }
    out.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        const StructView e = StructView(table_).sub(i * entrySize, entrySize);
        DictEntry entry{e.field<uint64_t>(keyAt),
                        split.empty() ? e.field<uint64_t>(keyAt + 8) : split[i]};
        out.push_back(entry); // deleted slots stay, with a zero value: indices keep meaning
    }
    return true;
}

// The keys we look for are short ASCII names, so one read of each key's header and text
// tells: all keys in one process_vm_readv of up to kMaxReadRanges ranges. Each key's copy
// spans every field read of it (the target's _Py_DebugOffsets place the header's fields),
// and is read through StructView: a table that puts them anywhere cannot read past it.
bool RemoteDicts::findKey(const std::vector<DictEntry>& entries, std::string_view key,
                          int64_t& index, bool prefix) {
    index = -1;
    if (key.size() > kMaxKeyChars) return false;
    if (layout_.strState == kAbsent || layout_.strLength == kAbsent ||
        layout_.strAsciiSize == kAbsent || layout_.strState > kMaxStrHeader ||
        layout_.strLength > kMaxStrHeader || layout_.strAsciiSize > kMaxStrHeader)
        return fail("the target's str layout is not one gilscope reads");
    const size_t span = std::max({size_t(layout_.strAsciiSize) + key.size(),
                                  size_t(layout_.strState) + 4, size_t(layout_.strLength) + 8});
    std::vector<iovec> local, remote;
    for (size_t first = 0; first < entries.size(); first += kMaxReadRanges) {
        const size_t count = std::min(kMaxReadRanges, entries.size() - first);
        if (!spend(count * span)) return false;
        keyText_.assign(count * span, 0);
        local.clear();
        remote.clear();
        std::vector<size_t> which;
        for (size_t i = 0; i < count; ++i) {
            const DictEntry& e = entries[first + i];
            if (!e.value || !plausibleAddress(e.key)) continue;
            headRead(e.key);
            local.push_back({keyText_.data() + which.size() * span, span});
            remote.push_back({reinterpret_cast<void*>(e.key), span});
            which.push_back(first + i);
        }
        // A key whose range fails ends the batch; the rest are read one by one.
        for (size_t done = 0; done < local.size();) {
            const size_t got =
                mem_.readMany(std::span(local).subspan(done), std::span(remote).subspan(done));
            done += std::max<size_t>(got, 1);
        }
        for (size_t j = 0; j < which.size(); ++j) {
            const StructView s = StructView(keyText_).sub(j * span, span);
            const bool compactAscii = (s.field<uint32_t>(layout_.strState) & 0x60) == 0x60;
            const StructView text = s.sub(layout_.strAsciiSize, key.size());
            const int64_t length = s.field<int64_t>(layout_.strLength);
            if (compactAscii &&
                (length == int64_t(key.size()) || (prefix && length > int64_t(key.size()))) &&
                (key.empty() ||
                 (!text.empty() && std::memcmp(text.data(), key.data(), key.size()) == 0))) {
                index = static_cast<int64_t>(which[j]);
                return true;
            }
        }
    }
    return true;
}

bool RemoteDicts::lookup(uint64_t dict, std::string_view key, uint64_t& value) {
    value = 0;
    if (!entries(dict, scratch_)) return false;
    int64_t index = -1;
    if (!findKey(scratch_, key, index)) return false;
    if (index >= 0) value = scratch_[static_cast<size_t>(index)].value;
    return true;
}

bool RemoteDicts::lookupPrefix(uint64_t dict, std::string_view prefix, uint64_t& value) {
    value = 0;
    if (!entries(dict, scratch_)) return false;
    int64_t index = -1;
    if (!findKey(scratch_, prefix, index, true)) return false;
    if (index >= 0) value = scratch_[static_cast<size_t>(index)].value;
    return true;
}

bool RemoteDicts::typeFlags(uint64_t object, uint64_t& flags) {
    uint64_t typeAddr = 0;
    Type type;
    if (!read(object + layout_.obType, &typeAddr, 8) || !readType(typeAddr, type)) return false;
    flags = type.flags;
    return true;
}

bool RemoteDicts::readType(uint64_t type, Type& out) {
    const uint64_t shift = layout_.headerShift();
    uint8_t t[kTpDictOffset + 8 + 16];
    if (shift > 16) return fail("an object header gilscope does not know");
    headRead(type);
    if (!read(type, t, kTpDictOffset + 8 + shift)) return fail("cannot read an object's type");
    const StructView view(t, kTpDictOffset + 8 + shift);
    out.basicSize = view.field<uint64_t>(kTpBasicSize + shift);
    out.flags = view.field<uint64_t>(kTpFlags + shift);
    out.dictOffset = view.field<int64_t>(kTpDictOffset + shift);
    out.cachedKeys = 0;
    if (out.basicSize < 16 || out.basicSize > (1 << 16))
        return fail("an object's type does not look like a type");
    if (layout_.htCachedKeys != kAbsent && (out.flags & kManagedDict) &&
        !read(type + layout_.htCachedKeys, &out.cachedKeys, 8))
        return false;
    return true;
}

bool RemoteDicts::attribute(uint64_t object, std::string_view name, uint64_t& value) {
    value = 0;
    uint64_t typeAddr = 0;
    headRead(object);
    if (!read(object + layout_.obType, &typeAddr, 8)) return false;
    Type type;
    if (!readType(typeAddr, type)) return false;
    uint64_t dict = 0, values = 0;
    if (layout_.minor >= 11 && (type.flags & kManagedDict)) {
        // The word before the dict's (3.11's values), the dict (3.12: or tagged values).
        uint64_t slots[2] = {};
        const uint64_t at = object - static_cast<uint64_t>(-layout_.managedDict) - 8;
        if (!read(at, slots, sizeof slots)) return false;
        dict = slots[1];
        if (layout_.minor == 11) {
            values = dict ? 0 : slots[0];
        } else if (layout_.minor == 12 && (dict & 1)) {
            values = dict + 1;
            dict = 0;
        } else if (layout_.minor >= 13 && !dict && (type.flags & kInlineValues)) {
            uint8_t header[4];
            if (!read(object + type.basicSize, header, sizeof header)) return false;
            if (header[3]) values = object + type.basicSize; // `valid`: not moved to a dict
        }
    } else if (type.dictOffset > 0 && static_cast<uint64_t>(type.dictOffset) < type.basicSize) {
        if (!read(object + static_cast<uint64_t>(type.dictOffset), &dict, 8)) return false;
    }
    if (dict) return lookup(dict, name, value);
    if (!values) return true; // no attributes at all
    if (!plausibleAddress(type.cachedKeys)) return fail("an instance's shared keys are missing");
    if (!keyEntries(type.cachedKeys, values, scratch_)) return false;
    int64_t index = -1;
    if (!findKey(scratch_, name, index)) return false;
    if (index >= 0) value = scratch_[static_cast<size_t>(index)].value;
    return true;
}

bool RemoteDicts::wideInt(uint64_t object, unsigned __int128& value) {
    const uint64_t header = layout_.objectHeader;
    int64_t sizeField = 0;
    if (!plausibleAddress(object) || !read(object + header, &sizeField, 8)) return false;
    int64_t digits = 0;
    if (layout_.minor >= 12) { // lv_tag: digits << 3 | sign (0 positive, 1 zero, 2 negative)
        if ((sizeField & 3) == 1) {
            value = 0;
            return true;
        }
        if ((sizeField & 3) != 0) return fail("a negative int");
        digits = sizeField >> 3;
    } else {
        digits = sizeField;
    }
    // 128 bits take five 30-bit digits. Only the int's own digits are read: what lies
    // after it on the heap is another object's.
    uint32_t d[5] = {};
    if (digits < 0 || digits > 5) return fail("an int wider than 128 bits");
    if (digits > 0 && !read(object + header + 8, d, 4 * size_t(digits))) return false;
    value = 0;
    for (int64_t i = digits - 1; i >= 0; --i) {
        if (d[i] >> 30 || (value >> 98) != 0) return fail("an int wider than 128 bits");
        value = (value << 30) | d[i];
    }
    return true;
}

bool RemoteDicts::smallInt(uint64_t object, uint64_t& value) {
    // The header, the size word and two 30-bit digits.
    const uint64_t header = layout_.objectHeader;
    uint8_t o[48];
    if (header > 32) return fail("an object header gilscope does not know");
    headRead(object);
    if (!read(object, o, header + 16)) return false;
    // 3.12+: lv_tag = digits << 3 | sign (0 positive, 1 zero, 2 negative); before: ob_size.
    const StructView view(o, header + 16);
    const int64_t sizeField = view.field<int64_t>(header);
    int64_t digits = 0;
    if (layout_.minor >= 12) {
        if ((sizeField & 3) == 1) {
            value = 0;
            return true;
        }
        if ((sizeField & 3) != 0) return false;
        digits = sizeField >> 3;
    } else {
        digits = sizeField;
    }
    if (digits == 0) {
        value = 0;
        return true;
    }
    if (digits < 0 || digits > 2) return false;
    const uint32_t low = view.field<uint32_t>(header + 8),
                   high = digits == 2 ? view.field<uint32_t>(header + 12) : 0;
    if (low >> 30 || high >> 30) return false; // 30-bit digits
    value = uint64_t{low} | (uint64_t{high} << 30);
    return true;
}

std::optional<std::string> RemoteDicts::typeName(uint64_t object) {
    uint64_t type = 0, name = 0;
    if (!read(object + layout_.obType, &type, 8) ||
        !read(type + kTpName + layout_.headerShift(), &name, 8))
        return std::nullopt;
    char text[65] = {};
    if (!plausibleAddress(name)) {
        fail("an object's type has no name");
        return std::nullopt;
    }
    if (!spend(64)) return std::nullopt;
    const size_t got = mem_.readPartial(name, text, 64);
    if (!got) {
        fail("the objects changed while being read");
        return std::nullopt;
    }
    return std::string(text, strnlen(text, got));
}

} // namespace gilscope::remote
