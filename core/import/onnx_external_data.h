// Weights kept outside the .onnx file (ONNX's external data: large models, and exporters asked to
// write weights apart): read into the model in memory, so the rest of the importer sees ordinary
// tensors.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>

namespace opsched::onnx_import {

// Replaces every external tensor of `model` (initializers, also in subgraphs, and Constant values)
// with its bytes, read from the file its `location` names relative to the folder of `modelPath`
// at `offset` for `length` bytes (to the end of the file when no length is given). Throws
// ImportError naming the tensor and the file for a location that is absolute or leaves the
// folder, a missing or short file, or a length that does not fit the tensor's shape and type.
void loadExternalData(onnx::ModelProto& model, const std::string& modelPath);

} // namespace opsched::onnx_import
