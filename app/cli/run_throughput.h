// `run --mapping FILE` for throughput files (map --objective throughput -o): L inputs in flight
// over CPU devices (cpu, cpu:N), one worker thread per device running its ops' batches in the
// file's order, each batch (one op at that batch size, its own executor on the device's cores)
// starting once the batches holding its inputs' values have finished, whatever device ran them.
// The measured makespan is printed beside the file's prediction; --check compares every input's
// outputs element by element with the single-device run of that input.
#pragma once

#include "exec/output_check.h"
#include "graph/graph.h"

#include <string>

namespace opsched::cli {

struct ThroughputRunOptions {
    bool check = false;
    int repeat = 3; // timed runs after one warm-up; the median is reported
    bool json = false;
    Tolerance tolerance; // --check
};

// True when the file is a mapping file whose "objective" is "throughput" (false when it cannot be
// read as JSON: the latency reader then says why).
bool isThroughputMappingFile(const std::string& path);

// Runs `run` (the model, or the model with an injected fault: the same ops) and prints; --check
// compares with `graph`'s single-device run. Returns the exit code (throws Error when the check
// fails, naming the worst element, or when a device is not a CPU device).
int runThroughputMapping(
    const Graph& graph, const Graph& run, const std::string& path, const ThroughputRunOptions& options);

} // namespace opsched::cli
