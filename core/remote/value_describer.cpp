#include "core/remote/value_describer.h"

#include "core/remote/struct_view.h"
#include "core/util/python_float.h"
#include "core/util/python_repr.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

// Object layouts below are CPython's public structs, the same from 3.8 to 3.15 on a GIL
// build once the header is skipped (measured with offsetof against each pyenv install's
// headers): PyFloatObject.ob_fval, PyListObject {ob_size, ob_item}, PyDictObject.ma_used,
// PySetObject {fill, used, mask, table} with 16-byte setentry {key, hash}, PyCellObject.ob_ref,
// PyLongObject's size word (lv_tag from 3.12) then 30-bit digits.
namespace gilscope::remote {

namespace {

constexpr size_t kSetEntrySize = 16;
constexpr uint64_t kMaxSetSlots = uint64_t{1} << 20;

std::string hexAddress(uint64_t a) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(a));
    return buf;
}

bool plausibleTypeName(const std::string& name) {
    if (name.empty()) return false;
    for (unsigned char c : name)
        if (!(std::isalnum(c) || c >= 0x80 || c == '_' || c == '.' || c == '<' || c == '>' ||
              c == '-'))
            return false;
    return true;
}

// Strips the "…" RemoteObjects puts on a string it cut.
bool stripEllipsis(std::string& s) {
    static const std::string kEllipsis = "\xE2\x80\xA6";
    if (s.size() >= kEllipsis.size() && s.compare(s.size() - 3, 3, kEllipsis) == 0) {
        s.resize(s.size() - 3);
        return true;
    }
    return false;
}

} // namespace

ValueDescriber::Value ValueDescriber::describe(uint64_t object) {
    objects_.clearError();
    return describe(object, 0);
}

bool ValueDescriber::loadHead(uint64_t object, Head& h) {
    h.addr = object;
    h.size = 0;
    if (!plausibleAddress(object) || (object & 7)) return false;
    h.size = objects_.readSome(object, h.bytes, Head::kBytes);
    return h.size >= layout_.objectHeader;
}

bool ValueDescriber::fieldBytes(const Head& h, uint64_t off, void* dst, size_t len) {
    if (off + len <= h.size) {
        std::memcpy(dst, h.bytes + off, len);
        return true;
    }
    return objects_.read(h.addr + off, dst, len);
}

template <typename T>
bool ValueDescriber::field(const Head& h, uint64_t off, T& out) {
    return fieldBytes(h, off, &out, sizeof out);
}

uint64_t ValueDescriber::followCell(uint64_t object) {
    Head h;
    std::string name;
    if (!loadHead(object, h) || !typeOf(h, name) || name != "cell") return object;
    uint64_t ref = 0;
    if (!field(h, layout_.objectHeader, ref)) return 0;
    return ref;
}

bool ValueDescriber::typeOf(const Head& h, std::string& name) {
    uint64_t type = 0;
    if (!field(h, layout_.obType, type) || !plausibleAddress(type)) return false;
    auto it = typeNames_.find(type);
    if (it == typeNames_.end()) {
        auto read = objects_.typeName(h.addr);
        if (!read || !plausibleTypeName(*read)) return false;
        it = typeNames_.emplace(type, *read).first;
    }
    name = it->second;
    return true;
}

ValueDescriber::Value ValueDescriber::describe(uint64_t object, int depth) {
    if (auto known = scalars_.find(object); known != scalars_.end()) return known->second;
    Value v;
    Head h;
    std::string name;
    if (!loadHead(object, h) || !typeOf(h, name)) {
        v.text = kUnreadable;
        return v;
    }
    v.type = name;
    bool ok = true;
    if (name == "NoneType")
        v.text = "None";
    else if (name == "bool") {
        std::string digits;
        ok = intText(h, digits) && (digits == "0" || digits == "1");
        v.text = digits == "1" ? "True" : "False";
    } else if (name == "int")
        ok = intText(h, v.text);
    else if (name == "float")
        ok = floatText(h, v.text);
    else if (name == "str")
        ok = strText(h, v);
    else if (name == "bytes")
        ok = bytesText(h, v);
    else if (name == "list" || name == "tuple")
        ok = sequenceText(h, name == "tuple", depth, v);
    else if (name == "dict")
        ok = dictText(h, depth, v);
    else if (name == "set" || name == "frozenset")
        ok = setText(h, name == "frozenset", depth, v);
    else
        v.text = "<" + name + " at " + hexAddress(object) + ">";
    if (!ok) {
        v.text = kUnreadable;
        v.length = -1;
    } else if (name == "int" || name == "str" || name == "float" || name == "bool" ||
               name == "bytes" || name == "NoneType") {
        scalars_.emplace(object, v);
    }
    return v;
}

bool ValueDescriber::intText(const Head& h, std::string& out) {
    const uint64_t header = layout_.objectHeader;
    int64_t sizeField = 0;
    if (!field(h, header, sizeField)) return false;
    bool negative = false;
    int64_t count = 0;
    if (layout_.minor >= 12) { // lv_tag: digits << 3 | sign (0 positive, 1 zero, 2 negative)
        const int64_t sign = sizeField & 3;
        if (sign == 3) return false;
        if (sign == 1) {
            out = "0";
            return true;
        }
        negative = sign == 2;
        count = static_cast<int64_t>(static_cast<uint64_t>(sizeField) >> 3);
    } else {
        negative = sizeField < 0;
        count = negative ? -sizeField : sizeField;
    }
    if (count == 0) {
        out = "0";
        return true;
    }
    // More digits than 4 TB could hold: torn or hostile (and count * 9.03 must fit).
    if (count < 0 || count > (int64_t{1} << 40)) return false;
    if (static_cast<uint64_t>(count) > kMaxIntDigits) {
        // log10(2^30) = 9.03 decimal digits per digit
        out = "<int of about " + std::to_string(static_cast<int64_t>(count * 9.03)) + " digits>";
        return true;
    }
    std::vector<uint32_t> digits(static_cast<size_t>(count));
    if (!fieldBytes(h, header + 8, digits.data(), digits.size() * 4)) return false;
    for (uint32_t d : digits)
        if (d >> 30) return false; // not a 30-bit digit: not an int (torn)
    out = decimalFromDigits30(std::move(digits), negative);
    return true;
}

bool ValueDescriber::floatText(const Head& h, std::string& out) {
    double value = 0;
    if (!field(h, layout_.objectHeader, value)) return false;
    if (std::isnan(value))
        out = "nan";
    else if (std::isinf(value))
        out = value > 0 ? "inf" : "-inf";
    else
        appendPythonFloat(out, value);
    return true;
}

bool ValueDescriber::strText(const Head& h, Value& v) {
    int64_t length = 0;
    if (!field(h, layout_.strLength, length) || length < 0) return false;
    auto text = h.size == Head::kBytes ? objects_.string(h.addr, kMaxStrChars, {h.bytes, h.size})
                                       : objects_.string(h.addr, kMaxStrChars);
    if (!text) return false;
    const bool cut = stripEllipsis(*text) && static_cast<uint64_t>(length) > kMaxStrChars;
    v.text = pythonStrRepr(*text) + (cut ? "\xE2\x80\xA6" : "");
    v.length = length;
    return true;
}

bool ValueDescriber::bytesText(const Head& h, Value& v) {
    int64_t size = 0;
    if (!field(h, layout_.bytesSize, size) || size < 0) return false;
    const size_t shown = std::min<size_t>(static_cast<size_t>(size), kMaxBytes);
    std::vector<uint8_t> data(shown);
    if (shown && !fieldBytes(h, layout_.bytesData, data.data(), shown)) return false;
    v.text = pythonBytesRepr(data.data(), shown) +
             (shown < static_cast<size_t>(size) ? "\xE2\x80\xA6" : "");
    v.length = size;
    return true;
}

bool ValueDescriber::sequenceText(const Head& h, bool tuple, int depth, Value& v) {
    int64_t size = 0;
    if (!field(h, layout_.varSize, size) || size < 0 || size > (int64_t{1} << 40)) return false;
    v.length = size;
    const char* open = tuple ? "(" : "[";
    const char* close = tuple ? ")" : "]";
    if (size == 0) {
        v.text = std::string(open) + close;
        return true;
    }
    if (depth > 0) {
        v.text = std::string(open) + "\xE2\x80\xA6" + close;
        return true;
    }
    const size_t shown = std::min<size_t>(static_cast<size_t>(size), kMaxItems);
    std::vector<uint64_t> item(shown);
    if (tuple) { // items inline
        if (!fieldBytes(h, layout_.tupleItems, item.data(), shown * 8)) return false;
    } else { // list: ob_item
        uint64_t items = 0;
        if (!field(h, layout_.objectHeader + 8, items) ||
            !objects_.read(items, item.data(), shown * 8))
            return false;
    }
    std::string out = open;
    for (size_t i = 0; i < shown; ++i)
        out += (i ? ", " : "") + describe(item[i], depth + 1).text;
    if (shown < static_cast<size_t>(size))
        out += ", \xE2\x80\xA6";
    else if (tuple && size == 1)
        out += ",";
    v.text = out + close;
    return true;
}

bool ValueDescriber::dictText(const Head& h, int depth, Value& v) {
    int64_t used = 0;
    if (!field(h, layout_.objectHeader, used) || used < 0) return false;
    v.length = used;
    if (used == 0) {
        v.text = "{}";
        return true;
    }
    if (depth > 0) {
        v.text = "{\xE2\x80\xA6}";
        return true;
    }
    std::vector<DictEntry> entries;
    if (!objects_.entries(h.addr, entries)) return false;
    std::string out = "{";
    size_t shown = 0;
    for (const DictEntry& e : entries) {
        if (e.key == 0 || e.value == 0) continue; // a deleted slot
        if (shown == kMaxItems) break;
        out += (shown++ ? ", " : "") + describe(e.key, depth + 1).text + ": " +
               describe(e.value, depth + 1).text;
    }
    if (shown < static_cast<size_t>(used)) out += ", \xE2\x80\xA6";
    v.text = out + "}";
    return true;
}

bool ValueDescriber::setText(const Head& h, bool frozen, int depth, Value& v) {
    uint64_t header[4] = {}; // fill, used, mask, table
    if (!fieldBytes(h, layout_.objectHeader, header, sizeof header)) return false;
    const auto used = static_cast<int64_t>(header[1]);
    const uint64_t mask = header[2], table = header[3];
    if (used < 0 || mask >= kMaxSetSlots || (mask & (mask + 1)) ||
        static_cast<uint64_t>(used) > mask + 1)
        return false;
    v.length = used;
    const std::string open = frozen ? "frozenset({" : "{", close = frozen ? "})" : "}";
    if (used == 0) {
        v.text = frozen ? "frozenset()" : "set()";
        return true;
    }
    if (depth > 0) {
        v.text = open + "\xE2\x80\xA6" + close;
        return true;
    }
    // Slots are read a few at a time until enough keys are found: a big set is mostly
    // not read at all.
    std::string out = open;
    size_t shown = 0;
    uint8_t chunk[kSetEntrySize * 16];
    for (uint64_t slot = 0; slot <= mask && shown < kMaxItems; slot += 16) {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(16, mask + 1 - slot));
        if (!objects_.read(table + slot * kSetEntrySize, chunk, n * kSetEntrySize)) return false;
        const StructView view(chunk, n * kSetEntrySize);
        for (size_t i = 0; i < n && shown < kMaxItems; ++i) {
            const uint64_t key = view.field<uint64_t>(i * kSetEntrySize);
            const auto hash = view.field<int64_t>(i * kSetEntrySize + 8);
            if (key == 0 || hash == -1) continue; // empty, or the dummy of a removed key
            out += (shown++ ? ", " : "") + describe(key, depth + 1).text;
        }
    }
    if (shown < static_cast<size_t>(used)) out += ", \xE2\x80\xA6";
    v.text = out + close;
    return true;
}

} // namespace gilscope::remote
