// `compare MODEL --devices A,B,...`: every mapper on one mapping problem, side by side.
#pragma once

#include "common_options.h"

#include <string>

namespace opsched::cli {

struct CompareMappersOptions {
    std::string devices;
    std::string link;
    double timeLimit = 60;
};

int compareMappers(const Graph& graph, const CompareMappersOptions& options, const CostCacheOptions& cache, bool json);

} // namespace opsched::cli
