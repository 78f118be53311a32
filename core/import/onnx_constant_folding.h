// Evaluation of nodes whose inputs are all constant: Constant nodes, and the shape computations
// exporters emit (Shape -> Gather -> Unsqueeze -> Concat -> Reshape), which become static once the
// input shapes are known.
#pragma once

#include "import/onnx_tensor.h"

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace opsched::onnx_import {

// Op types foldNode evaluates.
bool isFoldableOpType(const std::string& opType);
// Of those, the ones that only exist as constants in opsched (no IR op on activations).
bool isFoldOnlyOpType(const std::string& opType);

// Outputs of a node from its inputs (nullptr for omitted optional inputs). Shape nodes take their
// input's dimensions as a constant of those dims. Throws NodeError.
std::vector<ConstPtr> foldNode(const onnx::NodeProto& node, const std::vector<ConstPtr>& inputs, int opset);

// The output of a Shape node for an input of these dimensions (start/end attributes applied).
ConstTensor shapeConstant(const onnx::NodeProto& node, const std::vector<std::int64_t>& dims);

// Axis in [0, rank); throws NodeError naming the axis otherwise.
std::int64_t normalizeAxis(std::int64_t axis, std::int64_t rank);
std::vector<std::int64_t> squeezeDims(const std::vector<std::int64_t>& dims, std::vector<std::int64_t> axes);
std::vector<std::int64_t> unsqueezeDims(const std::vector<std::int64_t>& dims, std::vector<std::int64_t> axes);
// Reshape target with 0 (copy, unless allowZero) and -1 (infer) resolved.
std::vector<std::int64_t> reshapeDims(
    const std::vector<std::int64_t>& dims, const std::vector<std::int64_t>& target, bool allowZero);

} // namespace opsched::onnx_import
