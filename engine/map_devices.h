// The devices of `map --devices LIST`: their per-op costs (simulated for sim:NAME, measured for
// cpu, cpu:N and cuda:N) and the links between them.
#pragma once

#include "engine/device_ref.h"

#include "map/problem/problem_builder.h"
#include "map/problem/throughput_problem.h"

#include <optional>
#include <string>
#include <vector>

namespace opsched::engine {

// Costs of each op on `device`: simulated for sim:NAME (GPU presets, simulated CPUs, the paper's
// devices) and sim:FILE.json, measured for cpu, cpu:N and cuda:N. Throws Error for a device that
// does not exist here (no GPU, a CPU partition beyond the cores there are), naming what there is.
// `all` is the whole --devices list (cpu:N partitions split the cores among those listed).
map::DeviceCosts deviceCosts(
    const Graph& graph, const DeviceRef& device, const CostCacheOptions& cache, const std::vector<std::string>& all);
map::DeviceCosts deviceCosts(
    const Graph& graph, const std::string& device, const CostCacheOptions& cache, const std::vector<std::string>& all);

// The cores of a CPU device: empty for "cpu" (all cores, oneDNN's threads), a partition's cores
// for "cpu:N"; nothing for other devices. Throws Error for a partition number out of range.
std::optional<std::vector<int>> cpuCoresOf(const std::string& device, const std::vector<std::string>& all);

// The latency of handing a result from one CPU partition to another while running `graph`
// (its ops alternating between the two, each waiting for the one before), given each op's time
// on either partition.
double measureCpuHandoffSeconds(const Graph& graph, const std::vector<int>& a, const std::vector<int>& b,
    const std::vector<double>& secondsA, const std::vector<double>& secondsB, int repeats);

// measureCpuOpSeconds through the persistent cost cache (the stage-cost cache file, unless
// --no-cost-cache): measured once per device, cores, busy cores, model, batch and opsched version.
std::vector<double> cachedCpuOpSeconds(const Graph& graph, const std::string& device, const std::vector<int>& cores,
    const CostCacheOptions& cache, const std::vector<int>& busyCores = {});

// Each op's median time alone on those cores (all when empty), over `repeats` runs. With
// `busyCores`, the model runs over and over on those cores meanwhile: a mapping keeps its CPU
// partitions busy at the same time, and they share caches and memory bandwidth.
std::vector<double> measureCpuOpSeconds(
    const Graph& graph, const std::vector<int>& cores, int repeats, const std::vector<int>& busyCores = {});

// The cores of the CPU partitions in `all` other than `device` (none for "cpu" or a lone partition).
std::vector<int> otherPartitionCores(const std::string& device, const std::vector<std::string>& all);

// "GBPS[,LATENCY_US]" -> a link; throws Error on malformed or non-positive values.
map::Link parseLink(const std::string& text);

// Every pair joined by `link` when given, else by map::defaultLink.
std::vector<std::vector<map::Link>> linksFor(
    const std::vector<std::string>& devices, const std::optional<map::Link>& link);

// The whole problem for `map` and `compare --devices`: costs per device, --memory (GB per device,
// comma-separated; empty keeps each device's own), --link (empty: defaultLink).
map::MappingProblem mappingProblemFor(const Graph& graph, const std::vector<std::string>& devices,
    const std::string& link, const std::string& memory, const CostCacheOptions& cache);

// The throughput problem: `inputs` inputs, batch sizes L/4, L/2, 3L/4, L, each op's cost at every
// size on every device (the graph rebuilt at that batch size).
map::ThroughputProblem throughputProblemFor(const Graph& graph, const std::vector<std::string>& devices,
    const std::string& link, const std::string& memory, const CostCacheOptions& cache, std::int64_t inputs);

// `--memory GB,...`: one size per device, in bytes. Throws Error naming a value that is not a
// positive number or a count that does not match `devices`.
std::vector<double> parseMemory(const std::string& list, std::size_t devices);

// The cores of CPU partition N when the machine's cores are split into `partitions` equal parts
// (cpu:0 .. cpu:P-1, P = the partitions named in one device list).
std::vector<int> partitionCores(int index, int partitions);

} // namespace opsched::engine
