#include "import/onnx_loader.h"

#include "import/import_error.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <filesystem>
#include <fstream>
#include <set>

namespace opsched::onnx_import {

std::uintmax_t checkedFileSize(const std::string& path, std::uintmax_t limit)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (ec || !fs::exists(status))
        throw ImportError("no such file");
    if (fs::is_directory(status))
        throw ImportError("is a directory, not a file");
    const auto size = fs::file_size(path, ec);
    if (ec)
        throw ImportError("cannot read the file size: " + ec.message());
    if (size > limit)
        throw ImportError("the file has " + std::to_string(size) + " bytes, more than the " + std::to_string(limit) +
                          " opsched reads");
    return size;
}

std::string readFileLimited(const std::string& path, std::uintmax_t limit)
{
    const auto size = checkedFileSize(path, limit);
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw ImportError("cannot open the file for reading");
    std::string data(static_cast<std::size_t>(size), '\0');
    in.read(data.data(), static_cast<std::streamsize>(size));
    if (static_cast<std::uintmax_t>(in.gcount()) != size)
        throw ImportError("could not read the whole file");
    return data;
}

onnx::ModelProto parseModelFile(const std::string& path)
{
    const auto size = checkedFileSize(path, kMaxModelBytes);
    if (size == 0)
        throw ImportError("not an ONNX model: the file is empty");
    // Parsed from the stream: a copy of the whole file in memory would double the peak for
    // models that are mostly weights.
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw ImportError("cannot open the file for reading");
    onnx::ModelProto model;
    if (!model.ParseFromIstream(&in)) {
        // A failed parse keeps the fields read before the damage: a model cut short still shows
        // its header (IR version, producer, opsets), a file of another kind does not.
        const bool looksLikeModel = model.ir_version() > 0 || !model.producer_name().empty() ||
                                    model.opset_import_size() > 0 || model.has_graph();
        if (looksLikeModel)
            throw ImportError("the ONNX file is truncated or corrupt (protobuf parsing failed; the file has " +
                              std::to_string(size) + " bytes)");
        throw ImportError("not an ONNX model: the file is not a protobuf-encoded ModelProto");
    }
    if (!model.has_graph() || model.ir_version() <= 0)
        throw ImportError(std::string("not an ONNX model: the protobuf has no ") +
                          (model.has_graph() ? "IR version" : "graph"));
    return model;
}

int checkOpset(const onnx::ModelProto& model)
{
    int opset = -1;
    for (const auto& entry : model.opset_import())
        if (entry.domain().empty() || entry.domain() == "ai.onnx")
            opset = static_cast<int>(entry.version());
    if (opset < 0)
        throw ImportError("the model imports no ai.onnx opset");
    if (opset > kMaxOpset)
        throw ImportError("opset " + std::to_string(opset) + " is newer than opsched reads (opsets " +
                          std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) + ")");
    if (opset >= kMinOpset)
        return opset;
    // Older models are fine when every op they use kept its definition up to opset 7.
    std::set<std::string> changed;
    for (const auto& node : model.graph().node()) {
        if (!node.domain().empty() && node.domain() != "ai.onnx")
            continue;
        const auto* old = onnx::OpSchemaRegistry::Schema(node.op_type(), opset, "");
        const auto* at7 = onnx::OpSchemaRegistry::Schema(node.op_type(), kMinOpset, "");
        if (!old || !at7 || old->SinceVersion() != at7->SinceVersion())
            changed.insert(node.op_type());
    }
    if (!changed.empty()) {
        std::string list;
        for (const auto& op : changed)
            list += (list.empty() ? "" : ", ") + op;
        throw ImportError("opset " + std::to_string(opset) + " is older than opsched reads (opsets " +
                          std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) +
                          "), and these ops changed since: " + list);
    }
    return opset;
}

void runOnnxChecks(onnx::ModelProto& model)
{
    try {
        onnx::checker::check_model(model);
    } catch (const std::exception& e) {
        throw ImportError(std::string("the ONNX checker rejects the model: ") + e.what());
    }
    try {
        // Strict mode: node-level inference errors (shapes that do not fit) are reported.
        const onnx::ShapeInferenceOptions options(/*check_type=*/false, /*strict_mode=*/1, /*data_prop=*/true);
        onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
    } catch (const std::exception& e) {
        throw ImportError(std::string("ONNX shape inference fails: ") + e.what());
    }
}

} // namespace opsched::onnx_import
