// The reference a mapped run (partitioned CPU plan or per-device segments) is checked against:
// the same graph, same weights, same inputs, run as the sequential plan on the CPU executor alone.
// Mapping changes where and when ops run, never what they compute, so the outputs must agree
// element by element up to float32 reordering (exec/output_check.h compares them).
#pragma once

#include "exec/output_check.h"
#include "graph/graph.h"

#include <vector>

namespace opsched {

// Inputs and outputs in Graph::inputs() / outputs() order. Throws Error as CpuExecutor does (no
// CPU backend in this build, a layer it cannot run).
std::vector<std::vector<float>> singleDeviceOutputs(const Graph& graph, const std::vector<std::vector<float>>& inputs);

// The default tolerance against it: float32 reordering errors scale with the output's magnitude, and
// there is no outside data of unknown scale, so the absolute term is 1e-4 x max|ref| instead of a
// fixed 1e-4 (which lets anything pass on an output of magnitude 1e-3).
inline constexpr Tolerance kSingleDeviceTolerance { 1e-3, 0.0, 1e-4 };

// What the reference is, for reports and messages.
inline constexpr const char* kSingleDeviceReference = "the single-device run (sequential plan, cpu)";

} // namespace opsched
