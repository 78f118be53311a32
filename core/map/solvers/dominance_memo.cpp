#include "map/solvers/dominance_memo.h"

#include <algorithm>
#include <cmath>

namespace opsched::map {
namespace {

// Potentials are sums of up to 64 starts: two that differ by less than this (relative) may be the
// same sum rounded differently, so neither counts as lower.
constexpr double kPotentialTolerance = 1e-9;

bool lower(double a, double b)
{
    return a < b - kPotentialTolerance * std::max(std::abs(b), 1e-9);
}

// a's values all <= b's.
bool noLater(const double* a, const double* b, std::size_t n)
{
    for (std::size_t i = 0; i < n; ++i)
        if (a[i] > b[i])
            return false;
    return true;
}

} // namespace

bool DominanceMemo::dominated(std::uint64_t set, std::span<const double> query, double potential) const
{
    const auto it = buckets_.find(set);
    if (it == buckets_.end())
        return false;
    const Bucket& b = it->second;
    // Entries in increasing potential: only those before the first that is not lower can dominate.
    for (std::size_t i = 0; i < b.entries.size() && lower(b.entries[i], potential); i += b.width)
        if (noLater(&b.entries[i + 1], query.data(), query.size()))
            return true;
    return false;
}

void DominanceMemo::store(std::uint64_t set, std::span<const double> values, double potential)
{
    Bucket& b = buckets_[set];
    b.width = static_cast<std::uint32_t>(values.size() + 1);
    // The entries are in increasing potential: the new one goes after those not above it, and can
    // only dominate (and so replace: it answers every query they would) those after it.
    std::size_t lo = 0, hi = b.entries.size() / b.width;
    while (lo < hi) {
        const std::size_t mid = (lo + hi) / 2;
        if (b.entries[mid * b.width] <= potential)
            lo = mid + 1;
        else
            hi = mid;
    }
    const std::size_t at = lo * b.width;
    std::size_t kept = at;
    for (std::size_t i = at; i < b.entries.size(); i += b.width) {
        if (lower(potential, b.entries[i]) && noLater(values.data(), &b.entries[i + 1], values.size())) {
            values_ -= b.width;
            --states_;
            continue;
        }
        if (kept != i)
            std::copy_n(b.entries.begin() + static_cast<std::ptrdiff_t>(i), b.width,
                b.entries.begin() + static_cast<std::ptrdiff_t>(kept));
        kept += b.width;
    }
    b.entries.resize(kept);
    if (values_ + b.width > maxValues_)
        return;
    const auto pos = b.entries.begin() + static_cast<std::ptrdiff_t>(at);
    b.entries.insert(b.entries.insert(pos, potential) + 1, values.begin(), values.end());
    values_ += b.width;
    ++states_;
}

} // namespace opsched::map
