#include "store/latency_stats.h"

#include "util/statistics.h"

#include <algorithm>
#include <numeric>

namespace opsched::store {

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
