// Turns a graph and a list of devices into a mapping problem: one task per op, costs per device
// (simulated here; measured ones come from the executors), links between devices.
#pragma once

#include "map/problem/device_costs.h"
#include "map/problem/mapping_problem.h"
#include "map/problem/throughput_problem.h"

#include "graph/graph.h"
#include "sim/sim_cpu.h"
#include "sim/sim_device.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace opsched::map {

// The simulated CPUs (sim:xeon) are core/sim's: sim/sim_cpu.h.
using opsched::SimCpu;
using opsched::simCpus;

// simulatedOpSeconds: device_costs.h (GPUs), sim/sim_cpu.h (CPUs).
using opsched::simulatedOpSeconds;

// Costs of a simulated device named "sim:NAME" (a GPU preset or a simulated CPU), with its
// memory. Nothing for names that are not simulated devices.
std::optional<DeviceCosts> simulatedDeviceCosts(const Graph& graph, const std::string& name);

// Partitions of one CPU share memory: nothing is copied, so bytes cost (almost) nothing and
// the link is its latency, the hand-off between worker threads (measured by `map`).
inline constexpr double kSharedMemoryBandwidth = 1e12;

// The link assumed between two devices when the user gives none: PCIe 4.0 x16 (25 GB/s
// effective, 10 us) between different machines' devices; shared memory (kSharedMemoryBandwidth,
// 5 us) between partitions of one CPU, which `map` replaces by a measured hand-off.
Link defaultLink(const std::string& from, const std::string& to);

MappingProblem buildProblem(
    const Graph& graph, const std::vector<DeviceCosts>& devices, const std::vector<std::vector<Link>>& links);

// The throughput problem over `graph` (batch 1): `inputs` inputs in the paper's batch sizes, each
// op's cost at each size from `costsAt(graph rebuilt at that size)` (one DeviceCosts per device of
// `base`, in its order), devices, links and memory from `base`. The CLI (measured or simulated
// devices) and the tests build it here.
ThroughputProblem buildThroughputProblem(const Graph& graph, MappingProblem base, std::int64_t inputs,
    const std::function<std::vector<DeviceCosts>(const Graph&)>& costsAt);

} // namespace opsched::map
