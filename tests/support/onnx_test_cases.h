// Shared by the tests that walk Debian's libonnx-testdata (tests/import/tst_onnx_testdata.cpp,
// tests/cpu/tst_onnx_conformance.cpp): which cases opsched can take, how their constant-role graph
// inputs become initializers, and the cases the importer rejects on purpose. Needs ONNX's headers.
#pragma once

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

namespace opsched::test {

namespace fs = std::filesystem;

// The op types the importer maps (docs/cli.md, "Model references": supported ops).
inline const std::set<std::string> kSupportedOnnxOps { "Conv", "Relu", "Clip", "Sigmoid", "HardSigmoid", "HardSwish",
    "Tanh", "Mul", "Add", "Sub", "Div", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "Concat",
    "Split", "Slice", "Flatten", "Reshape", "Transpose", "Squeeze", "Unsqueeze", "Gemm", "MatMul", "Softmax",
    "ReduceMean", "Pad", "BatchNormalization", "Constant", "Identity", "Dropout", "LeakyRelu", "Elu", "Selu", "Celu",
    "Softplus", "Softsign", "Mish", "ThresholdedRelu", "PRelu", "ConvTranspose", "Resize", "Upsample", "DepthToSpace",
    "SpaceToDepth", "InstanceNormalization", "GroupNormalization", "ArgMax", "ArgMin", "Einsum", "If",
    // Transformers' ops on activations.
    "LayerNormalization", "Erf", "Sqrt", "Exp", "Log", "Abs", "Neg", "Reciprocal", "Not", "Pow", "Cast", "Equal",
    "Less", "Greater", "Min", "Max", "Where", "Expand", "Gather", "ReduceSum", "ReduceMax",
    // Heads: log-probabilities, norms, variadic sums.
    "LogSoftmax", "LRN", "Tile", "Sum", "Mean", "Floor", "Ceil", "Round", "Sign", "Sin", "Cos", "ReduceMin",
    "ReduceProd", "ReduceL1", "ReduceL2", "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp",
    // Comparisons, logic and masks, decomposed at import.
    "GreaterOrEqual", "LessOrEqual", "And", "Or", "Xor", "Hardmax", "MeanVarianceNormalization", "LpNormalization",
    "Trilu", "Mod", "CumSum",
    // Recurrent layers, unrolled at import.
    "LSTM", "GRU", "RNN",
    // Quantization (QDQ models), folded on constants, float arithmetic on activations.
    "QuantizeLinear", "DequantizeLinear",
    // Selection.
    "TopK", "GatherElements",
    // Index ops with constant indices: scatters (slice assignments) and GatherND.
    "ScatterND", "ScatterElements", "Scatter", "GatherND",
    // Sampling by a computed grid, and element-wise functions, composed at import.
    "GridSample", "Sinh", "Cosh", "Tan", "Asinh", "Acosh", "Atanh", "IsNaN", "IsInf", "Shrink", "OneHot" };

// Inputs that are constants in real models: weights, shapes, axes, bounds.
inline const std::map<std::string, std::set<int>> kConstantOnnxInputs { { "Conv", { 1, 2 } },
    { "BatchNormalization", { 1, 2, 3, 4 } }, { "Gemm", { 1, 2 } }, { "Clip", { 1, 2 } }, { "Pad", { 1, 2, 3 } },
    { "Reshape", { 1 } }, { "Slice", { 1, 2, 3, 4 } }, { "Split", { 1 } }, { "Squeeze", { 1 } }, { "Unsqueeze", { 1 } },
    { "Dropout", { 1, 2 } }, { "ReduceMean", { 1 } }, { "ReduceSum", { 1 } }, { "ReduceMax", { 1 } },
    { "Expand", { 1 } }, { "LayerNormalization", { 1, 2 } }, { "PRelu", { 1 } }, { "ConvTranspose", { 1, 2 } },
    { "Resize", { 1, 2, 3 } }, { "Upsample", { 1 } }, { "InstanceNormalization", { 1, 2 } },
    { "GroupNormalization", { 1, 2 } }, { "If", { 0 } }, { "Tile", { 1 } }, { "Trilu", { 1 } }, { "CumSum", { 1 } },
    { "LSTM", { 1, 2, 3, 4, 7 } }, { "GRU", { 1, 2, 3, 4 } }, { "RNN", { 1, 2, 3, 4 } }, { "QuantizeLinear", { 1, 2 } },
    { "DequantizeLinear", { 1, 2 } }, { "TopK", { 1 } }, { "ScatterND", { 1 } }, { "ScatterElements", { 1 } },
    { "Scatter", { 1 } }, { "GatherND", { 1 } }, { "OneHot", { 1, 2 } } };

// node/ cases opsched rejects on purpose, with a fragment of the reason it gives.
inline const std::map<std::string, std::string> kNodeImportLimits {
    { "test_add_uint8", "data type uint8" },
    { "test_sub_uint8", "data type uint8" },
    { "test_mul_uint8", "data type uint8" },
    { "test_div_uint8", "data type uint8" },
    { "test_maxpool_2d_uint8", "data type uint8" },
    { "test_clip_default_int8_inbounds", "data type int8" },
    { "test_clip_default_int8_max", "data type int8" },
    { "test_clip_default_int8_min", "data type int8" },
    // Quantized tensors as graph inputs (uint8 arithmetic wraps; opsched computes in float), and
    // scales computed at run time (dynamic quantization): QDQ models quantize float inputs with
    // constant scales, which import.
    { "test_dequantizelinear", "data type uint8" },
    { "test_dequantizelinear_axis", "data type uint8" },
    { "test_dynamicquantizelinear_expanded", "computed at run time" },
    { "test_dynamicquantizelinear_max_adjusted_expanded", "computed at run time" },
    { "test_dynamicquantizelinear_min_adjusted_expanded", "computed at run time" },
    // ONNX's Einsum cases are float64 (tests/cpu/tst_cpu_einsum.cpp checks float32 contractions).
    { "test_einsum_batch_diagonal", "data type float64" },
    { "test_einsum_batch_matmul", "data type float64" },
    { "test_einsum_inner_prod", "data type float64" },
    { "test_einsum_sum", "data type float64" },
    { "test_einsum_transpose", "data type float64" },
    // So are its ReduceLogSumExp cases (tests/cpu/tst_cpu_legacy_softmax.cpp checks float32 ones).
    { "test_reduce_log_sum_exp_default_axes_keepdims_example", "data type float64" },
    { "test_reduce_log_sum_exp_default_axes_keepdims_random", "data type float64" },
    { "test_reduce_log_sum_exp_do_not_keepdims_example", "data type float64" },
    { "test_reduce_log_sum_exp_do_not_keepdims_random", "data type float64" },
    { "test_reduce_log_sum_exp_keepdims_example", "data type float64" },
    { "test_reduce_log_sum_exp_keepdims_random", "data type float64" },
    { "test_reduce_log_sum_exp_negative_axes_keepdims_example", "data type float64" },
    { "test_reduce_log_sum_exp_negative_axes_keepdims_random", "data type float64" },
    // Mod over the narrow and wide types opsched does not carry (float32, int32 and int64 run).
    { "test_mod_mixed_sign_float16", "data type float16" },
    { "test_mod_mixed_sign_float64", "data type float64" },
    { "test_mod_mixed_sign_int16", "data type int16" },
    { "test_mod_mixed_sign_int8", "data type int8" },
    { "test_mod_uint16", "data type uint16" },
    { "test_mod_uint32", "data type uint32" },
    { "test_mod_uint64", "data type uint64" },
    { "test_mod_uint8", "data type uint8" },
    // ONNX's CumSum cases are float64 (tests/cpu/tst_cpu_cumsum.cpp checks float32 and integer sums).
    { "test_cumsum_1d", "data type float64" },
    { "test_cumsum_1d_exclusive", "data type float64" },
    { "test_cumsum_1d_reverse", "data type float64" },
    { "test_cumsum_1d_reverse_exclusive", "data type float64" },
    { "test_cumsum_2d_axis_0", "data type float64" },
    { "test_cumsum_2d_axis_1", "data type float64" },
    { "test_cumsum_2d_negative_axis", "data type float64" },
    // Triangles of empty matrices: no empty tensors.
    { "test_gridsample_bicubic", "mode 'bicubic'" },
    { "test_gridsample_reflection_padding", "padding_mode 'reflection'" },
    { "test_tril_zero", "is 0" },
    { "test_triu_zero", "is 0" },
    { "test_maxpool_with_argmax_2d_precomputed_pads", "Indices" },
    { "test_maxpool_with_argmax_2d_precomputed_strides", "Indices" },
    { "test_batchnorm_epsilon_training_mode", "training-mode" },
    { "test_batchnorm_example_training_mode", "training-mode" },
    { "test_training_dropout", "training-mode" },
    { "test_training_dropout_default", "training-mode" },
    { "test_training_dropout_default_mask", "training-mode" },
    { "test_training_dropout_mask", "training-mode" },
    { "test_training_dropout_zero_ratio_mask", "mask" },
    { "test_dropout_default_mask", "mask" },
    { "test_dropout_default_mask_ratio", "mask" },
    { "test_constant", "is a constant" },
    // If: each branch returns a constant (opsched runs ops on the inputs) or a sequence.
    { "test_if", "is a constant" },
    { "test_if_opt", "SequenceConstruct" },
    { "test_if_seq", "SequenceConstruct" },
    { "test_identity_opt", "not a tensor" },
    { "test_identity_sequence", "not a tensor" },
    { "test_split_zero_size_splits", "is 0" },
    { "test_reshape_allowzero_reordered", "is 0" },
    { "test_slice_start_out_of_bounds", "non-positive dimension" },
    // Transformers' ops with types opsched does not compute in, or outputs it does not produce.
    { "test_cast_BFLOAT16_to_FLOAT", "data type bfloat16" },
    { "test_castlike_BFLOAT16_to_FLOAT_expanded", "data type bfloat16" },
    { "test_cast_DOUBLE_to_FLOAT", "data type float64" },
    { "test_cast_DOUBLE_to_FLOAT16", "data type float64" },
    { "test_castlike_DOUBLE_to_FLOAT16_expanded", "data type float64" },
    { "test_castlike_DOUBLE_to_FLOAT_expanded", "data type float64" },
    { "test_castlike_FLOAT_to_DOUBLE_expanded", "data type float64" },
    { "test_max_float64", "data type float64" },
    { "test_min_float64", "data type float64" },
    { "test_cast_FLOAT16_to_DOUBLE", "data type float16" },
    { "test_cast_FLOAT16_to_FLOAT", "data type float16" },
    { "test_castlike_FLOAT16_to_DOUBLE_expanded", "data type float16" },
    { "test_castlike_FLOAT16_to_FLOAT_expanded", "data type float16" },
    { "test_castlike_FLOAT_to_FLOAT16_expanded", "data type float16" },
    { "test_max_float16", "data type float16" },
    { "test_min_float16", "data type float16" },
    { "test_cast_FLOAT_to_BFLOAT16", "bfloat16 is not supported" },
    { "test_castlike_FLOAT_to_BFLOAT16_expanded", "bfloat16 is not supported" },
    { "test_cast_FLOAT_to_FLOAT16", "float16 is not supported" },
    { "test_cast_FLOAT_to_STRING", "string" },
    { "test_castlike_FLOAT_to_STRING_expanded", "string" },
    { "test_cast_STRING_to_FLOAT", "string" },
    { "test_castlike_STRING_to_FLOAT_expanded", "string" },
    { "test_max_int16", "data type int16" },
    { "test_min_int16", "data type int16" },
    { "test_max_int8", "data type int8" },
    { "test_min_int8", "data type int8" },
    { "test_max_uint16", "data type uint16" },
    { "test_min_uint16", "data type uint16" },
    { "test_max_uint32", "data type uint32" },
    { "test_min_uint32", "data type uint32" },
    { "test_max_uint64", "data type uint64" },
    { "test_min_uint64", "data type uint64" },
    { "test_max_uint8", "data type uint8" },
    { "test_min_uint8", "data type uint8" },
    { "test_pow_types_float32_uint32", "data type uint32" },
    { "test_pow_types_float32_uint64", "data type uint64" },
    { "test_layer_normalization_2d_axis0", "Mean and InvStdDev outputs" },
    { "test_layer_normalization_2d_axis1", "Mean and InvStdDev outputs" },
    { "test_layer_normalization_2d_axis_negative_1", "Mean and InvStdDev outputs" },
    { "test_layer_normalization_2d_axis_negative_2", "Mean and InvStdDev outputs" },
    { "test_layer_normalization_3d_axis0_epsilon", "Mean and InvStdDev outputs" },
    { "test_layer_normalization_3d_axis1_epsilon", "Mean and InvStdDev outputs" },
    { "test_layer_normalization_3d_axis2_epsilon", "Mean and InvStdDev outputs" },
    { "test_layer_normalization_3d_axis_negative_1_epsilon", "Mean and InvStdDev outputs" },
    { "test_layer_normalization_3d_axis_negative_2_epsilon", "Mean and InvStdDev outputs" },
    { "test_layer_normalization_3d_axis_negative_3_epsilon", "Mean and InvStdDev outputs" },
    { "test_layer_normalization_4d_axis0", "Mean and InvStdDev outputs" },
    { "test_layer_normalization_4d_axis1", "Mean and InvStdDev outputs" },
    { "test_layer_normalization_4d_axis2", "Mean and InvStdDev outputs" },
    { "test_layer_normalization_4d_axis3", "Mean and InvStdDev outputs" },
    { "test_layer_normalization_4d_axis_negative_1", "Mean and InvStdDev outputs" },
    { "test_layer_normalization_4d_axis_negative_2", "Mean and InvStdDev outputs" },
    { "test_layer_normalization_4d_axis_negative_3", "Mean and InvStdDev outputs" },
    { "test_layer_normalization_4d_axis_negative_4", "Mean and InvStdDev outputs" },
    { "test_layer_normalization_default_axis", "Mean and InvStdDev outputs" },
};

// node/ cases whose expected output follows ONNX 1.12's Python reference where it departs from
// the specification text that opsched (and ONNX Runtime) follow: downsampling by scales with
// align_corners, where the reference divides by the unrounded output size (scale x input, 2.4)
// instead of the output's length (2). They must keep failing the value check; a pass means the
// semantics changed.
inline const std::map<std::string, std::string> kNodeReferenceDifferences {
    { "test_resize_downsample_scales_cubic_align_corners", "align_corners divides by the output's length" },
    { "test_resize_downsample_scales_linear_align_corners", "align_corners divides by the output's length" },
};

// Case folders (those holding a model.onnx) under `root`, sorted by name.
inline std::vector<fs::path> onnxTestCases(const fs::path& root)
{
    std::vector<fs::path> cases;
    if (fs::is_directory(root))
        for (const auto& entry : fs::directory_iterator(root))
            if (fs::exists(entry.path() / "model.onnx"))
                cases.push_back(entry.path());
    std::sort(cases.begin(), cases.end());
    return cases;
}

inline bool readModelProto(const fs::path& file, onnx::ModelProto& model)
{
    std::ifstream in(file, std::ios::binary);
    return model.ParseFromIstream(&in);
}

inline onnx::TensorProto readTensorProtoFile(const fs::path& file)
{
    std::ifstream in(file, std::ios::binary);
    onnx::TensorProto t;
    t.ParseFromIstream(&in);
    return t;
}

// The op types of the graph outside kSupportedOnnxOps (empty: every op is supported; a graph
// without nodes reports "(no nodes)").
inline std::set<std::string> unsupportedOnnxOps(const onnx::ModelProto& model)
{
    std::set<std::string> out;
    if (model.graph().node_size() == 0)
        out.insert("(no nodes)");
    for (const auto& node : model.graph().node())
        if (!kSupportedOnnxOps.count(node.op_type()))
            out.insert(node.op_type());
    return out;
}

struct PreparedCase {
    std::string modelPath;
    // Graph inputs left to feed, with the test-data file (input_N.pb) each one takes.
    std::vector<std::pair<std::string, fs::path>> feeds;
};

// A fresh temporary folder for one test program's prepared models.
inline fs::path preparedModelsDir(const std::string& prefix)
{
    const auto dir = fs::path(::testing::TempDir()) / (prefix + std::to_string(::getpid()));
    fs::create_directories(dir);
    return dir;
}

// The model with constant-role graph inputs turned into initializers (from the case's
// test_data_set_0), the way exporters store them, written into `outDir`. Data files pair with the
// graph inputs that are not initializers, in order (as ONNX's backend test runner feeds them).
inline PreparedCase prepareOnnxCase(const fs::path& caseDir, const onnx::ModelProto& original, const fs::path& outDir)
{
    onnx::ModelProto model = original;
    auto& graph = *model.mutable_graph();
    std::set<std::string> constant, initialized;
    for (const auto& node : graph.node()) {
        auto it = kConstantOnnxInputs.find(node.op_type());
        if (it != kConstantOnnxInputs.end())
            for (int i : it->second)
                if (i < node.input_size() && !node.input(i).empty())
                    constant.insert(node.input(i));
    }
    for (const auto& init : graph.initializer())
        initialized.insert(init.name());
    PreparedCase out;
    google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> inputs;
    int index = 0;
    for (const auto& in : graph.input()) {
        if (initialized.count(in.name())) {
            *inputs.Add() = in;
            continue;
        }
        const fs::path data = caseDir / "test_data_set_0" / ("input_" + std::to_string(index++) + ".pb");
        if (constant.count(in.name()) && fs::exists(data)) {
            auto* init = graph.add_initializer();
            *init = readTensorProtoFile(data);
            init->set_name(in.name());
            if (model.ir_version() < 4) // initializers were graph inputs as well then
                *inputs.Add() = in;
        } else {
            *inputs.Add() = in;
            out.feeds.emplace_back(in.name(), data);
        }
    }
    graph.mutable_input()->Swap(&inputs);
    const auto path
        = outDir / (caseDir.parent_path().filename().string() + "_" + caseDir.filename().string() + ".onnx");
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    model.SerializeToOstream(&file);
    out.modelPath = path.string();
    return out;
}

} // namespace opsched::test
