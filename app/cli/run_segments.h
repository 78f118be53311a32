// `run --mapping FILE` for mappings with a cuda:N device (and CPU mappings with --segments): each
// device's ops cut into segments, each segment one subgraph on its own executor (the CPU executor
// on the device's cores, or the CUDA executor: one CUDA graph per segment), run by the segment
// runner (exec/segment_runner.h), one worker thread per device. Reports what the partitioned CPU
// path reports, per op with times split from the measured segment spans.
#pragma once

#include "run_mapping.h"

#include "exec/segment_runner.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace opsched::cli {

struct SegmentRunResult {
    std::vector<double> latenciesMs; // wall time of each timed run, after one warm-up run
    double prepareMs = 0; // cutting, subgraphs, every executor (CUDA graphs captured)
    std::vector<std::vector<float>> outputs;
    std::vector<exec::Segment> segments;
    std::vector<exec::SegmentTiming> timings; // the last run's, per segment
    std::vector<std::vector<std::size_t>> waits; // per segment: the segments it waits for
    std::int64_t arenaBytes = 0; // summed over the segments' executors (each has its own arena)
    std::int64_t weightBytes = 0; // summed likewise
};

// Throws Error before building anything when a cuda device cannot run here (no CUDA build, no
// device, cuDNN missing), and as the runner does for a segment that cannot be built or fails.
SegmentRunResult runMappingSegments(
    const Graph& graph, const MappingRun& run, const std::vector<std::vector<float>>& inputs, int repeat, bool tf32);

void addSegmentsJson(
    nlohmann::ordered_json& j, const Graph& graph, const MappingRun& run, const SegmentRunResult& r, double medianMs);
void printSegmentsText(const Graph& graph, const MappingRun& run, const SegmentRunResult& r, double medianMs);

} // namespace opsched::cli
