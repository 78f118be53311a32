// A schedule's timeline in the form the timeline and warps views draw: spans per stream, stage
// bands, and the active-warps curve. Built from core results (a simulated run today, CUPTI
// kernels later), so the views never compute anything themselves.
#pragma once

#include "timeline_rows.h"

#include "graph/graph.h"
#include "schedule/plan.h"
#include "sim/simulator.h"

#include <string>
#include <vector>

namespace opsched {

struct TimelineData {
    TimelineRows rows;                      // one row per stream; span.id = op id
    std::vector<std::string> rowNames;      // "stream 0", ...
    std::vector<std::pair<double, double>> stages; // [start, end) of each stage (from barriers)
    std::vector<WarpSample> warps;
    double maxWarps = 0;                    // the device's resident-warp limit, the chart's top
    double latency = 0;
};

// Op spans per stream, kernels of one op merged into one span. Colour class = op kind.
TimelineData timelineFromSimulation(const Graph& graph, const Plan& plan, const SimResult& result,
                                    const SimDevice& device);

} // namespace opsched
