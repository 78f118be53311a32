// Reading an ONNX file into a ModelProto and validating it with ONNX's own tools before opsched
// looks at the graph: file checks, protobuf parsing, opsets, the checker and shape inference.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <unordered_map>

namespace opsched::onnx_import {

inline constexpr int kMinOpset = 7;
inline constexpr int kMaxOpset = 22;
// Protobuf cannot parse messages of 2 GiB or more; larger models keep weights as external data.
inline constexpr std::uintmax_t kMaxModelBytes = (std::uintmax_t { 1 } << 31) - 1;

// The file's size; throws ImportError for a missing file, a directory or one above `limit` bytes.
std::uintmax_t checkedFileSize(const std::string& path, std::uintmax_t limit);
// The whole file, after the same checks.
std::string readFileLimited(const std::string& path, std::uintmax_t limit);

// Throws ImportError telling a file that is no protobuf apart from a truncated or corrupt model.
onnx::ModelProto parseModelFile(const std::string& path);

// The ai.onnx opset the model imports. Throws ImportError when it is newer than 22. An older
// model whose ops all kept their opset-7 definitions is read as it is; one using ops that changed
// is upgraded to opset 7 in place (onnx_old_opsets.h) and 7 returned.
int checkOpset(onnx::ModelProto& model);

// The ranks the graph states before any inference: its inputs', its value_info's and its
// initializers'.
std::unordered_map<std::string, int> declaredRanks(const onnx::GraphProto& graph);

// onnx::checker::check_model, then strict shape inference; their exceptions become ImportErrors.
// Models newer than opset 17 are checked in opset-17 terms (onnx_newer_opsets.h).
void runOnnxChecks(onnx::ModelProto& model, int opset);

} // namespace opsched::onnx_import
