// Models older than opset 7 (ONNX's model zoo keeps many at opsets 3-6): ops whose definition
// changed before opset 7 (explicit broadcast attributes, BatchNormalization's is_test, Reshape's
// shape attribute, ...) are rewritten to their opset-7 form by ONNX's own version converter, so
// that the importer reads one set of definitions.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

namespace opsched::onnx_import {

// Upgrades `model`, which imports ai.onnx opset `opset` < 7, to opset 7 in place. Before the
// converter runs, a per-channel PRelu slope of shape [C] (opset 6 ties it to the channel axis, where
// numpy broadcasting would align it with the last one) is unsqueezed to [C, 1, ...]. Throws
// ImportError naming `changedOps` and the converter's reason when it cannot.
void upgradeToOpset7(onnx::ModelProto& model, int opset, const std::string& changedOps);

} // namespace opsched::onnx_import
