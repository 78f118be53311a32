#include "util/statistics.h"

#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace opsched {

double quantileSorted(const std::vector<double>& sorted, double q)
{
    if (sorted.empty())
        return 0;
    const double pos = std::clamp(q, 0.0, 1.0) * static_cast<double>(sorted.size() - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const auto hi = std::min(lo + 1, sorted.size() - 1);
    const double frac = pos - static_cast<double>(lo);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

double quantile(std::vector<double> values, double q)
{
    std::sort(values.begin(), values.end());
    return quantileSorted(values, q);
}

Spread spreadOf(std::vector<double> values)
{
    Spread s;
    s.count = values.size();
    std::sort(values.begin(), values.end());
    s.median = quantileSorted(values, 0.5);
    s.p10 = quantileSorted(values, 0.1);
    s.p90 = quantileSorted(values, 0.9);
    return s;
}

std::vector<double> averageRanks(const std::vector<double>& values)
{
    std::vector<std::size_t> order(values.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] < values[b]; });
    std::vector<double> ranks(values.size());
    for (std::size_t i = 0; i < order.size();) {
        std::size_t j = i;
        while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]])
            ++j;
        // Positions i..j (0-based) hold ranks i+1..j+1; each gets their mean.
        const double rank = (static_cast<double>(i + j) / 2.0) + 1.0;
        for (std::size_t k = i; k <= j; ++k)
            ranks[order[k]] = rank;
        i = j + 1;
    }
    return ranks;
}

double spearmanCorrelation(const std::vector<double>& a, const std::vector<double>& b)
{
    if (a.size() != b.size())
        throw Error("rank correlation of series of different lengths (" + std::to_string(a.size()) + " and "
            + std::to_string(b.size()) + ")");
    if (a.size() < 2)
        throw Error("rank correlation needs at least two pairs of values");
    const auto ra = averageRanks(a);
    const auto rb = averageRanks(b);
    const double n = static_cast<double>(a.size());
    const double meanA = std::accumulate(ra.begin(), ra.end(), 0.0) / n;
    const double meanB = std::accumulate(rb.begin(), rb.end(), 0.0) / n;
    double cov = 0, varA = 0, varB = 0;
    for (std::size_t i = 0; i < ra.size(); ++i) {
        cov += (ra[i] - meanA) * (rb[i] - meanB);
        varA += (ra[i] - meanA) * (ra[i] - meanA);
        varB += (rb[i] - meanB) * (rb[i] - meanB);
    }
    if (varA == 0 || varB == 0)
        return std::numeric_limits<double>::quiet_NaN();
    return cov / std::sqrt(varA * varB);
}

} // namespace opsched
