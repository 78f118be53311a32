// Strong integer ids: an OpId cannot be passed where a TensorId is expected.
#pragma once

#include <compare>
#include <cstdint>
#include <functional>
#include <limits>

namespace opsched {

template <typename Tag> class Index {
public:
    using value_type = std::uint32_t;
    static constexpr value_type kInvalid = std::numeric_limits<value_type>::max();

    constexpr Index() = default;
    constexpr explicit Index(value_type v)
        : value_(v)
    {
    }
    constexpr explicit Index(std::size_t v)
        : value_(static_cast<value_type>(v))
    {
    }
    constexpr explicit Index(int v)
        : value_(static_cast<value_type>(v))
    {
    }

    constexpr value_type value() const { return value_; }
    constexpr bool valid() const { return value_ != kInvalid; }
    constexpr explicit operator bool() const { return valid(); }

    constexpr auto operator<=>(const Index&) const = default;

private:
    value_type value_ = kInvalid;
};

struct OpTag;
struct TensorTag;
struct StreamTag;
struct StageTag;

using OpId = Index<OpTag>;
using TensorId = Index<TensorTag>;
using StreamId = Index<StreamTag>;
using StageId = Index<StageTag>;

} // namespace opsched

template <typename Tag> struct std::hash<opsched::Index<Tag>> {
    std::size_t operator()(const opsched::Index<Tag>& i) const noexcept
    {
        return std::hash<std::uint32_t> {}(i.value());
    }
};
