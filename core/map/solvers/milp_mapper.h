// DiviML's exact mapper: the latency MILP solved by COIN-OR CBC, started from the best list
// heuristic. Times are in milliseconds inside the model (better conditioned than seconds).
#pragma once

#include "map/problem/map_result.h"

#include <optional>

namespace opsched::map {

// Whether this build has CBC (the MILP mappers refuse clearly without it).
bool milpAvailable();

// Solves `problem` (release times and pinned devices, expressed as infinite costs, included).
// `start` is the mapping CBC starts from and the answer when it finds nothing better; the best
// list heuristic when not given. The result's status is optimal (proven), timeout (the limit
// hit; the best mapping found so far and its gap), or feasible (CBC stopped for another reason
// with a mapping in hand). Throws Error when CBC is not built in or the problem is infeasible.
MapResult mapMilp(
    const MappingProblem& problem, const MapperOptions& options, const std::optional<Mapping>& start = std::nullopt);

} // namespace opsched::map
