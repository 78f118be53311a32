#include "import/onnx_loader.h"

#include "import/import_error.h"
#include "import/onnx_newer_opsets.h"
#include "import/onnx_old_opsets.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <unordered_map>

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
        throw ImportError("the file has " + std::to_string(size) + " bytes, more than the " + std::to_string(limit)
            + " opsched reads");
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
        const bool looksLikeModel = model.ir_version() > 0 || !model.producer_name().empty()
            || model.opset_import_size() > 0 || model.has_graph();
        if (looksLikeModel)
            throw ImportError("the ONNX file is truncated or corrupt (protobuf parsing failed; the file has "
                + std::to_string(size) + " bytes)");
        throw ImportError("not an ONNX model: the file is not a protobuf-encoded ModelProto");
    }
    if (!model.has_graph() || model.ir_version() <= 0)
        throw ImportError(
            std::string("not an ONNX model: the protobuf has no ") + (model.has_graph() ? "IR version" : "graph"));
    return model;
}

int checkOpset(onnx::ModelProto& model)
{
    int opset = -1;
    for (const auto& entry : model.opset_import())
        if (entry.domain().empty() || entry.domain() == "ai.onnx")
            opset = static_cast<int>(entry.version());
    if (opset < 0)
        throw ImportError("the model imports no ai.onnx opset");
    if (opset > kMaxOpset)
        throw ImportError("opset " + std::to_string(opset) + " is newer than opsched reads (opsets "
            + std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset) + ")");
    if (opset >= kMinOpset)
        return opset;
    // Older models are read as they are when every op they use kept its definition up to opset 7,
    // else upgraded to opset 7 by ONNX's version converter.
    std::set<std::string> changed;
    for (const auto& node : model.graph().node()) {
        // An op ONNX does not know (or of another domain) stops the converter with no useful
        // reason; the import then names it as unsupported, which is what the user needs to hear.
        if ((!node.domain().empty() && node.domain() != "ai.onnx")
            || !onnx::OpSchemaRegistry::Schema(node.op_type(), kMaxOpset, ""))
            return opset;
        const auto* old = onnx::OpSchemaRegistry::Schema(node.op_type(), opset, "");
        const auto* at7 = onnx::OpSchemaRegistry::Schema(node.op_type(), kMinOpset, "");
        if (!old || !at7 || old->SinceVersion() != at7->SinceVersion())
            changed.insert(node.op_type());
    }
    if (changed.empty())
        return opset;
    std::string list;
    for (const auto& op : changed)
        list += (list.empty() ? "" : ", ") + op;
    upgradeToOpset7(model, opset, list);
    return kMinOpset;
}

std::unordered_map<std::string, int> declaredRanks(const onnx::GraphProto& graph)
{
    std::unordered_map<std::string, int> rank;
    const auto declare = [&](const onnx::ValueInfoProto& v) {
        if (v.type().has_tensor_type() && v.type().tensor_type().has_shape())
            rank[v.name()] = v.type().tensor_type().shape().dim_size();
    };
    for (const auto& v : graph.input())
        declare(v);
    for (const auto& v : graph.value_info())
        declare(v);
    for (const auto& t : graph.initializer())
        rank[t.name()] = t.dims_size();
    return rank;
}

namespace {

// The rank of a node's output where simple rules give it from its inputs' (-1: unknown): enough to
// follow ranks from the graph inputs to the windowed ops through the usual layers.
int outputRank(const onnx::NodeProto& node, const std::function<int(int)>& inputRank,
    const std::unordered_map<std::string, const onnx::TensorProto*>& initializers)
{
    static const std::set<std::string> sameRank { "Relu", "Sigmoid", "Tanh", "LeakyRelu", "Elu", "Selu", "Celu",
        "Softplus", "Softsign", "HardSigmoid", "HardSwish", "Clip", "Abs", "Neg", "Exp", "Log", "Sqrt", "Erf",
        "Reciprocal", "Identity", "Dropout", "BatchNormalization", "InstanceNormalization", "LayerNormalization",
        "Softmax", "LogSoftmax", "Cast", "Conv", "ConvTranspose", "MaxPool", "AveragePool", "LpPool",
        "GlobalAveragePool", "GlobalMaxPool", "LRN", "Transpose", "Pad", "Resize", "Upsample", "DepthToSpace",
        "SpaceToDepth", "Concat", "Mish", "ThresholdedRelu", "Not", "Floor", "Ceil", "Round", "Hardmax",
        "MeanVarianceNormalization", "LpNormalization", "Trilu", "CumSum" };
    static const std::set<std::string> broadcast { "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean",
        "Where", "Equal", "Greater", "Less", "GreaterOrEqual", "LessOrEqual", "And", "Or", "Xor", "PRelu", "Mod" };
    const std::string& op = node.op_type();
    if (sameRank.count(op))
        return inputRank(0);
    if (broadcast.count(op)) {
        int r = 0;
        for (int i = 0; i < node.input_size(); ++i) {
            if (inputRank(i) < 0)
                return -1;
            r = std::max(r, inputRank(i));
        }
        return r;
    }
    if (op == "Gemm" || op == "Flatten")
        return 2;
    if (op == "Shape")
        return 1;
    if (op == "MatMul") {
        const int a = inputRank(0), b = inputRank(1);
        return a >= 2 && b >= 2 ? std::max(a, b) : -1;
    }
    if (op == "Reshape" && node.input_size() > 1) {
        const auto it = initializers.find(node.input(1));
        if (it != initializers.end() && it->second->dims_size() == 1)
            return static_cast<int>(it->second->dims(0));
    }
    return -1;
}

// ONNX's own shape inference for convolutions and pools (libonnx 1.12) reads past the end of the
// input's dimensions when the input has fewer spatial dimensions than the weights or the window
// attributes say, and crashes (found by fuzzing: a model whose 4-D input was cut to 3-D, and one
// whose convolution reads a Gemm's 2-D output). So ranks are followed from what is known before
// inference (graph inputs, initializers, declared value_info) through the usual layers, and each
// window op's input is checked against its weights and attributes first.
void checkWindowRanks(const onnx::GraphProto& graph)
{
    std::unordered_map<std::string, const onnx::TensorProto*> initializers;
    for (const auto& t : graph.initializer())
        initializers[t.name()] = &t;
    std::unordered_map<std::string, int> rank = declaredRanks(graph);
    const auto rankOf = [&](const onnx::NodeProto& node, int i) {
        if (node.input_size() <= i)
            return -1;
        const auto it = rank.find(node.input(i));
        return it == rank.end() ? -1 : it->second;
    };
    for (const auto& node : graph.node()) {
        const std::string& op = node.op_type();
        const bool conv = op == "Conv" || op == "ConvTranspose";
        if (node.output_size() > 0 && !node.output(0).empty() && !rank.count(node.output(0))) {
            const int r = outputRank(
                node, [&](int i) { return rankOf(node, i); }, initializers);
            if (r >= 0)
                rank[node.output(0)] = r;
        }
        if (!conv && op != "MaxPool" && op != "AveragePool" && op != "LpPool")
            continue;
        const std::string where = op + " '" + node.name() + "'";
        const int x = rankOf(node, 0);
        const int w = conv ? rankOf(node, 1) : -1;
        if (x >= 0 && x < 3)
            throw ImportError(where + ": input '" + node.input(0) + "' has rank " + std::to_string(x)
                + "; a convolution or pool needs batch, channels and at least one spatial dimension");
        if (x >= 0 && w >= 0 && x != w)
            throw ImportError(where + ": input '" + node.input(0) + "' has rank " + std::to_string(x) + " but weights '"
                + node.input(1) + "' have rank " + std::to_string(w));
        const int spatial = (x >= 0 ? x : w) - 2;
        if (spatial < 0)
            continue;
        for (const auto& a : node.attribute()) {
            const bool perDim = a.name() == "kernel_shape" || a.name() == "strides" || a.name() == "dilations"
                || a.name() == "output_padding";
            const int per = a.name() == "pads" ? 2 : perDim ? 1 : 0;
            if (per > 0 && a.ints_size() != per * spatial)
                throw ImportError(where + ": attribute '" + a.name() + "' has " + std::to_string(a.ints_size())
                    + " values, but the input has " + std::to_string(spatial) + " spatial dimensions");
        }
    }
}

} // namespace

void runOnnxChecks(onnx::ModelProto& model, int opset)
{
    checkInOpset17Terms(model, opset, [](onnx::ModelProto& checked) {
        try {
            onnx::checker::check_model(checked);
        } catch (const std::exception& e) {
            throw ImportError(std::string("the ONNX checker rejects the model: ") + e.what());
        }
        checkWindowRanks(checked.graph());
        try {
            // Strict mode: node-level inference errors (shapes that do not fit) are reported.
            const onnx::ShapeInferenceOptions options(/*check_type=*/false, /*strict_mode=*/1, /*data_prop=*/true);
            onnx::shape_inference::InferShapes(checked, onnx::OpSchemaRegistry::Instance(), options);
        } catch (const std::exception& e) {
            throw ImportError(std::string("ONNX shape inference fails: ") + e.what());
        }
    });
}

} // namespace opsched::onnx_import
