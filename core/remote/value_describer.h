#pragma once

#include "core/remote/python_layout.h"
#include "core/remote/remote_dict.h"

#include <cstdint>
#include <string>
#include <unordered_map>

namespace gilscope::remote {

// A short, Python-like text for an object in the target, read from its memory without
// running any of its code (dump --locals): None, bool, int of any size, float, str and
// bytes (shortened), list/tuple/dict/set with their first few items, cells followed, any
// other object as "<TypeName at 0x…>". Every read goes through one RemoteDicts budget, so a
// torn or hostile object costs a bounded number of bytes and prints "<unreadable>".
class ValueDescriber {
public:
    static constexpr size_t kMaxStrChars = 80;
    static constexpr size_t kMaxBytes = 48;
    static constexpr size_t kMaxItems = 5;      // items shown of a container
    static constexpr size_t kMaxIntDigits = 64; // 30-bit digits (about 577 decimal digits)
    static constexpr const char* kUnreadable = "<unreadable>";

    ValueDescriber(RemoteDicts& objects, const PythonLayout& layout)
        : objects_(objects), layout_(layout) {}

    struct Value {
        std::string type; // tp_name; empty when unreadable
        std::string text;
        int64_t length = -1; // items or characters of a str, bytes or container
    };
    Value describe(uint64_t object);

    // The object a cell holds (0: empty or unreadable); the cell itself when it is not one.
    uint64_t followCell(uint64_t object);

private:
    // depth 0: a variable's own value; 1: an item inside a container (shown shorter).
    Value describe(uint64_t object, int depth);
    bool typeOf(uint64_t object, uint64_t& type, std::string& name);
    bool intText(uint64_t object, std::string& out);
    bool floatText(uint64_t object, std::string& out);
    bool strText(uint64_t object, Value& v);
    bool bytesText(uint64_t object, Value& v);
    bool sequenceText(uint64_t object, bool tuple, int depth, Value& v);
    bool dictText(uint64_t object, int depth, Value& v);
    bool setText(uint64_t object, bool frozen, int depth, Value& v);

    RemoteDicts& objects_;
    const PythonLayout& layout_;
    std::unordered_map<uint64_t, std::string> typeNames_; // type objects do not move
};

// Python's repr of a str (quotes chosen as Python does, control characters escaped) and of
// bytes. Exposed for tests.
std::string pythonStrRepr(const std::string& utf8);
std::string pythonBytesRepr(const uint8_t* data, size_t n);
// Decimal text of an int given as little-endian 30-bit digits.
std::string decimalFromDigits30(std::vector<uint32_t> digits, bool negative);

} // namespace gilscope::remote
