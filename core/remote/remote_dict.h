#pragma once

#include "core/remote/python_layout.h"
#include "core/remote/remote_memory.h"
#include "core/remote/remote_objects.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gilscope::remote {

struct DictEntry {
    uint64_t key = 0, value = 0;
};

// Reads dicts, instance attributes and small ints out of the target (threading's registry
// for thread names, a frame's variables for dump --locals). The target changes them as we read:
// every table size is capped and checked against its header, and all reads between two
// beginRefresh() calls share one budget of bytes, so a hostile or torn dict can neither stall nor
// grow the reader.
class RemoteDicts {
public:
    static constexpr size_t kMaxEntries = 1 << 14;      // entries looked at in one dict
    static constexpr size_t kMaxRefreshBytes = 4 << 20; // every read of one refresh
    static constexpr size_t kMaxKeyChars = 64;          // keys we look up are short names
    static constexpr uint64_t kMaxStrHeader = 512;      // a str's fields lie within this

    RemoteDicts(ProcessMemory& mem, const PythonLayout& layout);

    // Told of each header read whose first `counts` bytes are reference counts (an
    // object's; a keys table's dk_refcnt): they change as other threads share the object,
    // so a caller that compares reads later (LabelReads' proofs) leaves them out.
    using CountsObserver = std::function<void(uint64_t addr, size_t counts)>;
    void setCountsObserver(CountsObserver observer) { counts_ = std::move(observer); }

    // Refills the budget and forgets the last error.
    void beginRefresh();
    // The used entries of the dict at addr, in insertion order (at most kMaxEntries).
    bool entries(uint64_t dict, std::vector<DictEntry>& out);
    // The value under the str key `key` (0: no such key).
    bool lookup(uint64_t dict, std::string_view key, uint64_t& value);
    // The value under the first str key that starts with `prefix` (0: none).
    bool lookupPrefix(uint64_t dict, std::string_view prefix, uint64_t& value);
    // An attribute in an instance's __dict__ or inline values (0: not set).
    bool attribute(uint64_t object, std::string_view name, uint64_t& value);
    // An object's type's tp_flags (Py_TPFLAGS_DICT_SUBCLASS and the like tell subclasses).
    bool typeFlags(uint64_t object, uint64_t& flags);
    static constexpr uint64_t kLongSubclass = 1ull << 24, kTupleSubclass = 1ull << 26,
                              kDictSubclass = 1ull << 29;
    // A non-negative int that fits in 62 bits; false for None, other types or garbage.
    bool smallInt(uint64_t object, uint64_t& value);
    // A non-negative int that fits in 128 bits (an OpenTelemetry trace id); false for
    // anything else (the caller knows the object is an int).
    bool wideInt(uint64_t object, unsigned __int128& value);
    // The C name of an object's type (tp_name), at most 64 bytes.
    std::optional<std::string> typeName(uint64_t object);
    std::optional<std::string> string(uint64_t addr, size_t maxChars);
    // The same from the str's first bytes, already read (RemoteObjects::readString).
    std::optional<std::string> string(uint64_t addr, size_t maxChars,
                                      std::span<const uint8_t> prefix);
    // One pointer-sized word.
    bool pointer(uint64_t addr, uint64_t& value) { return read(addr, &value, 8); }
    // len bytes, from the same budget.
    bool read(uint64_t addr, void* dst, size_t len);
    // Up to len bytes (fewer where a mapping ends), from the same budget; how many.
    size_t readSome(uint64_t addr, void* dst, size_t len);
    // Starts the error over (the budget stays): a caller that shows one unreadable value
    // and goes on to the next.
    void clearError() { why_.clear(); }

    const std::string& why() const { return why_; }
    size_t bytesLeft() const { return bytesLeft_; }

private:
    struct Type {
        uint64_t basicSize = 0, flags = 0;
        int64_t dictOffset = 0;
        uint64_t cachedKeys = 0;
    };
    bool fail(std::string why);
    bool spend(size_t bytes);
    void headRead(uint64_t addr) { // an object's head is about to be read
        if (counts_) counts_(addr, layout_.obType);
    }
    bool readType(uint64_t type, Type& out);
    // Entries of a keys object; values (when non-zero) is a split table's value array.
    bool keyEntries(uint64_t keys, uint64_t values, std::vector<DictEntry>& out);
    // Index in entries of the str key equal to `key` (or, prefix: starting with it), or -1.
    bool findKey(const std::vector<DictEntry>& entries, std::string_view key, int64_t& index,
                 bool prefix = false);

    ProcessMemory& mem_;
    const PythonLayout& layout_;
    RemoteObjects objects_;
    size_t bytesLeft_ = kMaxRefreshBytes;
    std::vector<uint8_t> table_, keyText_;
    std::vector<DictEntry> scratch_;
    CountsObserver counts_;
    std::string why_;
};

} // namespace gilscope::remote
