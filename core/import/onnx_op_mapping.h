// ONNX nodes -> IR ops. Each mapping reads the node's inputs from the import context, adds one op
// (a few for Split and for Gemm with a run-time B) and records what the node's outputs became.
#pragma once

#include "import/onnx_import_context.h"
#include "import/onnx_structure.h"
#include "import/onnx_transformer_patterns.h"

#include <string>

namespace opsched::onnx_import {

// Op types that map to IR ops on activations.
bool isMappedOpType(const std::string& opType);

// A node with at least one activation input. Throws NodeError (or GraphError) on what opsched
// cannot represent.
void mapNode(ImportContext& ctx, const NodeRef& node);

// A Conv with the BatchNormalization folded into its weights and the activation fused into its
// output (either may be absent). The op takes the Conv's name and defines the last node's output.
void mapConvChain(ImportContext& ctx, const NodeRef& conv, const NodeRef* batchNorm, const NodeRef* activation);

// Folds a Pad into its consumer's padding when its values allow (constant 0, spatial dimensions
// only): the Pad's output then names its input and the consumer adds the padding. Returns false
// (and changes nothing) otherwise.
bool foldPadInto(ImportContext& ctx, const NodeRef& pad, const NodeRef& consumer);

// A transformer block (layer norm, GELU, Linear) as one op, named after its first node, defining
// its last node's output (onnx_transformer_ops.cpp).
void mapPattern(ImportContext& ctx, const PatternMatch& match, const std::vector<NodeRef>& nodes);

} // namespace opsched::onnx_import
