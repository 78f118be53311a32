#include "store/latency_stats.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace opsched::store {

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

LatencyStats latencyStats(std::vector<double> samplesNs)
{
    LatencyStats s;
    s.repeats = samplesNs.size();
    if (samplesNs.empty())
        return s;
    std::sort(samplesNs.begin(), samplesNs.end());
    s.medianNs = quantileSorted(samplesNs, 0.5);
    s.p10Ns = quantileSorted(samplesNs, 0.1);
    s.p90Ns = quantileSorted(samplesNs, 0.9);
    s.meanNs = std::accumulate(samplesNs.begin(), samplesNs.end(), 0.0) / static_cast<double>(samplesNs.size());
    s.minNs = samplesNs.front();
    s.maxNs = samplesNs.back();
    return s;
}

} // namespace opsched::store
