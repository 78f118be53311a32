// DiviML's Table V objective as the paper measures it: L inputs pushed through a mapping in
// batches of g, the makespan C counted from the first batch's start to the last one's end (fill
// and drain included), throughput L / C. The pipeline objective (pipeline_mapper.h) is its steady
// state for one input at a time; batching changes the costs too, since a batch of g reads an op's
// weights once (GPT-3's decoding is bound by its weight reads, so a batch costs far less than g
// inputs one by one).
//
// The mappers optimise the steady state of batches: the pipeline problem with every cost that of
// a batch of g divided by g (and the bytes an edge carries per input), memory as resident with g
// inputs in flight. Their mapping is then timed on L inputs: each op's L inputs on its device in
// L/g batches, a batch starting once its device is free and the batches it reads have arrived.
// Memory is that of the per-input problem: each op's weights and one batch in flight. A device runs
// its (op, batch) pairs by list scheduling (when it comes free, the earliest batch among those whose
// inputs have arrived: batches interleave, so a node pipelines them through its layers), batch by
// batch, or op by op (an op's batches back to back, as the batched throughput model does),
// whichever ends soonest; transfers do not contend (the latency and throughput models' rule).
#pragma once

#include "map/problem/mapping_problem.h"
#include "map/problem/throughput_problem.h"

#include <cstdint>
#include <string>
#include <vector>

namespace opsched::map {

// `atBatch`: the problem with the costs and bytes of one batch of `batch` inputs. Per input: costs
// and edge bytes divided by `batch`; weights grown by what `batch` inputs' activations hold beyond
// one's, so that each task's resident memory is still that of a batch in flight.
MappingProblem perInputProblem(const MappingProblem& atBatch, std::int64_t batch);

// `inputs` inputs in batches of `batch` (inputs a multiple of batch) through a mapping where each
// task runs every input on one device: the batched problem it is timed on.
ThroughputProblem batchedPipelineProblem(const MappingProblem& atBatch, std::int64_t inputs, std::int64_t batch);

struct BatchedRun {
    bool feasible = false;
    std::string problem; // why not
    std::int64_t inputs = 0, batch = 0;
    double makespan = 0; // seconds, fill and drain included
    double throughput = 0; // inputs per second: inputs / makespan
    double steadyPeriod = 0; // seconds per input in steady state (evaluatePipeline on the per-input problem)
    std::size_t transfers = 0;
    std::string order; // the device order that won: "list", "batch by batch" or "op by op"
};

// Times `device` (per task) on `batched` (batchedPipelineProblem); `perInput` gives the
// steady-state period beside and the memory check.
BatchedRun evaluateBatchedPipeline(
    const ThroughputProblem& batched, const MappingProblem& perInput, const std::vector<std::uint32_t>& device);

} // namespace opsched::map
