// Symmetry breaking for the mapping MILPs (DiviML section VI): identical devices, and identical
// nodes of identical devices, make every schedule one of many equivalent copies (relabel the
// devices, same makespan), and the solver explores them all. Ordering a per-device quantity
// (#tasks, busy time or #batches) along each set of interchangeable devices keeps one copy of
// each: q(u1) <= q(u2) <= ... for devices, and the sums over each node's devices for nodes.
//
// Interchangeable is checked on the problem itself, not taken from names: swapping two devices
// (or two nodes, device by device) must leave every cost, release time, memory size and link as
// it was. Then sorting the devices (nodes) by q maps any solution onto one that meets the cuts
// with the same makespan, so the cuts never remove the optimum of the latency MILP. Devices are
// only ordered within their node when nodes are ordered too (intra-node swaps keep node sums).
//
// The throughput MILP deals inputs out in device order (throughput_problem.h), so relabelling
// devices there can change which batches overlap: the cuts are then a restriction, as the paper
// found ("#batches ... overly restrictive"), not an exact reformulation.
#pragma once

#include "map/problem/map_result.h"
#include "map/problem/mapping_problem.h"
#include "map/problem/throughput_problem.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace opsched::map {

using Symmetry = MapperOptions::Symmetry;

struct SymmetryClasses {
    // Sets of interchangeable devices (each ascending, at least two), within one node when nodes
    // are ordered too.
    std::vector<std::vector<std::uint32_t>> devices;
    // Sets of interchangeable nodes: each node its devices, position i of one matching position
    // i of the others.
    std::vector<std::vector<std::vector<std::uint32_t>>> nodes;
    bool empty() const { return devices.empty() && nodes.empty(); }
    // How many equivalent copies of each solution the cuts remove (product of the factorials);
    // saturates at 1e300.
    double compression() const;
};

const char* toString(Symmetry s);
Symmetry parseSymmetry(const std::string& text); // none, tasks, time, batches; throws Error

SymmetryClasses findSymmetries(const MappingProblem& problem);
SymmetryClasses findSymmetries(const ThroughputProblem& problem);

// A per-device linear form: (column, coefficient) pairs.
using DeviceForm = std::vector<std::pair<int, double>>;
// One cut: sum of coefficient x column <= 0.
struct SymmetryRow {
    std::vector<int> cols;
    std::vector<double> coefs;
};
std::vector<SymmetryRow> symmetryRows(const SymmetryClasses& classes, const std::vector<DeviceForm>& perDevice);

// The latency MILP's forms: x[t][u] (-1 where absent) weighted by 1 (tasks, batches: one task is
// one batch there) or the task's milliseconds on u (time).
std::vector<DeviceForm> latencyForms(
    const MappingProblem& problem, const std::vector<std::vector<int>>& x, Symmetry symmetry);

// A mapping relabelled to meet the cuts (for the MILPs' warm starts): nodes, then devices within
// them, sorted by the criterion. `value[u]` is the criterion's value of device u.
std::vector<std::uint32_t> canonicalPermutation(const SymmetryClasses& classes, const std::vector<double>& value);
Mapping permuteMapping(const Mapping& mapping, const std::vector<std::uint32_t>& newDevice);
std::vector<double> latencyValues(const MappingProblem& problem, const Mapping& mapping, Symmetry symmetry);

// The classes with each set ordered by `value` (nodes by their sums), so that a solution with
// those values meets the cuts as it is: how the throughput MILP keeps its warm start.
SymmetryClasses orientedBy(const SymmetryClasses& classes, const std::vector<double>& value);

// The throughput MILP's forms over z[i][s] (-1 where absent): inputs processed on u (tasks),
// `cost(i, s, u)` in ms (time), or batches there (batches).
std::vector<DeviceForm> throughputForms(const ThroughputProblem& problem, const std::vector<std::vector<int>>& z,
    Symmetry symmetry, const std::function<double(std::size_t, std::size_t, std::size_t)>& cost);
std::vector<double> throughputValues(const ThroughputProblem& problem, const ThroughputMapping& mapping,
    Symmetry symmetry, const std::function<double(std::size_t, std::size_t, std::size_t)>& cost);

} // namespace opsched::map
