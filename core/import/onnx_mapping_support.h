// Helpers shared by the node mappings (internal to the importer).
#pragma once

#include "graph/graph_builder.h"
#include "import/onnx_attributes.h"
#include "import/onnx_import_context.h"
#include "import/onnx_structure.h"

#include <array>
#include <string>
#include <vector>

namespace opsched::onnx_import {

// Input i of the node, or "" when the node has fewer inputs.
inline const std::string& inputName(const NodeRef& node, int i)
{
    static const std::string none;
    return i < node.proto->input_size() ? node.proto->input(i) : none;
}

inline Layer makeLayer(LayerParams params, std::vector<TensorId> weights = {}, Activation activation = {})
{
    Layer layer;
    layer.params = std::move(params);
    layer.weights = std::move(weights);
    layer.activation = activation;
    return layer;
}

// Adds a one-layer op and returns its output.
inline TensorId addSimpleOp(
    ImportContext& ctx, std::string name, OpKind kind, std::vector<InputTerm> terms, Layer layer)
{
    OpSpec spec;
    spec.name = std::move(name);
    spec.kind = kind;
    spec.inputs = std::move(terms);
    spec.layers.push_back(std::move(layer));
    return ctx.addOp(std::move(spec));
}

// An op on the node's first input, named after the node, defining its first output.
void addUnaryOp(ImportContext& ctx, const NodeRef& node, OpKind kind, Layer layer);

// Axes from the attribute (before `inputOpset`) or from the optional constant input `index`.
std::vector<std::int64_t> axesInput(ImportContext& ctx, const NodeRef& node, int index, int inputOpset);

// Windowed layers (convolution, pooling) on 1-D (NCW) and 2-D (NCHW) inputs, in
// onnx_window_ops.cpp. spatialRankOf: 1 or 2 (3 for NCDHW when `volumes`), else NodeError naming `what`. asTwoD: NCW as
// [N, C, 1, W]. pairAttr: a per-axis attribute as {height, width} (a 1-D window's height is
// `fallback`). windowPads: {top, left, bottom, right} from pads or auto_pad, on the 2-D input.
int spatialRankOf(const Shape& in, const char* what, bool volumes = false);
// Per spatial axis of an n-D window: the attribute's values (`fallback` each when absent), checked
// against `min` and the largest sane value.
std::vector<std::int64_t> windowValues(
    const Attributes& attrs, const char* name, std::int64_t fallback, std::int64_t min, std::size_t n);
// Explicit padding per axis (none when `valid`): the pads attribute's begins and ends, checked.
void explicitPads(const Attributes& attrs, std::size_t n, bool valid, std::vector<std::int64_t>& begin,
    std::vector<std::int64_t>& end);
Shape asTwoD(const Shape& in);
std::array<std::int64_t, 2> pairAttr(
    const Attributes& attrs, const char* name, std::int64_t fallback, std::int64_t min, int spatial);
std::array<std::int64_t, 4> windowPads(const Attributes& attrs, const Shape& in, std::array<std::int64_t, 2> kernel,
    std::array<std::int64_t, 2> stride, std::array<std::int64_t, 2> dilation, int spatial);
// Kernel, stride and dilation {height, width} into a convolution-like layer (Conv2d,
// ConvTranspose2d).
template <typename Window>
void setWindow(Window& c, std::array<std::int64_t, 2> kernel, std::array<std::int64_t, 2> stride,
    std::array<std::int64_t, 2> dilation)
{
    c.kernelH = kernel[0];
    c.kernelW = kernel[1];
    c.strideH = stride[0];
    c.strideW = stride[1];
    c.dilationH = dilation[0];
    c.dilationW = dilation[1];
}

// The window layer as an op on x; a 1-D input gets views to and from height 1 around it.
TensorId addWindowOp(
    ImportContext& ctx, const std::string& name, OpKind kind, TensorId x, Layer layer, std::int64_t outChannels);

// Refuses training-mode batch normalisation and its statistics outputs (onnx_op_mapping.cpp).
void checkBatchNormMode(ImportContext& ctx, const NodeRef& node);

// MaxPool, AveragePool, GlobalAveragePool, GlobalMaxPool (onnx_window_ops.cpp).
void mapPool(ImportContext& ctx, const NodeRef& node);

// Mappings in onnx_vision_ops.cpp.
void mapConvTranspose(ImportContext& ctx, const NodeRef& node);
void mapResize(ImportContext& ctx, const NodeRef& node);
void mapDepthToSpace(ImportContext& ctx, const NodeRef& node);
void mapInstanceNormalization(ImportContext& ctx, const NodeRef& node);
void mapGroupNormalization(ImportContext& ctx, const NodeRef& node);
void mapLrn(ImportContext& ctx, const NodeRef& node);
// onnx_einsum.cpp.
void mapEinsum(ImportContext& ctx, const NodeRef& node);
// Scatters and GatherND with constant indices (onnx_scatter_ops.cpp).
void mapScatterNd(ImportContext& ctx, const NodeRef& node);
void mapScatterElements(ImportContext& ctx, const NodeRef& node);
void mapGatherNd(ImportContext& ctx, const NodeRef& node);
// The op kind a Binary layer of this kind is listed under (Add, Compare, Math ...).
OpKind binaryOpKind(BinaryKind k);
// Element-wise operators composed of a few ops, and OneHot (onnx_composed_math.cpp).
bool isComposedMathOpType(const std::string& op);
void mapComposedMath(ImportContext& ctx, const NodeRef& node);
void mapOneHot(ImportContext& ctx, const NodeRef& node);
// GridSample composed of element-wise ops and gathers (onnx_grid_sample.cpp).
void mapGridSample(ImportContext& ctx, const NodeRef& node);

// Mappings in onnx_tensor_ops.cpp.
void mapGemm(ImportContext& ctx, const NodeRef& node);
void mapMatMul(ImportContext& ctx, const NodeRef& node);
void mapReshape(ImportContext& ctx, const NodeRef& node);
void mapFlatten(ImportContext& ctx, const NodeRef& node);
void mapSqueeze(ImportContext& ctx, const NodeRef& node);
void mapTranspose(ImportContext& ctx, const NodeRef& node);
void mapSlice(ImportContext& ctx, const NodeRef& node);
void mapSplit(ImportContext& ctx, const NodeRef& node);
void mapPad(ImportContext& ctx, const NodeRef& node);
void mapSoftmax(ImportContext& ctx, const NodeRef& node);
void mapPassThrough(ImportContext& ctx, const NodeRef& node);

// The activation an ONNX activation node (Relu, Clip, ...) applies (onnx_op_mapping.cpp).
Activation activationOf(ImportContext& ctx, const NodeRef& node);

// Mappings in onnx_transformer_ops.cpp.
bool isTransformerOpType(const std::string& opType);
void mapLayerNormalization(ImportContext& ctx, const NodeRef& node);
void mapUnaryMath(ImportContext& ctx, const NodeRef& node);
void mapCast(ImportContext& ctx, const NodeRef& node);
void mapGelu(ImportContext& ctx, const NodeRef& node);
// Sum and Mean of any number of inputs.
void mapSumOrMean(ImportContext& ctx, const NodeRef& node);
void mapTile(ImportContext& ctx, const NodeRef& node);
// Shape and Size: constants from the (static) dimensions of an activation or a constant.
void foldShapeOf(ImportContext& ctx, const NodeRef& node);
// A node whose inputs are all constants, evaluated at import into constant outputs.
void foldToConstants(ImportContext& ctx, const NodeRef& node);
// If whose condition is a constant at import: the taken branch's nodes imported in its place.
void mapIf(ImportContext& ctx, const NodeRef& node);
void mapPow(ImportContext& ctx, const NodeRef& node);
void mapBinaryKind(ImportContext& ctx, const NodeRef& node, BinaryKind kind);
void mapWhere(ImportContext& ctx, const NodeRef& node);
void mapExpand(ImportContext& ctx, const NodeRef& node);
void mapGather(ImportContext& ctx, const NodeRef& node);
void mapGatherElements(ImportContext& ctx, const NodeRef& node);
void mapGatherFromActivation(ImportContext& ctx, const NodeRef& node, Gather g);
void mapReduce(ImportContext& ctx, const NodeRef& node);
void mapArgExtreme(ImportContext& ctx, const NodeRef& node);

// Mappings in onnx_logic_ops.cpp: GreaterOrEqual, LessOrEqual; And, Or, Xor; Hardmax;
// MeanVarianceNormalization; LpNormalization; Trilu; Mod; CumSum; TopK.
void mapComparisonOrEqual(ImportContext& ctx, const NodeRef& node);
void mapLogical(ImportContext& ctx, const NodeRef& node);
void mapHardmax(ImportContext& ctx, const NodeRef& node);
void mapMeanVarianceNormalization(ImportContext& ctx, const NodeRef& node);
void mapLpNormalization(ImportContext& ctx, const NodeRef& node);
void mapTrilu(ImportContext& ctx, const NodeRef& node);
void mapMod(ImportContext& ctx, const NodeRef& node);
void mapCumSum(ImportContext& ctx, const NodeRef& node);
void mapTopK(ImportContext& ctx, const NodeRef& node);

// LSTM, GRU and RNN unrolled over their sequence (onnx_recurrent_ops.cpp).
void mapRecurrent(ImportContext& ctx, const NodeRef& node);

// QuantizeLinear and DequantizeLinear on activations (onnx_quantize_ops.cpp).
void mapQuantizeLinear(ImportContext& ctx, const NodeRef& node);
void mapDequantizeLinear(ImportContext& ctx, const NodeRef& node);

} // namespace opsched::onnx_import
