// The mapper registry: every mapper by the name the CLI and the window use, with its entry point for
// the latency objective and for the throughput objective, in one table.
#pragma once

#include "map/problem/map_result.h"

#include <string_view>
#include <vector>

namespace opsched::map {

struct MapperEntry : MapperInfo {
    MapResult (*latency)(const MappingProblem&, const MapperOptions&) = nullptr;
    ThroughputResult (*throughput)(const ThroughputProblem&, const MapperOptions&) = nullptr;
};

// bd, met, greedy, heft, sa, ea, milp, milp-split.
const std::vector<MapperEntry>& mappers();

// The entry named `name`. Throws Error for an unknown name, listing the known ones.
const MapperEntry& mapperNamed(std::string_view name);

// Runs the named mapper. Throws Error for an unknown name (listing the known ones), a problem
// that is not valid, or no feasible mapping.
MapResult runMapper(std::string_view name, const MappingProblem& problem, const MapperOptions& options = {});

// The same mappers for the throughput objective: each chooses a split of the L inputs per op and an
// order per device (solvers/throughput_heuristics.h, solvers/throughput_milp.h,
// split/throughput_split.h). Throws Error for unknown names and when no feasible mapping is found.
ThroughputResult runThroughputMapper(
    std::string_view name, const ThroughputProblem& problem, const MapperOptions& options = {});

} // namespace opsched::map
