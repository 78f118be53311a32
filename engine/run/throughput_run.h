// A throughput mapping (map --objective throughput -o) run for real: L inputs in flight over CPU
// devices (cpu, cpu:N), one worker thread per device running its ops' batches in the file's order,
// each batch (one op at that batch size, its own executor on the device's cores) starting once the
// batches holding its inputs' values have finished, whatever device ran them. `run --mapping FILE`
// reports what it measures beside the file's prediction; with `check`, every input's outputs are
// compared element by element with the single-device run of that input.
#pragma once

#include "exec/output_check.h"
#include "graph/graph.h"

#include <cstddef>
#include <string>
#include <vector>

namespace opsched::engine {

struct ThroughputRunOptions {
    bool check = false;
    int repeat = 3; // timed runs after one warm-up; the median is reported
    Tolerance tolerance; // check
};

struct ThroughputRunResult {
    std::string mapper; // the file's
    std::vector<std::string> devices;
    std::size_t inputs = 0, batches = 0;
    double predictedMs = 0; // the file's makespan
    std::vector<double> spansMs; // each timed run's makespan, sorted
    double measuredMs = 0; // their median
    std::vector<OutputComparison> checks; // with check: one per output and input
};

// True when the file is a mapping file whose "objective" is "throughput" (false when it cannot be
// read as JSON: the latency reader then says why).
bool isThroughputMappingFile(const std::string& path);

// Runs `run` (the model, or the model with an injected fault: the same ops) as the file maps it;
// checks compare with `graph`'s single-device run. Throws Error naming the problem when the file
// cannot be read or a device is not a CPU device. A failed check is in the result, not thrown.
ThroughputRunResult runThroughputMapping(
    const Graph& graph, const Graph& run, const std::string& path, const ThroughputRunOptions& options);

} // namespace opsched::engine
