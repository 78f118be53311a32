// The side-by-side comparison of schedulers from stored runs: per model, batch and device, the
// latest successful run of each scheduler, its speedup over sequential and its active warps.
#pragma once

#include "store/records.h"

#include <optional>
#include <string>
#include <vector>

namespace opsched::store {

struct ComparisonRow {
    std::string scheduler;
    RunId run;
    LatencyStats latency;
    std::optional<double> speedup; // sequential median / this median
    std::optional<double> averageActiveWarps; // recorded with --warps
    std::optional<double> warpsVsSequential; // this average / sequential's
};

struct ComparisonGroup {
    std::string modelName, modelRef, modelSha256;
    std::int64_t batch = 1;
    std::string deviceKey, deviceName;
    bool simulated = true;
    std::vector<ComparisonRow> rows; // schedulers in `compare`'s order
    std::size_t failedRuns = 0;
};

struct ComparisonFilter {
    std::optional<std::string> model; // matches the model's ref or name
    std::optional<std::int64_t> batch;
    std::optional<std::string> device; // device key, e.g. sim:h100
};

std::vector<ComparisonGroup> compareRuns(const std::vector<RunSummary>& runs, const ComparisonFilter& filter = {});

} // namespace opsched::store
