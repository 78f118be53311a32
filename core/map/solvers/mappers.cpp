#include "map/solvers/mappers.h"

#include "map/solvers/heuristic_mappers.h"
#include "map/solvers/milp_mapper.h"
#include "map/solvers/milp_split.h"

#include "util/error.h"

namespace opsched::map {

const std::vector<MapperInfo>& mappers()
{
    static const std::vector<MapperInfo> list {
        { "bd", "every op on the best single device" },
        { "met", "each op on its fastest device (minimum execution time)" },
        { "greedy", "breadth-first, each op where the makespan so far grows least" },
        { "heft", "heterogeneous earliest finish time: upward ranks, insertion" },
        { "sa", "simulated annealing over device strings" },
        { "ea", "biased (1+1) evolutionary algorithm from the fastest devices" },
        { "milp", "the exact MILP (COIN-OR CBC), started from the best list heuristic" },
        { "milp-split", "each module solved exactly, joined by dynamic programming over channel devices" },
    };
    return list;
}

MapResult runMapper(std::string_view name, const MappingProblem& problem, const MapperOptions& options)
{
    problem.validate();
    if (name == "bd")
        return mapBestDevice(problem);
    if (name == "met")
        return mapMinimumExecutionTime(problem);
    if (name == "greedy")
        return mapGreedy(problem);
    if (name == "heft")
        return mapHeft(problem);
    if (name == "sa")
        return mapSimulatedAnnealing(problem, options);
    if (name == "ea")
        return mapEvolutionary(problem, options);
    if (name == "milp")
        return mapMilp(problem, options);
    if (name == "milp-split")
        return mapMilpSplit(problem, options);
    std::string known;
    for (const auto& m : mappers())
        known += (known.empty() ? "" : ", ") + m.name;
    throw Error("unknown mapper '" + std::string(name) + "' (known: " + known + ")");
}

} // namespace opsched::map
