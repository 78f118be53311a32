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
    for (std::size_t i = 0; i < b.entries.size(); i += b.width)
        if (lower(b.entries[i], potential) && noLater(&b.entries[i + 1], query.data(), query.size()))
            return true;
    return false;
}

void DominanceMemo::store(std::uint64_t set, std::span<const double> values, double potential)
{
    Bucket& b = buckets_[set];
    b.width = static_cast<std::uint32_t>(values.size() + 1);
    if (values_ + b.width > maxValues_)
        return;
    b.entries.push_back(potential);
    b.entries.insert(b.entries.end(), values.begin(), values.end());
    values_ += b.width;
    ++states_;
}

} // namespace opsched::map
