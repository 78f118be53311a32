// `compare MODEL --devices A,B,...`: every mapper on one mapping problem, side by side
// (engine/map_actions.h computes the table; this prints it).
#pragma once

#include "common_options.h"
#include "map_inputs.h"

#include "engine/map_actions.h"

namespace opsched::cli {

struct CompareMappersOptions : engine::MapRequest {
    bool equalTime = false; // sa and ea run as long as milp-split took (--equal-time)
    MapInputOptions files; // --costs, --topology, --links, --write-costs, --symmetry
};

int compareMappers(const Graph& graph, const CompareMappersOptions& options, const CostCacheOptions& cache, bool json);

} // namespace opsched::cli
