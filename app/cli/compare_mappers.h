// `compare MODEL --devices A,B,...`: every mapper on one mapping problem, side by side.
#pragma once

#include "common_options.h"

#include <cstdint>
#include <string>

namespace opsched::cli {

struct CompareMappersOptions {
    std::string devices;
    std::string link;
    double timeLimit = 60;
    std::string objective = "latency"; // or throughput: `inputs` split per op (as `map --objective`)
    std::int64_t inputs = 16;
};

int compareMappers(const Graph& graph, const CompareMappersOptions& options, const CostCacheOptions& cache, bool json);

} // namespace opsched::cli
