// `compare MODEL --devices A,B,...`: every mapper on one mapping problem, side by side.
#pragma once

#include "common_options.h"
#include "map_inputs.h"

#include <cstdint>
#include <string>

namespace opsched::cli {

struct CompareMappersOptions {
    std::string devices;
    std::string link;
    double timeLimit = engine::kMapTimeLimitSeconds.def;
    std::string objective = "latency"; // or throughput: `inputs` split per op (as `map --objective`)
    std::int64_t inputs = engine::kMapInputs.def;
    std::size_t maxModuleTasks = engine::kMaxModuleTasks.def; // milp-split's module cap (--max-module-tasks)
    bool equalTime = false; // sa and ea run as long as milp-split took (--equal-time)
    MapInputOptions files; // --costs, --topology, --links, --write-costs, --symmetry
};

int compareMappers(const Graph& graph, const CompareMappersOptions& options, const CostCacheOptions& cache, bool json);

} // namespace opsched::cli
