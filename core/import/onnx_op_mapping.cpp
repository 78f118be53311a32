#include "import/onnx_op_mapping.h"

#include "import/import_error.h"
#include "import/onnx_attributes.h"
#include "import/onnx_constant_folding.h"
#include "import/onnx_graph_rewriter.h"
#include "import/onnx_mapping_support.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <unordered_map>
#include <unordered_set>

namespace opsched::onnx_import {
namespace {

float scalarInput(ImportContext& ctx, const std::string& name, const char* role, float fallback)
{
    if (name.empty())
        return fallback;
    const auto v = ctx.constant(name, role);
    if (v->size() != 1)
        throw NodeError(std::string(role) + " must be a scalar, not " + dimsToString(v->dims));
    return static_cast<float>(v->at(0));
}

void mapBinaryOf(ImportContext& ctx, const NodeRef& node)
{
    const auto& op = node.opType();
    const BinaryKind kind = op == "Add" ? BinaryKind::Add
        : op == "Sub"                   ? BinaryKind::Sub
        : op == "Mul"                   ? BinaryKind::Mul
                                        : BinaryKind::Div;
    const std::string& a = inputName(node, 0);
    const std::string& b = inputName(node, 1);
    const std::string& out = node.proto->output(0);
    if (ctx.isActivation(a) && ctx.isActivation(b)) {
        const TensorId ta = ctx.activation(a, "first"), tb = ctx.activation(b, "second");
        // Same shapes: a plain sum is the op's input combination, as in the zoo networks.
        if (kind == BinaryKind::Add && ctx.shapeOf(ta) == ctx.shapeOf(tb)) {
            ctx.setActivation(out, addSimpleOp(ctx, node.name, OpKind::Add, { { ta, tb } }, makeLayer(Identity {})));
            return;
        }
        ctx.setActivation(
            out, addSimpleOp(ctx, node.name, binaryOpKind(kind), { { ta }, { tb } }, makeLayer(Binary { kind })));
        return;
    }
    if (ctx.isActivation(a)) { // activation (op) constant: the constant is the layer's weight
        const TensorId ta = ctx.activation(a, "first");
        ctx.setActivation(out,
            addSimpleOp(
                ctx, node.name, binaryOpKind(kind), { { ta } }, makeLayer(Binary { kind }, { ctx.weightOf(b) })));
        return;
    }
    const TensorId tb = ctx.activation(b, "second");
    if (kind == BinaryKind::Add || kind == BinaryKind::Mul) { // commutative: swap the operands
        ctx.setActivation(out,
            addSimpleOp(
                ctx, node.name, binaryOpKind(kind), { { tb } }, makeLayer(Binary { kind }, { ctx.weightOf(a) })));
        return;
    }
    if (kind == BinaryKind::Div) { // c / x: a reciprocal when c is 1
        const auto c = ctx.constant(a, "first");
        if (c->size() == 1 && c->at(0) == 1.0) {
            ctx.setActivation(out,
                addSimpleOp(
                    ctx, node.name, OpKind::Math, { { tb } }, makeLayer(Eltwise { { ActivationKind::Reciprocal } })));
            return;
        }
    }
    // c - x, c / x: the constant is the left operand.
    ctx.setActivation(out,
        addSimpleOp(
            ctx, node.name, binaryOpKind(kind), { { tb } }, makeLayer(Binary { kind, true }, { ctx.weightOf(a) })));
}

// ONNX's integer Div truncates: on two integer operands the division gets a fused Truncate, and
// sums, differences and products of integers stay integers.
void mapBinary(ImportContext& ctx, const NodeRef& node)
{
    const bool integer = ctx.isInteger(inputName(node, 0)) && ctx.isInteger(inputName(node, 1));
    mapBinaryOf(ctx, node);
    if (!integer)
        return;
    const std::string& out = node.proto->output(0);
    ctx.markInteger(out);
    if (node.opType() == "Div")
        ctx.setActivation(out,
            addSimpleOp(ctx, ctx.derivedOpName(node.name + ":truncate"), OpKind::Math,
                { { ctx.activation(out, "quotient") } }, makeLayer(Eltwise { { ActivationKind::Truncate } })));
}

// The slope is a weight broadcast to x (unidirectionally, ONNX's rule): per channel as PyTorch
// exports it ([C, 1, 1]), or one value.
void mapPRelu(ImportContext& ctx, const NodeRef& node)
{
    const TensorId x = ctx.activation(inputName(node, 0), "data");
    const std::string& slopeName = inputName(node, 1);
    if (ctx.isActivation(slopeName))
        throw NodeError("a slope computed at run time is not supported; it must be a constant");
    const auto slope = ctx.constant(slopeName, "slope");
    const Shape& in = ctx.shapeOf(x);
    if (slope->dims.size() > static_cast<std::size_t>(in.rank()))
        throw NodeError("slope " + dimsToString(slope->dims) + " has a higher rank than the input " + in.toString());
    for (std::size_t k = 0; k < slope->dims.size(); ++k) {
        const auto d = slope->dims[slope->dims.size() - 1 - k];
        const auto xd = in.dims[in.dims.size() - 1 - k];
        if (d != 1 && d != xd)
            throw NodeError("slope " + dimsToString(slope->dims) + " does not broadcast to the input " + in.toString());
    }
    ctx.setActivation(node.proto->output(0),
        addSimpleOp(ctx, node.name, OpKind::Activation, { { x } },
            makeLayer(Binary { BinaryKind::PRelu }, { ctx.weightOf(slopeName) })));
}

void mapConcat(ImportContext& ctx, const NodeRef& node)
{
    const Attributes attrs(*node.proto);
    std::vector<InputTerm> terms;
    std::vector<TensorId> weights;
    std::vector<bool> isTerm;
    int rank = -1;
    for (const auto& in : node.proto->input()) {
        if (ctx.isActivation(in)) {
            const TensorId t = ctx.activation(in, "data");
            terms.push_back({ t });
            rank = ctx.shapeOf(t).rank();
            isTerm.push_back(true);
        } else {
            weights.push_back(ctx.weightOf(in));
            isTerm.push_back(false);
        }
    }
    const auto axis = normalizeAxis(attrs.getInt("axis", 1), rank);
    // A channel concat of activations is the op's input combination.
    if (axis == 1 && weights.empty()) {
        ctx.setActivation(
            node.proto->output(0), addSimpleOp(ctx, node.name, OpKind::Concat, terms, makeLayer(Identity {})));
        return;
    }
    Concat c { static_cast<int>(axis), {} };
    // Operands come as terms, then weights; the ONNX order may interleave them.
    if (std::is_sorted(isTerm.begin(), isTerm.end(), std::greater<>())) {
        ctx.setActivation(
            node.proto->output(0), addSimpleOp(ctx, node.name, OpKind::Concat, terms, makeLayer(c, weights)));
        return;
    }
    std::int8_t nextTerm = 0, nextWeight = static_cast<std::int8_t>(terms.size());
    for (bool t : isTerm)
        c.order.push_back(t ? nextTerm++ : nextWeight++);
    ctx.setActivation(node.proto->output(0), addSimpleOp(ctx, node.name, OpKind::Concat, terms, makeLayer(c, weights)));
}

void mapBatchNorm(ImportContext& ctx, const NodeRef& node)
{
    checkBatchNormMode(ctx, node);
    const Attributes attrs(*node.proto);
    const TensorId x = ctx.activation(inputName(node, 0), "data");
    const auto channels = ctx.shapeOf(x).channels();
    std::vector<TensorId> weights;
    const char* roles[] = { "scale", "bias", "mean", "variance" };
    for (int i = 1; i <= 4; ++i) {
        const auto value = ctx.constant(inputName(node, i), roles[i - 1]);
        if (value->size() != static_cast<std::size_t>(channels))
            throw NodeError(std::string(roles[i - 1]) + " has shape " + dimsToString(value->dims) + ", expected "
                + std::to_string(channels));
        weights.push_back(ctx.weightOf(inputName(node, i)));
    }
    addUnaryOp(ctx, node, OpKind::BatchNorm, makeLayer(BatchNorm { attrs.getFloat("epsilon", 1e-5F) }, weights));
}

} // namespace

OpKind binaryOpKind(BinaryKind k)
{
    switch (k) {
    case BinaryKind::Add:
        return OpKind::Add;
    case BinaryKind::Sub:
        return OpKind::Subtract;
    case BinaryKind::Mul:
        return OpKind::Multiply;
    case BinaryKind::Div:
        return OpKind::Divide;
    case BinaryKind::Equal:
    case BinaryKind::Less:
    case BinaryKind::Greater:
        return OpKind::Compare;
    case BinaryKind::Pow:
    case BinaryKind::Min:
    case BinaryKind::Max:
        return OpKind::Math;
    case BinaryKind::PRelu:
        return OpKind::Activation;
    }
    return OpKind::Add;
}

void checkBatchNormMode(ImportContext& ctx, const NodeRef& node)
{
    const Attributes attrs(*node.proto);
    if (attrs.getInt("training_mode", 0) != 0)
        throw NodeError("training-mode batch normalisation is not supported");
    if (ctx.opset < 9 && attrs.getInt("spatial", 1) != 1)
        throw NodeError("non-spatial batch normalisation is not supported");
    for (int i = 1; i < node.proto->output_size(); ++i)
        if (ctx.isUsed(node.proto->output(i)))
            throw NodeError("batch normalisation's running statistics outputs are not supported");
}
Activation activationOf(ImportContext& ctx, const NodeRef& node)
{
    const auto& op = node.opType();
    const Attributes attrs(*node.proto);
    if (op == "Relu")
        return Activation::relu();
    if (op == "Sigmoid")
        return { ActivationKind::Sigmoid };
    if (op == "Tanh")
        return { ActivationKind::Tanh };
    if (op == "HardSwish")
        return { ActivationKind::HardSwish };
    if (op == "HardSigmoid")
        return { ActivationKind::HardSigmoid, attrs.getFloat("alpha", 0.2F), attrs.getFloat("beta", 0.5F) };
    if (op == "LeakyRelu")
        return { ActivationKind::LeakyRelu, attrs.getFloat("alpha", 0.01F) };
    if (op == "Elu")
        return { ActivationKind::Elu, attrs.getFloat("alpha", 1.0F) };
    if (op == "Selu") // ONNX's defaults, as float32
        return { ActivationKind::Selu, attrs.getFloat("alpha", 1.67326319217681884765625F),
            attrs.getFloat("gamma", 1.05070102214813232421875F) };
    if (op == "Celu") {
        const float alpha = attrs.getFloat("alpha", 1.0F);
        if (alpha == 0.0F)
            throw NodeError("Celu with alpha 0 divides by zero");
        return { ActivationKind::Celu, alpha };
    }
    if (op == "Softplus")
        return { ActivationKind::Softplus };
    if (op == "Softsign")
        return { ActivationKind::Softsign };
    if (op == "Mish")
        return { ActivationKind::Mish };
    if (op == "ThresholdedRelu")
        return { ActivationKind::ThresholdedRelu, attrs.getFloat("alpha", 1.0F) };
    if (op == "Clip") {
        constexpr float lowest = std::numeric_limits<float>::lowest(), highest = std::numeric_limits<float>::max();
        if (ctx.opset < 11) // bounds became inputs in opset 11
            return { ActivationKind::Clip, attrs.getFloat("min", lowest), attrs.getFloat("max", highest) };
        return { ActivationKind::Clip, scalarInput(ctx, inputName(node, 1), "min", lowest),
            scalarInput(ctx, inputName(node, 2), "max", highest) };
    }
    throw NodeError("is not an activation");
}

void addUnaryOp(ImportContext& ctx, const NodeRef& node, OpKind kind, Layer layer)
{
    const TensorId x = ctx.activation(inputName(node, 0), "data");
    ctx.setActivation(node.proto->output(0), addSimpleOp(ctx, node.name, kind, { { x } }, std::move(layer)));
}

std::vector<std::int64_t> axesInput(ImportContext& ctx, const NodeRef& node, int index, int inputOpset)
{
    if (ctx.opset < inputOpset)
        return Attributes(*node.proto).getInts("axes");
    const auto& name = inputName(node, index);
    return name.empty() ? std::vector<std::int64_t> {} : ctx.constant(name, "axes")->toInts();
}

bool isMappedOpType(const std::string& opType)
{
    static const std::unordered_set<std::string> types { "Conv", "Relu", "Clip", "Sigmoid", "HardSigmoid", "HardSwish",
        "Tanh", "Mul", "Add", "Sub", "Div", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool", "Concat",
        "Split", "Slice", "Flatten", "Reshape", "Transpose", "Squeeze", "Unsqueeze", "Gemm", "MatMul", "Softmax",
        "ReduceMean", "Pad", "BatchNormalization", "Identity", "Dropout", "LeakyRelu", "Elu", "Selu", "Celu",
        "Softplus", "Softsign", "Mish", "ThresholdedRelu", "PRelu", "ConvTranspose", "Resize", "Upsample",
        "DepthToSpace", "SpaceToDepth", "InstanceNormalization", "GroupNormalization", "ArgMax", "ArgMin", "Einsum",
        "If", "LRN", "Tile", "LogSoftmax", "Sum", "Mean", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
        "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp", "GreaterOrEqual", "LessOrEqual", "And", "Or", "Xor",
        "Hardmax", "MeanVarianceNormalization", "LpNormalization", "Trilu", "Mod", "CumSum", "LSTM", "GRU", "RNN",
        "QuantizeLinear", "DequantizeLinear", "TopK", "GatherElements", "GatherND", "ScatterND", "ScatterElements",
        "Scatter", "GridSample", "OneHot" };
    return types.count(opType) > 0 || isTransformerOpType(opType) || isComposedMathOpType(opType);
}

namespace {

using NodeMapper = void (*)(ImportContext&, const NodeRef&);

// The op types with a mapping of their own, by name (the ones sharing a family are mapNode's).
const std::unordered_map<std::string, NodeMapper>& nodeMappers()
{
    static const std::unordered_map<std::string, NodeMapper> mappers {
        { "MaxPool", mapPool },
        { "AveragePool", mapPool },
        { "GlobalAveragePool", mapPool },
        { "GlobalMaxPool", mapPool },
        { "Add", mapBinary },
        { "Sub", mapBinary },
        { "Mul", mapBinary },
        { "Div", mapBinary },
        { "Concat", mapConcat },
        { "BatchNormalization", mapBatchNorm },
        { "Gemm", mapGemm },
        { "MatMul", mapMatMul },
        { "Reshape", mapReshape },
        { "Flatten", mapFlatten },
        { "Squeeze", mapSqueeze },
        { "Unsqueeze", mapSqueeze },
        { "Transpose", mapTranspose },
        { "Slice", mapSlice },
        { "Split", mapSplit },
        { "Pad", mapPad },
        { "Sum", mapSumOrMean },
        { "Mean", mapSumOrMean },
        { "ArgMax", mapArgExtreme },
        { "ArgMin", mapArgExtreme },
        { "Einsum", mapEinsum },
        { "LayerNormalization", mapLayerNormalization },
        { "Gelu", mapGelu },
        { "Cast", mapCast },
        { "Pow", mapPow },
        { "GreaterOrEqual", mapComparisonOrEqual },
        { "LessOrEqual", mapComparisonOrEqual },
        { "And", mapLogical },
        { "Or", mapLogical },
        { "Xor", mapLogical },
        { "Hardmax", mapHardmax },
        { "MeanVarianceNormalization", mapMeanVarianceNormalization },
        { "LpNormalization", mapLpNormalization },
        { "Trilu", mapTrilu },
        { "Mod", mapMod },
        { "CumSum", mapCumSum },
        { "LSTM", mapRecurrent },
        { "GRU", mapRecurrent },
        { "RNN", mapRecurrent },
        { "TopK", mapTopK },
        { "QuantizeLinear", mapQuantizeLinear },
        { "DequantizeLinear", mapDequantizeLinear },
        { "Where", mapWhere },
        { "PRelu", mapPRelu },
        { "ConvTranspose", mapConvTranspose },
        { "Resize", mapResize },
        { "Upsample", mapResize },
        { "DepthToSpace", mapDepthToSpace },
        { "SpaceToDepth", mapDepthToSpace },
        { "InstanceNormalization", mapInstanceNormalization },
        { "GroupNormalization", mapGroupNormalization },
        { "If", mapIf },
        { "LRN", mapLrn },
        { "Tile", mapTile },
        { "Expand", mapExpand },
        { "Gather", mapGather },
        { "GatherElements", mapGatherElements },
        { "GatherND", mapGatherNd },
        { "GridSample", mapGridSample },
        { "ScatterND", mapScatterNd },
        { "ScatterElements", mapScatterElements },
        { "Scatter", mapScatterElements },
        { "Softmax", mapSoftmax },
        { "LogSoftmax", mapSoftmax },
        { "Identity", mapPassThrough },
        { "Dropout", mapPassThrough },
        { "OneHot", mapOneHot },
    };
    return mappers;
}

} // namespace

void mapNode(ImportContext& ctx, const NodeRef& node)
{
    const auto& op = node.opType();
    static const std::unordered_set<std::string> unaryMath { "Erf", "Sqrt", "Exp", "Log", "Abs", "Neg", "Reciprocal",
        "Not", "Floor", "Ceil", "Round", "Sign", "Sin", "Cos" };
    static const std::unordered_map<std::string, BinaryKind> binaryKinds { { "Equal", BinaryKind::Equal },
        { "Less", BinaryKind::Less }, { "Greater", BinaryKind::Greater }, { "Min", BinaryKind::Min },
        { "Max", BinaryKind::Max } };
    if (op == "Conv")
        mapConvChain(ctx, node, nullptr, nullptr);
    else if (isActivationOpType(op))
        addUnaryOp(ctx, node, OpKind::Activation, makeLayer(Eltwise { activationOf(ctx, node) }));
    else if (op.starts_with("Reduce"))
        mapReduce(ctx, node);
    else if (unaryMath.count(op) > 0)
        mapUnaryMath(ctx, node);
    else if (isComposedMathOpType(op))
        mapComposedMath(ctx, node);
    else if (const auto kind = binaryKinds.find(op); kind != binaryKinds.end())
        mapBinaryKind(ctx, node, kind->second);
    else if (const auto mapper = nodeMappers().find(op); mapper != nodeMappers().end())
        mapper->second(ctx, node);
    else if (isFoldOnlyOpType(op))
        throw NodeError("is only supported on constants (shape computations), not on activations");
    else
        throw NodeError("operator not supported");
}

} // namespace opsched::onnx_import
