// Strong row ids of the results store: a RunId cannot be passed where a ModelId is expected.
#pragma once

#ifndef Q_MOC_RUN // Qt's moc reads this header (through the views) and cannot parse <compare>
#include <compare>
#endif
#include <cstdint>
#include <functional>

namespace opsched::store {

template <typename Tag> class RowId {
public:
    constexpr RowId() = default;
    constexpr explicit RowId(std::int64_t v)
        : value_(v)
    {
    }
    constexpr std::int64_t value() const { return value_; }
    constexpr bool valid() const { return value_ > 0; } // SQLite rowids start at 1
    constexpr auto operator<=>(const RowId&) const = default;

private:
    std::int64_t value_ = 0;
};

using RunId = RowId<struct RunTag>;
using ModelId = RowId<struct ModelTag>;
using DeviceId = RowId<struct DeviceTag>;
using ScheduleId = RowId<struct ScheduleTag>;
using StringId = RowId<struct StringTag>;

} // namespace opsched::store

template <typename Tag> struct std::hash<opsched::store::RowId<Tag>> {
    std::size_t operator()(const opsched::store::RowId<Tag>& id) const noexcept
    {
        return std::hash<std::int64_t> {}(id.value());
    }
};
