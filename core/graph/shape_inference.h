// Output shapes and costs of ops, from their input shapes. Shared by the builder and by rebatching.
#pragma once

#include "graph/op.h"
#include "graph/tensor.h"

#include <functional>
#include <vector>

namespace opsched {

// Windows along one axis of `in` elements padded by padA and padB (0 when none fits); ceil mode
// adds a partial last window unless it would start in the end padding (PyTorch, ONNX).
std::int64_t windowOutputSize(std::int64_t in, std::int64_t padA, std::int64_t padB, std::int64_t kernel,
    std::int64_t stride, std::int64_t dilation, bool ceilMode);

// The shape fed to the op's first layer: terms summed, then concatenated along channels. For
// operand layers (and Multiply), the first operand's shape. Throws GraphError naming the op when
// shapes do not fit.
Shape combinedInputShape(
    const std::string& opName, const Layer& first, const std::vector<std::vector<Shape>>& termShapes);

// Fills layer.output for one layer from its input shape; operand layers use `operands` (one shape
// per term, then one per weight). Throws GraphError naming the op.
void inferLayerShape(const std::string& opName, Layer& layer, const Shape& input, const std::vector<Shape>& operands);

// Operand shapes of an op's first layer: each term's tensor, then the layer's weights.
std::vector<Shape> operandShapes(const std::string& opName, const std::vector<std::vector<Shape>>& termShapes,
    const std::vector<Shape>& weightShapes);

// Shapes of the weights a layer needs, given its input: {weight, bias?}.
std::vector<Shape> weightShapes(const Layer& layer, const Shape& input);

// FLOPs and bytes of an op whose layers have inferred shapes: sets op.cost and each layer's cost.
void computeOpCost(Op& op, const std::function<const Tensor&(TensorId)>& tensorOf);

} // namespace opsched
