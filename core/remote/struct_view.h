#pragma once

#include "core/remote/python_layout.h"

#include <cstdint>
#include <cstring>
#include <optional>
#include <span>
#include <type_traits>
#include <vector>

namespace gilscope::remote {

// The one rule for a field at `off`, `width` bytes wide, in a structure or copy of `size`
// bytes: it lies wholly inside, without wrapping (kAbsent never does). Layout checks,
// StructView and the reader's windows all ask it.
constexpr bool fits(uint64_t off, uint64_t width, uint64_t size) {
    return off != kAbsent && off <= size && width <= size - off;
}

// A local copy of target memory (a thread state, a frame, a code object, a str header),
// read only through typed, bounds-checked field accessors: every offset the target's
// _Py_DebugOffsets gives is checked against the bytes actually copied, as py-spy copies
// structs through one memory trait. Offsets are never trusted, so a lying table or a
// short read yields "absent" (std::nullopt, or zero from field()), never a read past the
// copy. The one home for reading a field at an offset in core/remote.
class StructView {
public:
    StructView() = default;
    StructView(std::span<const uint8_t> bytes) : bytes_(bytes) {}
    StructView(const std::vector<uint8_t>& bytes) : bytes_(bytes) {}
    StructView(const uint8_t* data, size_t size) : bytes_(data, size) {}

    size_t size() const { return bytes_.size(); }
    bool empty() const { return bytes_.empty(); }
    const uint8_t* data() const { return bytes_.data(); }

    // Whether [off, off + width) lies inside the copy (kAbsent never does).
    bool covers(uint64_t off, uint64_t width) const { return fits(off, width, bytes_.size()); }

    template <typename T>
    std::optional<T> get(uint64_t off) const {
        static_assert(std::is_trivially_copyable_v<T>);
        if (!covers(off, sizeof(T))) return std::nullopt;
        T v;
        std::memcpy(&v, bytes_.data() + off, sizeof v);
        return v;
    }

    // The field, or zero when it lies outside the copy (absent fields read as zero).
    template <typename T>
    T field(uint64_t off) const {
        return get<T>(off).value_or(T{});
    }

    // [off, off + len) of the copy, or an empty view when it does not fit.
    StructView sub(uint64_t off, uint64_t len) const {
        if (!covers(off, len)) return {};
        return bytes_.subspan(static_cast<size_t>(off), static_cast<size_t>(len));
    }

private:
    std::span<const uint8_t> bytes_;
};

} // namespace gilscope::remote
