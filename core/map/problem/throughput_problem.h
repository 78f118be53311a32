// DiviML's throughput objective: L inputs to push through the network, each op free to split
// them across devices in batches of the sizes each device accepts (the paper's L/4, L/2, 3L/4, L),
// model and data parallelism at once. Throughput = L / makespan.
//
// Decisions the paper leaves open: which inputs go where. A split gives each device a count; the
// inputs are dealt out in device order (device 0 takes inputs 0..n0-1, device 1 the next n1, ...),
// so a batch on v needs the results of every batch of a predecessor whose inputs overlap its own,
// and a transfer of those overlapping inputs' results when the devices differ.
// Several batches per op per device (the paper's schedule maps each (op, input) to a device and a
// start, batches being the inputs started together): a split may run a device's count as one batch
// or as count/g batches of the smallest size g ("pipelined"), one after another in input order.
// A successor's batch waits only for the batches holding its inputs, so inputs flow through the
// network batch by batch and devices overlap different inputs (a pipeline). A device runs an op's
// batches consecutively (its order lists ops; batches of different ops do not interleave).
#pragma once

#include "map/problem/mapping_problem.h"

#include <cstdint>
#include <string>
#include <vector>

namespace opsched::map {

struct ThroughputProblem {
    MappingProblem base; // devices, links, tasks (sizes per input), dag; base costs unused
    std::int64_t inputs = 1; // L
    std::vector<std::int64_t> sizes; // batch sizes a device may take (ascending)
    // seconds[i][u][k]: task i on device u with sizes[k] inputs (kUnsupported where it cannot)
    std::vector<std::vector<std::vector<double>>> seconds;
    // The splits every op chooses from: counts per device (0 or one of `sizes`) summing to L.
    std::vector<std::vector<std::int64_t>> splits;
    // pieces[s][u]: how many equal batches split s runs its count on device u in (empty, or a
    // split's row empty: one batch per device). addPipelinedSplits fills it.
    std::vector<std::vector<std::int64_t>> pieces;

    double costOf(std::uint32_t task, std::uint32_t device, std::int64_t count) const;
    // Batches of split s on device u (0 where it has no inputs there) and their summed cost.
    std::int64_t batchesOn(std::size_t split, std::uint32_t device) const;
    double blockCost(std::uint32_t task, std::size_t split, std::uint32_t device) const;
    bool pipelined(std::size_t split) const; // some device runs more than one batch
    // Throws Error naming the problem (sizes, costs, no split of L).
    void validate() const;
};

// The paper's batch sizes for L inputs: L/4, L/2, 3L/4 and L (those that are whole numbers >= 1),
// and every split of L over `devices` devices with them.
std::vector<std::int64_t> paperBatchSizes(std::int64_t inputs);
std::vector<std::vector<std::int64_t>> enumerateSplits(
    std::int64_t inputs, const std::vector<std::int64_t>& sizes, std::size_t devices);

// Appends, for every split with a device count above the smallest batch size g, its pipelined
// twin: each device's count in batches of g. With L = 1 (one size) it adds nothing.
void addPipelinedSplits(ThroughputProblem& problem);

struct ThroughputMapping {
    std::vector<std::uint32_t> split; // per task: index into ThroughputProblem::splits
    std::vector<std::vector<std::uint32_t>> order; // per device: tasks with a batch there, in order
};

struct ThroughputTimes {
    bool feasible = false;
    std::string problem;
    double makespan = 0; // seconds
    double throughput = 0; // inputs per second
    // per task and device: start of its first batch and finish of its last there (0 where none)
    std::vector<std::vector<double>> start, finish;
    // per task and device, every batch in input order: its start and finish
    std::vector<std::vector<std::vector<double>>> batchStart, batchFinish;
    std::size_t transfers = 0;
    double transferredBytes = 0;
};

// Every batch starts once its device is free and every overlapping batch of a predecessor has
// finished and its results arrived. With L = 1 this is evaluate() of the latency problem.
// `transfers`, when given, receives each transfer (producer's batch end to arrival; bytes of the
// overlapping inputs' results): the window draws them, the mappers' inner loops skip the cost.
ThroughputTimes evaluate(
    const ThroughputProblem& problem, const ThroughputMapping& mapping, std::vector<Transfer>* transfers = nullptr);
// evaluate()'s makespan alone (kUnsupported where the mapping is not a schedule), without building
// the per-batch times: what the mappers' inner loops call.
double throughputMakespan(const ThroughputProblem& problem, const ThroughputMapping& mapping);

// Orders each device's batches by the tasks' position in `priority`.
ThroughputMapping throughputWithOrder(const ThroughputProblem& problem, const std::vector<std::uint32_t>& split,
    const std::vector<std::uint32_t>& priority);

// Orders each device's batches by list scheduling: among the batches whose predecessors' batches
// are placed, the one that can start earliest goes next (ties: the task earlier in `priority`).
// Empty orders where some batch cannot run (no link, no cost).
ThroughputMapping throughputEarliestStart(const ThroughputProblem& problem, const std::vector<std::uint32_t>& split,
    const std::vector<std::uint32_t>& priority);

} // namespace opsched::map
