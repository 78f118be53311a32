// Summary statistics of repeated latency measurements, computed one way for writes and migrations.
#pragma once

#include <cstddef>
#include <vector>

namespace opsched::store {

struct LatencyStats {
    std::size_t repeats = 0;
    double medianNs = 0;
    double p10Ns = 0;
    double p90Ns = 0;
    double meanNs = 0;
    double minNs = 0;
    double maxNs = 0;
};

// Percentiles interpolate linearly between closest ranks (as numpy's default), so one repeat
// gives that value for all of them. Empty input gives repeats == 0 and zeros.
LatencyStats latencyStats(std::vector<double> samplesNs);

} // namespace opsched::store
