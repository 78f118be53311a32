// Which activations the CPU executor keeps channels-last (NHWC bytes under NCHW dims). oneDNN's
// fast convolutions on this machine class (brgconv, brdgmm depthwise) read and write NHWC; with
// NCHW activations every convolution pays two transposing reorders, more than the convolution
// itself on small networks. A 4-D activation with more than one spatial position is channels-last
// when every op touching it runs on any layout: convolutions (which may read one layout and write
// the other), pooling, batch normalisation, activations, resizes, per-channel binaries and products, and
// channel sums/concatenations of their inputs. Everything else (reshapes, gemm, softmax, slices,
// transposes, pads, reductions), graph inputs and outputs, and the outputs of merged launches (read
// as channel slices) stay NCHW. Values with one spatial position are the same bytes either way.
// The exception among transposes is the one channels-last graphs (tf2onnx's) begin and end with:
// NHWC -> NCHW whose output is channels-last, and NCHW -> NHWC whose input is, move no byte and
// are views (relayoutView).
// Internal to the CPU backend.
#pragma once

#include "graph/graph.h"
#include "plan/plan.h"

#include <cstdint>
#include <vector>

namespace opsched::cpu {

// Per graph tensor (indexed by TensorId::value()): keep it channels-last. `enabled` false gives
// all-NCHW (the executor's layout before; tests compare the two).
std::vector<bool> channelsLastTensors(const Graph& graph, const Plan& plan, bool enabled = true);

// A single 4-D Transpose between NHWC and NCHW: to NCHW dims (perm 0,3,1,2; its output may be
// channels-last, its input is plain) or back (perm 0,2,3,1; its input may be channels-last, its
// output is plain).
enum class Relayout : std::uint8_t { None, ToNchw, ToNhwc };
Relayout relayoutOf(const Op& op);
// The op is such a transpose and the channels-last side is channels-last: the same bytes under
// other dims, a view.
bool relayoutView(const Graph& graph, const Op& op, const std::vector<bool>& cl);

// Whether a value of these dims differs between NCHW and channels-last (4-D, H * W > 1).
bool layoutMatters(const std::vector<std::int64_t>& dims);

// Strides in elements of NHWC bytes under NCHW dims.
std::vector<std::int64_t> channelsLastStrides(const std::vector<std::int64_t>& dims);

// Index of the op's first convolution layer, or the layer count when it has none. Values an op
// computes before it are in the op's input layout, from it on in its output layout.
std::size_t firstConvLayer(const Op& op);

} // namespace opsched::cpu
