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

// What a row holds: ops (span.id = op id) or, for runs with kernel data, the kernels of the stream
// above it (span.id = index into TimelineData::kernels).
enum class TimelineRowKind : std::uint8_t { Ops, Kernels };

struct TimelineKernel {
    std::string name;      // e.g. "Conv/k1" or a CUPTI kernel name
    std::uint32_t op = 0;  // the op it belongs to (selecting the kernel selects the op)
    double warps = 0;      // warps its grid asks for; 0 when unknown
    std::string launch;    // "grid 8x1x1, block 256x1x1" when known
};

struct TimelineData {
    TimelineRows rows;                      // one row per stream (and its kernel row); see rowKinds
    std::vector<std::string> rowNames;      // "stream 0", ...
    std::vector<TimelineRowKind> rowKinds;  // per row; empty: every row holds ops
    std::vector<TimelineKernel> kernels;    // what kernel-row span ids refer to
    std::vector<std::string> opLabels;      // per op id "name\ntype", for runs not tied to the open model
    std::vector<std::pair<double, double>> stages; // [start, end) of each stage (from barriers)
    std::vector<WarpSample> warps;
    double maxWarps = 0;                    // the device's resident-warp limit, the chart's top
    double latency = 0;

    TimelineRowKind rowKind(std::size_t row) const
    {
        return row < rowKinds.size() ? rowKinds[row] : TimelineRowKind::Ops;
    }
};

// Op spans per stream, kernels of one op merged into one span. Colour class = op kind.
TimelineData timelineFromSimulation(const Graph& graph, const Plan& plan, const SimResult& result,
                                    const SimDevice& device);

} // namespace opsched
