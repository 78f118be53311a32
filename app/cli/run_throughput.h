// `run --mapping FILE` for throughput files (map --objective throughput -o): the run is
// engine/run/throughput_run.h's; this prints it beside the file's prediction.
#pragma once

#include "engine/run/throughput_run.h"

#include <string>

namespace opsched::cli {

struct ThroughputRunOptions : engine::ThroughputRunOptions {
    bool json = false;
};

using engine::isThroughputMappingFile;

// Runs and prints; returns the exit code (throws Error when the check fails, naming the worst
// element, or when a device is not a CPU device).
int runThroughputMapping(
    const Graph& graph, const Graph& run, const std::string& path, const ThroughputRunOptions& options);

} // namespace opsched::cli
