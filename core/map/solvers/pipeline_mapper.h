// The GPT-3 case study's objective (DiviML section VI, Table V: inputs/s): a stream of inputs
// flows through the mapping, each device working on a different input (pipeline parallelism), so
// in steady state an input leaves every `period` seconds, the busiest device's (or link's) work
// per input:
//   period = max( max_u sum_{t on u} t(t,u),  max_{u,v} sum_{edges crossing u->v} bytes / bw(u,v) ),
//   throughput = 1 / period.
// Each op's weights and activations stay resident on its device (memory). Link latencies do not
// limit a pipeline's rate and are left out; one input's latency is reported beside (evaluate()).
//
// Mappers (pipelineMappers()):
//  - greedy: ops in topological order, each where the period grows least (then the fastest);
//  - milp: one MILP over every op (min period; loads and memory per device; CBC); transfers are
//    priced by evaluation only (the MILP has no edge variables);
//  - milp-split: the same MILP over windows of consecutive modules (segments between
//    separators, at most maxModuleTasks ops, at least one segment), heaviest first (the period
//    has no precedence; LPT's rule), each from the loads and memory the windows before left
//    (GPT-3's layers are its modules), then polished by single-op moves and swaps off the
//    busiest device and by solving the windows again (alone, then in pairs) from the loads
//    every other op leaves, while that gains and time is left. On a topology of N equal nodes
//    holding N equal parts (GPT-3) it first runs the replicated baselines below, each a feasible
//    multi-node mapping: replicated-milp (the baseline row's own mapper and settings, no
//    symmetry cuts) for 40% of --time-limit, replicated-milp-split for 5%; the window pass then
//    ends at 60%, the windows are re-solved from the best of the three until 70%, and node
//    pairs (every op of the busiest device's node and of one other, min of those ten devices'
//    own largest load) until the limit. Every candidate is evaluated by evaluatePipeline, as
//    every mapper's answer is, and the best kept (PipelineResult::note says which start won):
//    the answer is never below the replicated-milp schedule it found (which, given less time
//    than a replicated-milp run of its own, may itself be slightly below that run's);
//  - replicated-milp, replicated-milp-split: the paper's "single node" baseline: the first 1/N
//    of the graph (N nodes) mapped on node 0's devices alone, by milp or milp-split, and that
//    mapping repeated on every node for each next 1/N (the graph must be N equal parts, the
//    nodes equal).
// MapperOptions::symmetry adds symmetry_cuts.h's cuts to every MILP solved; with
// MapperOptions::pipelineScore, milp-split keeps the candidate that scores best instead (the batch
// objective's L / makespan, batched_pipeline.h), so it never ends below the replicated start by it.
#pragma once

#include "map/problem/map_result.h"

#include <string>
#include <string_view>
#include <vector>

namespace opsched::map {

struct PipelineTimes {
    bool feasible = false;
    std::string problem; // why not
    double period = 0; // seconds per input
    double throughput = 0; // inputs per second
    std::vector<double> busy; // per device, seconds per input
    std::vector<double> memoryBytes; // per device, resident
    double linkBusy = 0; // the busiest link's seconds per input
    std::string bottleneck; // the device or link that sets the period
};

PipelineTimes evaluatePipeline(const MappingProblem& problem, const std::vector<std::uint32_t>& device);

struct PipelineResult {
    std::string mapper;
    std::vector<std::uint32_t> device; // per task
    PipelineTimes times;
    double latency = 0; // one input alone (evaluate(), breadth-first order per device)
    SolveStatus status = SolveStatus::Heuristic;
    double solveSeconds = 0;
    std::size_t milps = 0, cuts = 0; // MILPs solved, symmetry cuts added over all of them
    double compression = 1; // the first MILP's symmetry compression (equivalent copies per solution)
    std::string note;
};

const std::vector<MapperInfo>& pipelineMappers();
// Throws Error for unknown mappers, problems no mapping fits, and replicated mappers on
// problems that are not N equal parts on N equal nodes.
PipelineResult mapPipeline(std::string_view name, const MappingProblem& problem, const MapperOptions& options);

} // namespace opsched::map
