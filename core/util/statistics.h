// Small statistics over measurements: quantiles for latency spreads and rank correlation for
// comparing simulated with measured latencies. Pure functions.
#pragma once

#include <utility>
#include <vector>

namespace opsched {

// The q-th quantile (0..1) of sorted values, linear between closest ranks (numpy's default), so
// one value gives that value for every q. Empty input gives 0.
double quantileSorted(const std::vector<double>& sorted, double q);

// The q-th quantile (0..1) of unsorted values, as quantileSorted; the median is quantile 0.5 (the
// mean of the two middle values for an even count). The one definition every median and
// percentile in opsched uses.
double quantile(std::vector<double> values, double q);
inline double median(std::vector<double> values)
{
    return quantile(std::move(values), 0.5);
}

// Median and the 10th/90th percentiles of repeated measurements.
struct Spread {
    double median = 0;
    double p10 = 0;
    double p90 = 0;
    std::size_t count = 0;
};
Spread spreadOf(std::vector<double> values);

// Ranks 1..n; tied values share the average of the ranks they span.
std::vector<double> averageRanks(const std::vector<double>& values);

// Spearman's rank correlation (Pearson's over average ranks, so ties are handled). Needs two
// equally long series of at least two values; NaN when either series is constant.
double spearmanCorrelation(const std::vector<double>& a, const std::vector<double>& b);

} // namespace opsched
