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
// there is no outside data of unknown scale, so the absolute term is a fraction of max|ref|, not a
// fixed number. The same kernels run on both sides; the mapped runs of the test suite measure 0
// (bit for bit) on an AMD EPYC with AVX-512 and limited to AVX2, and other core counts change
// oneDNN's reduction order by float32 rounding (1e-7 of max|ref|), so 1e-5 leaves room for that and
// no more: a weight x1.01 deep in the model moves the output by 1e-3 of max|ref| and more.
inline constexpr Tolerance kSingleDeviceTolerance { 1e-5, 0.0, 1e-5 };

// What the reference is, for reports and messages.
inline constexpr const char* kSingleDeviceReference = "the single-device run (sequential plan, cpu)";

} // namespace opsched
