// How the simulator sees an op: the kernels it launches, with their work and the warps they ask
// for. Derived from shapes and layer costs only, never from op names.
#pragma once

#include "graph/graph.h"
#include "sim/sim_device.h"

#include <vector>

namespace opsched {

struct KernelDesc {
    double flops = 0;
    double bytes = 0;
    double warps = 1;   // warps the kernel's grid asks for
    bool memoryBound = false;
};

// Kernels of one launch in stream order: one per non-view layer; several ops given together are
// mergeable convs run as one stacked kernel (kernels zero-padded to the largest, outputs stacked).
std::vector<KernelDesc> kernelsOf(const Graph& graph, const std::vector<OpId>& ops);

// Time the kernel takes alone on the device, launch latency excluded.
double soloSeconds(const KernelDesc& k, const SimDevice& device);

// Warps of the device the kernel can use at once (its grid, capped by the model's lanes).
double demandedLanes(const KernelDesc& k, const SimDevice& device);

} // namespace opsched
