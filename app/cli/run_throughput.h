// `run --mapping FILE` for throughput files (map --objective throughput -o): the run is
// engine/run/throughput_run.h's (through engine::runModel); this prints it beside the file's
// prediction.
#pragma once

#include "engine/run/throughput_run.h"

#include <string>

namespace opsched::cli {

struct ThroughputRunOptions : engine::ThroughputRunOptions {
    bool json = false;
};

// Prints; returns the exit code (throws Error when the check failed, naming the worst element).
int printThroughputRun(const Graph& graph, const engine::ThroughputRunResult& r, const ThroughputRunOptions& options);

} // namespace opsched::cli
