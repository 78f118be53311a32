// The heterogeneous mapping problem (DiviML, latency objective): a DAG of tasks, a set of devices,
// a cost per task and device, links between devices. Each task runs whole on one device, each
// device runs one task at a time in a given order, and a result crossing devices costs the link's
// latency plus its bytes over the link's bandwidth. Transfers do not contend with each other or
// with computation (the MILP's model, and the paper's).
#pragma once

#include "graph/dag.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace opsched::map {

inline constexpr double kUnsupported = std::numeric_limits<double>::infinity();

struct MapDevice {
    std::string name; // "sim:a100", "cpu:0", "cuda:0"
    double memoryBytes = std::numeric_limits<double>::infinity();
    int node = -1; // the machine it sits in (a --topology's node); -1: not given (symmetry_cuts.h)
};

struct Link {
    double bandwidthBytesPerSecond = 0; // 0: no link, results cannot cross it
    double latencySeconds = 0;
    bool connected() const { return bandwidthBytesPerSecond > 0; }
};

struct MapTask {
    std::string name;
    std::vector<double> seconds; // per device; kUnsupported where it cannot run
    double inputBytes = 0; // im: activations read
    double outputBytes = 0; // om: the result, what an edge carries
    double weightBytes = 0; // wm
    double memoryBytes() const { return inputBytes + outputBytes + weightBytes; } // resident on its device
};

struct MappingProblem {
    std::vector<MapDevice> devices;
    std::vector<std::vector<Link>> links; // [from][to]; the diagonal is unused (same device: free)
    std::vector<MapTask> tasks; // task i is node i of dag
    Dag dag;
    // Optional, [task][device]: the earliest a task may start on a device (results arriving from
    // outside, a device still busy). MILP-SPLIT's modules use it; empty means 0 everywhere.
    std::vector<std::vector<double>> release;

    std::size_t taskCount() const { return tasks.size(); }
    std::size_t deviceCount() const { return devices.size(); }
    // Time for task i's result to reach device v from device u: 0 on the same device, infinity
    // without a link.
    double commSeconds(std::uint32_t task, std::uint32_t from, std::uint32_t to) const;
    double seconds(std::uint32_t task, std::uint32_t device) const { return tasks[task].seconds[device]; }
    double releaseOf(std::uint32_t task, std::uint32_t device) const
    {
        return release.empty() ? 0.0 : release[task][device];
    }
    // Throws Error naming the problem: sizes that disagree, a cycle, negative costs, a task that
    // no device can run, a link to itself.
    void validate() const;
};

// Which device runs each task, and in which order each device runs its tasks.
struct Mapping {
    std::vector<std::uint32_t> device; // per task
    std::vector<std::vector<std::uint32_t>> order; // per device, the tasks it runs, in order
};

struct Transfer {
    std::uint32_t fromTask = 0, toTask = 0;
    std::uint32_t fromDevice = 0, toDevice = 0;
    double start = 0, end = 0; // seconds
    double bytes = 0;
};

struct MappingTimes {
    bool feasible = false;
    std::string problem; // why not, when infeasible
    double makespan = 0; // seconds
    std::vector<double> start, finish; // per task
    std::vector<Transfer> transfers; // one per edge that crosses devices
    std::vector<double> memoryBytes; // per device, what the mapping keeps resident
};

// Every task starts as soon as its device is free and its inputs have arrived (the earliest
// schedule for this mapping and these orders). Infeasible when a device order contradicts the
// DAG, a task sits on a device that cannot run it, an edge has no link, or memory overflows.
MappingTimes evaluate(const MappingProblem& problem, const Mapping& mapping);

// Orders each device's tasks by their position in `priority` (a topological order of the tasks).
Mapping mappingWithOrder(const MappingProblem& problem, const std::vector<std::uint32_t>& device,
    const std::vector<std::uint32_t>& priority);

// A breadth-first topological order: tasks by depth (longest path from a source in edges), then
// index. The order SA and the EA use for the mappings they sample, as the paper does.
std::vector<std::uint32_t> breadthFirstOrder(const Dag& dag);

} // namespace opsched::map
