#include "map/registry/mappers.h"

#include "map/solvers/heuristic_mappers.h"
#include "map/solvers/milp_mapper.h"
#include "map/solvers/throughput_heuristics.h"
#include "map/solvers/throughput_milp.h"
#include "map/split/milp_split.h"
#include "map/split/throughput_split.h"

#include "util/error.h"

#include <chrono>

namespace opsched::map {
namespace {

// The list heuristics take no options; the table's entry points all do.
template <MapResult (*mapper)(const MappingProblem&)>
MapResult withoutOptions(const MappingProblem& problem, const MapperOptions&)
{
    return mapper(problem);
}

// The whole throughput MILP started from the best list heuristic; past kThroughputMilpMaxRows
// dependency rows it is not solved (too big for CBC in any useful time, as the paper found) and the
// start is returned, said so.
ThroughputResult throughputMilp(const ThroughputProblem& p, const MapperOptions& o)
{
    using Clock = std::chrono::steady_clock;
    const auto t0 = Clock::now();
    const std::optional<ThroughputResult> best = bestListHeuristic(p, o);
    if (!best)
        throw Error("milp (throughput): no heuristic found a mapping to start from");
    ThroughputResult r;
    if (const std::size_t rows = throughputMilpRows(p); rows > kThroughputMilpMaxRows) {
        r = *best;
        r.mapper = "milp";
        r.status = SolveStatus::Feasible;
        r.note = "the whole MILP would have " + std::to_string(rows) + " dependency rows (over "
            + std::to_string(kThroughputMilpMaxRows) + "): not solved, " + best->mapper
            + "'s mapping kept; milp-split solves it per module";
    } else
        r = mapThroughputMilp(p, o, *best);
    r.solveSeconds = std::chrono::duration<double>(Clock::now() - t0).count();
    return r;
}

MapperEntry entry(const char* name, const char* summary,
    MapResult (*latency)(const MappingProblem&, const MapperOptions&),
    ThroughputResult (*throughput)(const ThroughputProblem&, const MapperOptions&))
{
    MapperEntry e;
    e.name = name;
    e.summary = summary;
    e.latency = latency;
    e.throughput = throughput;
    return e;
}

} // namespace

const std::vector<MapperEntry>& mappers()
{
    static const std::vector<MapperEntry> list {
        entry("bd", "every op on the best single device", withoutOptions<mapBestDevice>, mapThroughputBestDevice),
        entry("met", "each op on its fastest device (minimum execution time)", withoutOptions<mapMinimumExecutionTime>,
            mapThroughputMinimumExecutionTime),
        entry("greedy", "breadth-first, each op where the makespan so far grows least", withoutOptions<mapGreedy>,
            mapThroughputGreedy),
        entry("heft", "heterogeneous earliest finish time: upward ranks, insertion", withoutOptions<mapHeft>,
            mapThroughputHeft),
        entry("sa", "simulated annealing over device strings", mapSimulatedAnnealing, mapThroughputAnnealing),
        entry("ea", "biased (1+1) evolutionary algorithm from the fastest devices", mapEvolutionary,
            mapThroughputEvolutionary),
        entry(
            "milp", "the exact MILP (COIN-OR CBC), started from the best list heuristic",
            [](const MappingProblem& p, const MapperOptions& o) { return mapMilp(p, o); }, throughputMilp),
        entry("milp-split", "each module solved exactly, joined by dynamic programming over channel devices",
            mapMilpSplit, mapThroughputMilpSplit),
    };
    return list;
}

const MapperEntry& mapperNamed(std::string_view name)
{
    std::string known;
    for (const auto& m : mappers()) {
        if (m.name == name)
            return m;
        known += (known.empty() ? "" : ", ") + m.name;
    }
    throw Error("unknown mapper '" + std::string(name) + "' (known: " + known + ")");
}

MapResult runMapper(std::string_view name, const MappingProblem& problem, const MapperOptions& options)
{
    const MapperEntry& mapper = mapperNamed(name);
    problem.validate();
    return mapper.latency(problem, options);
}

ThroughputResult runThroughputMapper(
    std::string_view name, const ThroughputProblem& problem, const MapperOptions& options)
{
    const MapperEntry& mapper = mapperNamed(name);
    problem.validate();
    return mapper.throughput(problem, options);
}

} // namespace opsched::map
