// Models newer than the ONNX library opsched builds against. ONNX 1.12's checker and shape
// inference know opsets up to 17; a model of opset 18 to 22 is checked on a copy rewritten in
// opset-17 terms, while the importer reads the original with its own opset's meaning.
#pragma once

#include <onnx/onnx_pb.h>

#include <functional>

namespace opsched::onnx_import {

// The newest ai.onnx opset the linked ONNX library checks and infers shapes for.
inline constexpr int kNewestCheckedOpset = 17;

// Runs `check` on a form of `model` that ONNX 1.12 understands. For opset 17 and older that is
// the model itself. For newer ones it is a copy (sharing the initializers, moved there and back,
// so weights are not copied) in which:
//  - Mish, Gelu and GroupNormalization, which ONNX 1.12 does not know, are ops of a private
//    domain with ONNX's own shape rule for them (the output is shaped like the input);
//  - reductions whose axes became an input (opset 18) take constant axes as the attribute;
//  - attributes added since opset 17 are dropped where they do not change shapes (Resize's
//    antialias, Cast's saturate, unit pooling dilations);
//  - a node whose output shape needs what opset 17 cannot say (Split by num_outputs, Pad over
//    some axes, Resize over some axes or keeping the aspect ratio, dilated pools, axes computed at
//    run time) becomes an opaque op: the checker still sees its inputs and outputs, shape
//    inference leaves its outputs unshaped, and the importer checks the node itself.
// The copy is checked at opset 17 and IR version 8 at most.
void checkInOpset17Terms(onnx::ModelProto& model, int opset, const std::function<void(onnx::ModelProto&)>& check);

} // namespace opsched::onnx_import
