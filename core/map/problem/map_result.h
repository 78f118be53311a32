// What every mapper returns, for the latency and the throughput objective, and the knobs they share.
#pragma once

#include "map/problem/mapping_problem.h"
#include "map/problem/throughput_problem.h"

#include <cstdint>
#include <functional>
#include <limits>
#include <string>

namespace opsched::map {

// The mappers' defaults, defined once (engine/limits.h builds the CLI's and the window's ranges on them).
inline constexpr double kDefaultMapTimeLimitSeconds = 60;
inline constexpr std::uint64_t kDefaultMapSeed = 1;
inline constexpr std::size_t kDefaultMaxModuleTasks = 12;

struct MapperOptions {
    double timeLimitSeconds
        = kDefaultMapTimeLimitSeconds; // the MILP's limit (each MILP-SPLIT module gets a share), SA's and EA's cap
    std::uint64_t seed = kDefaultMapSeed; // SA and EA
    std::uint64_t iterations = 0; // SA and EA evaluations; 0 picks 200 per task, at least 5000
    // SA and EA: when > 0, run for this many wall seconds instead of `iterations` (the paper's
    // equal-runtime comparison: `compare --equal-time` gives them MILP-SPLIT's time).
    double runSeconds = 0;
    std::size_t maxModuleTasks
        = kDefaultMaxModuleTasks; // MILP-SPLIT: largest module solved as one piece (--max-module-tasks)
    // MILP-SPLIT: how a module is solved exactly: by the exact search where it has at most
    // kExactSearchLimit (64) tasks and by the MILP beyond (auto), or always by the MILP.
    enum class ModuleSolver { Auto, Milp } moduleSolver = ModuleSolver::Auto;
    // The MILPs' branch-and-bound node limit (0: none, the default). Unlike the time limit it gives
    // the same answer however loaded the machine is (tests); reaching it leaves status feasible.
    std::uint64_t maxNodes = 0;
    int logLevel = 0; // CBC's log on stderr when > 0
    // The MILPs' symmetry breaking between interchangeable devices and nodes (symmetry_cuts.h):
    // their #tasks, busy time or #batches in a fixed order. None by default.
    enum class Symmetry { None, Tasks, Time, Batches } symmetry = Symmetry::None;
    // MILP only: look for mappings strictly faster than this (seconds). When the solver proves
    // there is none, the result is the start mapping with status optimal and `cutoffProven` set.
    double cutoffSeconds = std::numeric_limits<double>::infinity();
    // Pipeline milp-split: when set, its candidate mappings (the replicated starts, the window pass,
    // the re-solved windows and node pairs) are ranked by this score, higher better, instead of
    // the steady-state period: the batch objective ranks them by L / makespan.
    std::function<double(const std::vector<std::uint32_t>&)> pipelineScore;
};

// A mapper as the CLI and the window list it.
struct MapperInfo {
    std::string name;
    std::string summary;
};

enum class SolveStatus { Heuristic, Optimal, Feasible, Timeout };
const char* toString(SolveStatus status);

struct MapResult {
    std::string mapper;
    Mapping mapping;
    MappingTimes times; // evaluate(problem, mapping)
    SolveStatus status = SolveStatus::Heuristic;
    // MILP: relative gap between the mapping and the solver's best bound, (ub - lb) / ub; NaN
    // where no bound is known (heuristics).
    double gap = std::numeric_limits<double>::quiet_NaN();
    double solveSeconds = 0;
    std::string note; // e.g. which heuristic started the solver, why a module fell back
    bool cutoffProven = false; // MILP with a cutoff: nothing faster than the cutoff exists
    // Seconds: the lower bound the gap was taken from, where the mapper computed lowerBound()
    // (milp-split short of a proof); 0 otherwise. Spares callers computing it again.
    double lowerBound = 0;
    // milp-split: the makespan of its modules' mappings joined, before the heuristics' polished
    // mappings compete with it (it returns the best of them); 0 for other mappers. Reported so that
    // a comparison with SA at equal time can tell the split's own answer from the portfolio's.
    double joinedMakespan = 0;
};

// The throughput objective's answer (throughput_problem.h): a split of the L inputs per op and an
// order per device.
struct ThroughputResult {
    std::string mapper;
    ThroughputMapping mapping;
    ThroughputTimes times;
    double solveSeconds = 0;
    SolveStatus status = SolveStatus::Heuristic;
    double gap
        = std::numeric_limits<double>::quiet_NaN(); // milp: to the solver's bound; milp-split: to the lower bound
    std::string note; // milp-split: what the pieces and the polish did
};

} // namespace opsched::map
