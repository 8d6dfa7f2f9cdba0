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
    // A new thread: values kept from the last one are forgotten (see scalars_).
    void beginThread() { scalars_.clear(); }

    // The object a cell holds (0: empty or unreadable); the cell itself when it is not one.
    uint64_t followCell(uint64_t object);

private:
    // The first bytes of an object, read in one call: its type, its size and most of what
    // is shown of it lie there (a read per field cost 20 µs a variable on 50 threads).
    struct Head {
        static constexpr size_t kBytes = 128;
        uint64_t addr = 0;
        uint8_t bytes[kBytes];
        size_t size = 0;
    };
    bool loadHead(uint64_t object, Head& h);
    // A field at off from the head, or read apart when it lies beyond.
    template <typename T>
    bool field(const Head& h, uint64_t off, T& out);
    bool fieldBytes(const Head& h, uint64_t off, void* dst, size_t len);

    // depth 0: a variable's own value; 1: an item inside a container (shown shorter).
    Value describe(uint64_t object, int depth);
    bool typeOf(const Head& h, std::string& name);
    bool intText(const Head& h, std::string& out);
    bool floatText(const Head& h, std::string& out);
    bool strText(const Head& h, Value& v);
    bool bytesText(const Head& h, Value& v);
    bool sequenceText(const Head& h, bool tuple, int depth, Value& v);
    bool dictText(const Head& h, int depth, Value& v);
    bool setText(const Head& h, bool frozen, int depth, Value& v);

    RemoteDicts& objects_;
    const PythonLayout& layout_;
    std::unordered_map<uint64_t, std::string> typeNames_; // type objects do not move
    // Immutable values (int, float, str, bytes, bool, None) already shown for this thread,
    // by address: a thread's frames share their names, keys and small ints. Kept one
    // thread's read long (about a millisecond), so an object freed meanwhile and its
    // address reused is as unlikely as the frames changing under the read.
    std::unordered_map<uint64_t, Value> scalars_;
};

} // namespace gilscope::remote
