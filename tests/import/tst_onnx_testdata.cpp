// Every libonnx-testdata node/ case whose ops opsched imports: the IR's output shapes must equal
// the reference outputs' shapes, or the importer must reject the case with a reason on the list
// of known limits below. The node tests feed weights, shapes and axes as graph inputs; those go
// in as initializers (from the case's input_N.pb), the way exporters store them.
#include "import/onnx_importer.h"
#include "import/tensor_proto_io.h"
#include "util/error.h"

#include <onnx/onnx_pb.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <unistd.h>

using namespace opsched;
namespace fs = std::filesystem;

namespace {

const std::set<std::string> kSupportedOps{
    "Conv",       "Relu",    "Clip",    "Sigmoid",   "HardSigmoid", "HardSwish",   "Tanh",    "Mul",
    "Add",        "Sub",     "Div",     "MaxPool",   "AveragePool", "GlobalAveragePool", "GlobalMaxPool",
    "Concat",     "Split",   "Slice",   "Flatten",   "Reshape",     "Transpose",   "Squeeze", "Unsqueeze",
    "Gemm",       "MatMul",  "Softmax", "ReduceMean", "Pad",        "BatchNormalization", "Constant",
    "Identity",   "Dropout"};

// Inputs that are constants in real models: weights, shapes, axes, bounds.
const std::map<std::string, std::set<int>> kConstantInputs{
    {"Conv", {1, 2}},   {"BatchNormalization", {1, 2, 3, 4}}, {"Gemm", {1, 2}},       {"Clip", {1, 2}},
    {"Pad", {1, 2, 3}}, {"Reshape", {1}},                     {"Slice", {1, 2, 3, 4}}, {"Split", {1}},
    {"Squeeze", {1}},   {"Unsqueeze", {1}},                   {"Dropout", {1, 2}},    {"ReduceMean", {1}}};

// Cases opsched rejects on purpose, with a fragment of the reason it gives.
const std::map<std::string, std::string> kKnownLimits{
    {"test_add_uint8", "data type uint8"},
    {"test_sub_uint8", "data type uint8"},
    {"test_mul_uint8", "data type uint8"},
    {"test_div_uint8", "data type uint8"},
    {"test_maxpool_2d_uint8", "data type uint8"},
    {"test_clip_default_int8_inbounds", "data type int8"},
    {"test_clip_default_int8_max", "data type int8"},
    {"test_clip_default_int8_min", "data type int8"},
    {"test_edge_pad", "data type int32"},
    {"test_reflect_pad", "data type int32"},
    {"test_averagepool_1d_default", "2-D"},
    {"test_maxpool_1d_default", "2-D"},
    {"test_averagepool_3d_default", "2-D"},
    {"test_maxpool_3d_default", "2-D"},
    {"test_maxpool_2d_dilations", "dilations"},
    {"test_maxpool_with_argmax_2d_precomputed_pads", "Indices"},
    {"test_maxpool_with_argmax_2d_precomputed_strides", "Indices"},
    {"test_batchnorm_epsilon_training_mode", "training-mode"},
    {"test_batchnorm_example_training_mode", "training-mode"},
    {"test_training_dropout", "training-mode"},
    {"test_training_dropout_default", "training-mode"},
    {"test_training_dropout_default_mask", "training-mode"},
    {"test_training_dropout_mask", "training-mode"},
    {"test_training_dropout_zero_ratio", "training-mode"},
    {"test_training_dropout_zero_ratio_mask", "training-mode"},
    {"test_dropout_default_mask", "mask"},
    {"test_dropout_default_mask_ratio", "mask"},
    {"test_gemm_all_attributes", "transA"},
    {"test_gemm_transposeA", "transA"},
    {"test_constant", "is a constant"},
    {"test_identity_opt", "not a tensor"},
    {"test_identity_sequence", "not a tensor"},
    {"test_split_zero_size_splits", "is 0"},
    {"test_reshape_allowzero_reordered", "is 0"},
    {"test_slice_start_out_of_bounds", "non-positive dimension"},
};

struct Counts {
    int cases = 0, supported = 0, imported = 0, limits = 0;
};

onnx::TensorProto readProto(const fs::path& file)
{
    std::ifstream in(file, std::ios::binary);
    onnx::TensorProto t;
    t.ParseFromIstream(&in);
    return t;
}

// The model with constant-role graph inputs turned into initializers, written to a temp file.
std::string prepare(const fs::path& caseDir, const onnx::ModelProto& original)
{
    onnx::ModelProto model = original;
    auto& graph = *model.mutable_graph();
    std::set<std::string> constant;
    for (const auto& node : graph.node()) {
        auto it = kConstantInputs.find(node.op_type());
        if (it != kConstantInputs.end())
            for (int i : it->second)
                if (i < node.input_size() && !node.input(i).empty())
                    constant.insert(node.input(i));
    }
    google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> inputs;
    int index = 0;
    for (const auto& in : graph.input()) {
        const fs::path data = caseDir / "test_data_set_0" / ("input_" + std::to_string(index++) + ".pb");
        if (constant.count(in.name()) && fs::exists(data)) {
            auto* init = graph.add_initializer();
            *init = readProto(data);
            init->set_name(in.name());
        } else {
            *inputs.Add() = in;
        }
    }
    graph.mutable_input()->Swap(&inputs);
    const auto dir = fs::path(::testing::TempDir()) / ("opsched_onnx_testdata_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const auto path = dir / (caseDir.filename().string() + ".onnx");
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    model.SerializeToOstream(&out);
    return path.string();
}

TEST(OnnxTestData, NodeCasesImportWithReferenceShapes)
{
    const fs::path root = fs::path(OPSCHED_ONNX_TESTDATA) / "node";
    if (!fs::is_directory(root))
        GTEST_SKIP() << "libonnx-testdata is not installed (" << root << ")";
    std::vector<fs::path> cases;
    for (const auto& entry : fs::directory_iterator(root))
        if (fs::exists(entry.path() / "model.onnx"))
            cases.push_back(entry.path());
    std::sort(cases.begin(), cases.end());

    Counts n;
    std::set<std::string> limitsSeen;
    for (const auto& dir : cases) {
        ++n.cases;
        const std::string name = dir.filename().string();
        onnx::ModelProto model;
        {
            std::ifstream in(dir / "model.onnx", std::ios::binary);
            ASSERT_TRUE(model.ParseFromIstream(&in)) << name;
        }
        bool supported = model.graph().node_size() > 0;
        for (const auto& node : model.graph().node())
            supported = supported && kSupportedOps.count(node.op_type()) > 0;
        if (!supported)
            continue;
        ++n.supported;
        const std::string path = prepare(dir, model);
        const auto limit = kKnownLimits.find(name);
        try {
            const Graph g = importOnnx(path);
            if (limit != kKnownLimits.end()) {
                ADD_FAILURE() << name << " imports now: take it off kKnownLimits";
                continue;
            }
            const TestDataSet data = readTestDataSet((dir / "test_data_set_0").string());
            ASSERT_EQ(g.outputs().size(), data.outputs.size()) << name;
            for (std::size_t i = 0; i < data.outputs.size(); ++i)
                EXPECT_EQ(g.tensor(g.outputs()[i]).shape, data.outputs[i].shape) << name << " output " << i;
            ++n.imported;
        } catch (const Error& e) {
            if (limit == kKnownLimits.end()) {
                ADD_FAILURE() << name << " failed to import: " << e.what();
                continue;
            }
            EXPECT_NE(std::string(e.what()).find(limit->second), std::string::npos)
                << name << ": expected '" << limit->second << "' in: " << e.what();
            limitsSeen.insert(name);
            ++n.limits;
        }
    }
    std::error_code ec;
    fs::remove_all(fs::path(::testing::TempDir()) / ("opsched_onnx_testdata_" + std::to_string(::getpid())), ec);
    std::printf("[ counts   ] node cases %d: %d with supported ops, %d imported, %d rejected as known limits, %d "
                "with unsupported ops\n",
                n.cases, n.supported, n.imported, n.limits, n.cases - n.supported);
    for (const auto& [name, reason] : kKnownLimits)
        EXPECT_TRUE(limitsSeen.count(name)) << name << " is on kKnownLimits but was not seen";
    EXPECT_EQ(n.imported + n.limits, n.supported);
}

} // namespace
