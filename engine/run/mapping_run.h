// A mapping (from `map -o`) prepared to run for real, one worker per device: the file read and
// checked, lowered to a plan (stream u = device u), each device's cores or GPU; and run as
// per-device segments (mappings with a cuda:N device, or --segments), each segment one subgraph on
// its own executor (the CPU executor on the device's cores, or the CUDA executor: one CUDA graph
// per segment) under the segment runner (exec/segment_runner.h). `run --mapping` and `profile
// --mapping` report what these measure.
#pragma once

#include "exec/cpu/cpu_executor.h"
#include "exec/segment_runner.h"
#include "map/files/mapping_file.h"

#include <cstdint>
#include <string>
#include <vector>

namespace opsched::engine {

struct MappingRun {
    map::MappingDocument doc;
    Plan plan; // stream u = device u
    std::vector<std::vector<int>> partitions; // per device; empty: one device using every core
    std::vector<std::vector<int>> cores; // per device: a CPU device's cores (empty: all, or not a CPU)
    std::vector<int> cudaIndex; // per device: N for cuda:N, -1 for a CPU device
    bool segmented = false; // run through the segment runner (any cuda device, or --segments)
    std::vector<double> predictedStart, predictedFinish; // seconds, per op (empty without costs)
    double predictedMs = 0;
};

// Reads and checks the file and lowers the mapping to a plan. Throws Error when a device is not
// one that runs (sim devices only predict). `segments`: run through the segment runner even when
// every device is a CPU (mappings with a cuda device always are).
MappingRun prepareMappingRun(const Graph& graph, const std::string& file, bool segments = false);

// The measured makespan of the last run: from the first launch's start to the last one's end.
double measuredSpanMs(const std::vector<cpu::LaunchTiming>& timings);

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

// How a segmented run is checked: `check` warms up on other inputs and poisons every value and
// arena before the run whose outputs are returned (engine/run/run_check.h's warmUpInputs);
// `skipWaits` is the fault injection that lets segments read the last run's values.
struct SegmentRunChecks {
    bool check = false;
    bool skipWaits = false;
};

// Throws Error before building anything when a cuda device cannot run here (no CUDA build, no
// device, cuDNN missing), and as the runner does for a segment that cannot be built or fails.
// The outputs are the checked run's with `checks.check`, else the last timed run's.
SegmentRunResult runMappingSegments(const Graph& graph, const MappingRun& run,
    const std::vector<std::vector<float>>& inputs, int repeat, bool tf32, SegmentRunChecks checks = {});

} // namespace opsched::engine
