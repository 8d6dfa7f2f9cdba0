#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace gilscope {

// A small dense id that is its own type (samply's typed handles): a FrameId cannot be
// passed where a StringId or a thread slot is meant, and no id converts to or from a
// plain integer without saying so (TypedId{n}, .value()).
template <class Tag, class Rep = uint32_t>
class TypedId {
public:
    using rep_type = Rep;

    constexpr TypedId() = default;
    constexpr explicit TypedId(Rep value) : value_(value) {}
    // Ids are counted from container sizes; the caller has checked the size fits Rep.
    static constexpr TypedId fromIndex(size_t index) { return TypedId(static_cast<Rep>(index)); }

    constexpr Rep value() const { return value_; }
    constexpr size_t index() const { return value_; }

    // Written out, not <=>: moc follows includes and cannot parse <compare>.
    friend constexpr bool operator==(TypedId a, TypedId b) { return a.value_ == b.value_; }
    friend constexpr bool operator!=(TypedId a, TypedId b) { return a.value_ != b.value_; }
    friend constexpr bool operator<(TypedId a, TypedId b) { return a.value_ < b.value_; }

private:
    Rep value_ = 0;
};

// A vector indexed only by its id type, for per-id tables (rustc's IndexVec).
template <class Id, class T>
class IdVector {
public:
    IdVector() = default;

    T& operator[](Id id) { return items_[id.index()]; }
    const T& operator[](Id id) const { return items_[id.index()]; }
    // The id the next push_back gets.
    Id nextId() const { return Id::fromIndex(items_.size()); }
    Id push_back(T item) {
        const Id id = nextId();
        items_.push_back(std::move(item));
        return id;
    }
    bool contains(Id id) const { return id.index() < items_.size(); }
    // The entry for id, growing the table with fill to reach it (per-id caches that
    // fill as ids arrive).
    T& cover(Id id, const T& fill = T{}) {
        if (!contains(id)) items_.resize(id.index() + 1, fill);
        return items_[id.index()];
    }
    void resize(size_t n) { items_.resize(n); }
    size_t size() const { return items_.size(); }

private:
    std::vector<T> items_;
};

} // namespace gilscope

template <class Tag, class Rep>
struct std::hash<gilscope::TypedId<Tag, Rep>> {
    size_t operator()(gilscope::TypedId<Tag, Rep> id) const noexcept {
        return std::hash<Rep>{}(id.value());
    }
};
