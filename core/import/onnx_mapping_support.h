// Helpers shared by the node mappings (internal to the importer).
#pragma once

#include "graph/graph_builder.h"
#include "import/onnx_import_context.h"
#include "import/onnx_structure.h"

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
void mapPow(ImportContext& ctx, const NodeRef& node);
void mapBinaryKind(ImportContext& ctx, const NodeRef& node, BinaryKind kind);
void mapWhere(ImportContext& ctx, const NodeRef& node);
void mapExpand(ImportContext& ctx, const NodeRef& node);
void mapGather(ImportContext& ctx, const NodeRef& node);
void mapReduce(ImportContext& ctx, const NodeRef& node);

} // namespace opsched::onnx_import
