// The mapper registry: every mapper by the name the CLI and the GUI use.
#pragma once

#include "map/problem/map_result.h"

#include <string>
#include <string_view>
#include <vector>

namespace opsched::map {

struct MapperInfo {
    std::string name;
    std::string summary;
};

// bd, met, greedy, heft, sa, ea, milp, milp-split.
const std::vector<MapperInfo>& mappers();

// Runs the named mapper. Throws Error for an unknown name (listing the known ones), a problem
// that is not valid, or no feasible mapping.
MapResult runMapper(std::string_view name, const MappingProblem& problem, const MapperOptions& options = {});

} // namespace opsched::map
