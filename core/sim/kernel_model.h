// How the simulator sees an op: the kernels it launches, with their work and the warps they ask
// for. Derived from shapes and layer costs only, never from op names. Convolutions are implicit
// GEMMs and MatMul/Gemm (batched) GEMMs, both tiled over the output (GEMV-like with few rows);
// softmax and layer norm are row-wise (a warp or a block per row); everything else is
// element-wise. A kernel is memory-bound when its arithmetic intensity is below ~8 FLOP/byte.
#pragma once

#include "graph/graph.h"
#include "sim/sim_device.h"

#include <vector>

namespace opsched {

struct KernelDesc {
    double flops = 0;
    double bytes = 0;
    double warps = 1; // warps the kernel's grid asks for
    bool memoryBound = false;
};

// Kernels of one launch in stream order: one per non-view layer; several ops given together are
// mergeable convs run as one stacked kernel (kernels zero-padded to the largest, outputs stacked),
// or linear MatMuls of one input run as one GEMM over their weights side by side.
std::vector<KernelDesc> kernelsOf(const Graph& graph, const std::vector<OpId>& ops);

// Time the kernel takes alone on the device, launch latency excluded.
double soloSeconds(const KernelDesc& k, const SimDevice& device);

// Warps of the device the kernel can use at once (its grid, capped by the model's lanes).
double demandedLanes(const KernelDesc& k, const SimDevice& device);

} // namespace opsched
