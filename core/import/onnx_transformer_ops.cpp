// Mappings of the ops transformers bring: layer normalisation, the patterns found before import
// (onnx_transformer_patterns.h), element-wise math, comparisons and masks, Where, Expand, Gather
// on activations (embeddings), and the reductions besides ReduceMean.
#include "import/import_error.h"
#include "import/onnx_attributes.h"
#include "import/onnx_constant_folding.h"
#include "import/onnx_mapping_support.h"
#include "import/onnx_op_mapping.h"
#include "import/onnx_transformer_patterns.h"

#include <algorithm>
#include <cmath>

namespace opsched::onnx_import {
namespace {

// The normalised dimensions from the axes a pattern or node reduces: trailing ones only.
int trailingAxis(std::vector<std::int64_t> axes, int rank)
{
    if (axes.empty())
        throw NodeError("the normalisation reduces over no axes");
    for (auto& a : axes)
        a = normalizeAxis(a, rank);
    std::sort(axes.begin(), axes.end());
    for (std::size_t i = 0; i < axes.size(); ++i)
        if (axes[i] != rank - static_cast<std::int64_t>(axes.size() - i))
            throw NodeError("normalisation over axes that are not the last ones is not supported");
    return static_cast<int>(axes.front());
}

// A scale or bias constant as a weight over the normalised dimensions (leading 1s dropped), or
// a new weight of `fill` values when the pattern has none.
TensorId normWeight(ImportContext& ctx, const std::string& name, const std::string& what, const Shape& normalised,
    int rank, const std::string& opName, float fill)
{
    if (name.empty())
        return ctx.newWeight(
            opName + "." + what, normalised, std::vector<float>(static_cast<std::size_t>(normalised.elements()), fill));
    const auto dims = ctx.constantDims(name, what);
    auto stripped = [](std::vector<std::int64_t> d) {
        d.erase(d.begin(), std::find_if(d.begin(), d.end(), [](std::int64_t v) { return v != 1; }));
        return d;
    };
    std::int64_t n = 1;
    for (auto d : dims)
        n *= d;
    if (dims.size() > static_cast<std::size_t>(rank))
        throw NodeError(what + " " + dimsToString(dims) + " has more dimensions than the normalised input");
    if (n == 1) // a scalar broadcast over the normalised values
        return ctx.newWeight(opName + "." + what, normalised,
            std::vector<float>(
                static_cast<std::size_t>(normalised.elements()), static_cast<float>(ctx.constant(name, what)->at(0))));
    if (stripped(dims) != stripped(normalised.dims))
        throw NodeError(what + " has shape " + dimsToString(dims)
            + ", which does not broadcast as one value per "
              "normalised element "
            + normalised.toString());
    return ctx.weightOf(name);
}

TensorId addNorm(ImportContext& ctx, const std::string& opName, TensorId x, int axis, float epsilon, bool rms,
    const std::string& scale, const std::string& bias)
{
    const Shape in = ctx.shapeOf(x); // a copy: adding weights below may move the builder's tensors
    const Shape normalised(std::vector<std::int64_t>(in.dims.begin() + axis, in.dims.end()));
    std::vector<TensorId> weights { normWeight(ctx, scale, "scale", normalised, in.rank(), opName, 1.0F) };
    if (!bias.empty())
        weights.push_back(normWeight(ctx, bias, "bias", normalised, in.rank(), opName, 0.0F));
    LayerNorm l;
    l.axis = axis;
    l.epsilon = epsilon;
    l.bias = !bias.empty();
    l.rms = rms;
    return addSimpleOp(ctx, opName, OpKind::LayerNorm, { { x } }, makeLayer(l, weights));
}

// Where a constant operand sits among an operand layer's operands: after the activation terms.
struct Operands {
    std::vector<InputTerm> terms;
    std::vector<TensorId> weights;
    std::vector<std::int8_t> position; // per ONNX input: its index among terms-then-weights (set at the end)
    std::vector<int> kind; // per ONNX input: 0 term, 1 weight

    void add(ImportContext& ctx, const std::string& name, const std::string& role)
    {
        if (ctx.isActivation(name)) {
            terms.push_back({ ctx.activation(name, role) });
            kind.push_back(0);
            position.push_back(static_cast<std::int8_t>(terms.size() - 1));
        } else {
            weights.push_back(ctx.weightOf(name));
            kind.push_back(1);
            position.push_back(static_cast<std::int8_t>(weights.size() - 1));
        }
    }
    std::int8_t index(std::size_t i) const
    {
        return static_cast<std::int8_t>(
            kind[i] == 0 ? position[i] : static_cast<std::int8_t>(terms.size()) + position[i]);
    }
};

Activation unaryActivation(const std::string& op)
{
    if (op == "Erf")
        return { ActivationKind::Erf };
    if (op == "Sqrt")
        return { ActivationKind::Sqrt };
    if (op == "Exp")
        return { ActivationKind::Exp };
    if (op == "Log")
        return { ActivationKind::Log };
    if (op == "Abs")
        return { ActivationKind::Abs };
    if (op == "Neg")
        return { ActivationKind::Neg };
    if (op == "Reciprocal")
        return { ActivationKind::Reciprocal };
    if (op == "Not")
        return { ActivationKind::Not };
    static const std::pair<const char*, ActivationKind> kRounding[]
        = { { "Floor", ActivationKind::Floor }, { "Ceil", ActivationKind::Ceil }, { "Round", ActivationKind::Round },
              { "Sign", ActivationKind::Sign }, { "Sin", ActivationKind::Sin }, { "Cos", ActivationKind::Cos } };
    for (const auto& [name, kind] : kRounding)
        if (op == name)
            return { kind };
    throw NodeError("is not an element-wise function");
}

} // namespace

bool isTransformerOpType(const std::string& op)
{
    static const std::unordered_set<std::string> types { "LayerNormalization", "Erf", "Sqrt", "Exp", "Log", "Abs",
        "Neg", "Reciprocal", "Not", "Floor", "Ceil", "Round", "Sign", "Sin", "Cos", "Gelu", "Pow", "Cast", "Equal",
        "Less", "Greater", "Min", "Max", "Where", "Expand", "Gather", "ReduceSum", "ReduceMax" };
    return types.count(op) > 0;
}

void mapPattern(ImportContext& ctx, const PatternMatch& m, const std::vector<NodeRef>& nodes)
{
    const NodeRef& tail = nodes[m.tail()];
    const NodeRef& head = nodes[m.members.front()];
    const TensorId x = ctx.activation(m.input, "data");
    TensorId y;
    switch (m.kind) {
    case PatternKind::LayerNorm:
    case PatternKind::RmsNorm: {
        const int axis = trailingAxis(m.axes, ctx.shapeOf(x).rank());
        y = addNorm(ctx, head.name, x, axis, m.epsilon, m.kind == PatternKind::RmsNorm, m.scale, m.bias);
        break;
    }
    case PatternKind::Gelu:
        y = addSimpleOp(ctx, head.name, OpKind::Gelu, { { x } }, makeLayer(Eltwise { m.activation }));
        break;
    case PatternKind::Linear: {
        const auto w = ctx.constantDims(m.weight, "weight");
        if (w.size() != 2 || ctx.shapeOf(x).rank() < 1 || ctx.shapeOf(x).dims.back() != w[0])
            throw NodeError(
                "input " + ctx.shapeOf(x).toString() + " and weight " + dimsToString(w) + " do not multiply");
        std::vector<TensorId> weights { ctx.weightOf(m.weight) };
        if (!m.bias.empty())
            weights.push_back(ctx.weightOf(m.bias));
        Activation act = m.activation;
        if (m.activationNode)
            act = activationOf(ctx, nodes[*m.activationNode]);
        y = addSimpleOp(ctx, head.name, OpKind::MatMul, { { x } }, makeLayer(MatMul { !m.bias.empty() }, weights, act));
        break;
    }
    }
    ctx.setActivation(tail.proto->output(0), y);
}

void mapLayerNormalization(ImportContext& ctx, const NodeRef& node)
{
    const Attributes attrs(*node.proto);
    for (int i = 1; i < node.proto->output_size(); ++i)
        if (ctx.isUsed(node.proto->output(i)))
            throw NodeError("the Mean and InvStdDev outputs of LayerNormalization are not supported");
    const TensorId x = ctx.activation(inputName(node, 0), "X");
    const int rank = ctx.shapeOf(x).rank();
    const auto axis = static_cast<int>(normalizeAxis(attrs.getInt("axis", -1), rank));
    if (!ctx.isConstant(inputName(node, 1)) || (!inputName(node, 2).empty() && !ctx.isConstant(inputName(node, 2))))
        throw NodeError("Scale and B must be constants");
    ctx.setActivation(node.proto->output(0),
        addNorm(
            ctx, node.name, x, axis, attrs.getFloat("epsilon", 1e-5F), false, inputName(node, 1), inputName(node, 2)));
}

void mapUnaryMath(ImportContext& ctx, const NodeRef& node)
{
    addUnaryOp(ctx, node, OpKind::Math, makeLayer(Eltwise { unaryActivation(node.opType()) }));
    const auto& op = node.opType();
    if (op == "Not" || ((op == "Neg" || op == "Abs") && ctx.isInteger(inputName(node, 0))))
        ctx.markInteger(node.proto->output(0));
}

// Gelu (opset 20): the erf form, or with approximate="tanh" the tanh form; one Gelu op either way,
// as the decomposed patterns of older exports become.
void mapGelu(ImportContext& ctx, const NodeRef& node)
{
    const auto approximate = Attributes(*node.proto).getString("approximate", "none");
    if (approximate != "none" && approximate != "tanh")
        throw NodeError("unknown approximate '" + approximate + "'; Gelu takes 'none' or 'tanh'");
    const TensorId x = ctx.activation(inputName(node, 0), "X");
    const Activation act { approximate == "tanh" ? ActivationKind::GeluTanh : ActivationKind::Gelu };
    ctx.setActivation(
        node.proto->output(0), addSimpleOp(ctx, node.name, OpKind::Gelu, { { x } }, makeLayer(Eltwise { act })));
}

// Cast on activations: every value is a float here, so a cast is exact for integers and bools,
// truncates toward zero into an integer type and tests for nonzero into bool.
void mapCast(ImportContext& ctx, const NodeRef& node)
{
    using T = onnx::TensorProto;
    const auto to = Attributes(*node.proto).getInt("to", T::FLOAT);
    const TensorId x = ctx.activation(inputName(node, 0), "input");
    if (to == T::FLOAT16 || to == T::BFLOAT16)
        throw NodeError(std::string("casting activations to ") + dataTypeName(static_cast<int>(to))
            + " is not supported (opsched computes in float32)");
    if (to == T::FLOAT || to == T::DOUBLE) { // float values stay as they are
        if (ctx.isGraphOutput(node.proto->output(0)) && ctx.isGraphInput(x))
            addUnaryOp(ctx, node, OpKind::Identity, makeLayer(Identity {})); // an output needs an op
        else
            ctx.setActivation(node.proto->output(0), x);
        return;
    }
    if (to == T::STRING || to == T::UNDEFINED || to == T::COMPLEX64 || to == T::COMPLEX128)
        throw NodeError(std::string("casting to ") + dataTypeName(static_cast<int>(to)) + " is not supported");
    const Activation act { to == T::BOOL ? ActivationKind::NonZero : ActivationKind::Truncate };
    addUnaryOp(ctx, node, OpKind::Math, makeLayer(Eltwise { act }));
    ctx.markInteger(node.proto->output(0));
}

void mapPow(ImportContext& ctx, const NodeRef& node)
{
    const std::string& exponent = inputName(node, 1);
    if (ctx.isActivation(inputName(node, 0)) && ctx.isConstant(exponent)) {
        const auto e = ctx.constant(exponent, "exponent");
        if (e->size() == 1) { // x ^ c: one element-wise function
            addUnaryOp(
                ctx, node, OpKind::Math, makeLayer(Eltwise { { ActivationKind::Pow, static_cast<float>(e->at(0)) } }));
            return;
        }
    }
    mapBinaryKind(ctx, node, BinaryKind::Pow);
}

// Equal, Less, Greater, Min, Max (variadic Min/Max fold left to right): operand layers.
void mapBinaryKind(ImportContext& ctx, const NodeRef& node, BinaryKind kind)
{
    Operands ops;
    for (const auto& in : node.proto->input())
        if (!in.empty())
            ops.add(ctx, in, "operand");
    if (ops.terms.empty())
        throw NodeError("has no activation operand");
    if (ops.terms.size() + ops.weights.size() == 1) { // Min or Max of one input is that input
        addUnaryOp(ctx, node, OpKind::Identity, makeLayer(Identity {}));
        return;
    }
    const bool commutes
        = kind == BinaryKind::Min || kind == BinaryKind::Max || kind == BinaryKind::Equal || kind == BinaryKind::Add;
    Binary b { kind, false };
    if (node.proto->input_size() == 2 && ops.kind[0] == 1) { // constant first
        if (kind == BinaryKind::Less || kind == BinaryKind::Greater)
            b.kind = kind == BinaryKind::Less ? BinaryKind::Greater : BinaryKind::Less; // c < x is x > c
        else if (!commutes)
            b.constantFirst = true;
    } else {
        for (std::size_t i = 1; i < ops.kind.size(); ++i)
            if (ops.kind[i] == 0 && ops.kind[i - 1] == 1 && !commutes)
                throw NodeError("a constant before an activation operand is not supported here");
    }
    const OpKind opKind = kind == BinaryKind::Equal || kind == BinaryKind::Less || kind == BinaryKind::Greater
        ? OpKind::Compare
        : OpKind::Math;
    bool integer = opKind == OpKind::Compare || kind == BinaryKind::Min || kind == BinaryKind::Max;
    if (kind == BinaryKind::Min || kind == BinaryKind::Max)
        for (const auto& in : node.proto->input())
            integer = integer && !in.empty() && ctx.isInteger(in);
    if (integer)
        ctx.markInteger(node.proto->output(0));
    ctx.setActivation(node.proto->output(0), addSimpleOp(ctx, node.name, opKind, ops.terms, makeLayer(b, ops.weights)));
}

void mapWhere(ImportContext& ctx, const NodeRef& node)
{
    Operands ops;
    const char* roles[] = { "condition", "X", "Y" };
    for (int i = 0; i < 3; ++i)
        ops.add(ctx, inputName(node, i), roles[i]);
    if (ops.terms.empty())
        throw NodeError("has no activation operand");
    Where w;
    for (std::size_t i = 0; i < 3; ++i)
        w.operand[i] = ops.index(i);
    ctx.setActivation(
        node.proto->output(0), addSimpleOp(ctx, node.name, OpKind::Where, ops.terms, makeLayer(w, ops.weights)));
}

void mapExpand(ImportContext& ctx, const NodeRef& node)
{
    const TensorId x = ctx.activation(inputName(node, 0), "input");
    auto shape = ctx.constant(inputName(node, 1), "shape")->toInts();
    // A target dimension 0 that equals the batch stays 1 (broadcast), so the graph can be rebatched.
    const Shape& in = ctx.shapeOf(x);
    if (!shape.empty() && shape.size() >= static_cast<std::size_t>(in.rank()) && in.rank() > 0) {
        const std::size_t lead = shape.size() - static_cast<std::size_t>(in.rank());
        if (lead == 0 && (shape[0] == in[0] || (shape[0] == ctx.modelBatch && in[0] == ctx.batch)))
            shape[0] = 1;
    }
    addUnaryOp(ctx, node, OpKind::Expand, makeLayer(Expand { shape }));
}

// Tile on activations: each repeated axis d of size n becomes [r, n] by a broadcast copy, then
// r * n; one op of a view, an Expand and a view (the whole tile in one copy).
void mapTile(ImportContext& ctx, const NodeRef& node)
{
    const TensorId x = ctx.activation(inputName(node, 0), "input");
    const Shape in = ctx.shapeOf(x);
    const auto repeats = ctx.constant(inputName(node, 1), "repeats")->toInts();
    if (repeats.size() != static_cast<std::size_t>(in.rank()))
        throw NodeError("has " + std::to_string(repeats.size()) + " repeats for input " + in.toString());
    std::vector<std::int64_t> split, expand, merged;
    for (std::size_t d = 0; d < repeats.size(); ++d) {
        if (repeats[d] < 1 || repeats[d] > (std::int64_t { 1 } << 20))
            throw NodeError(
                "repeat " + std::to_string(repeats[d]) + " on axis " + std::to_string(d) + " is out of range");
        if (repeats[d] > 1) {
            split.push_back(1);
            expand.push_back(repeats[d]);
        }
        split.push_back(in.dims[d]);
        expand.push_back(1);
        merged.push_back(repeats[d] * in.dims[d]);
    }
    OpSpec spec;
    spec.name = node.name;
    spec.kind = OpKind::Expand;
    spec.inputs = { { x } };
    spec.layers.push_back(makeLayer(Reshape { ctx.batchAwareTarget(split, in) }));
    spec.layers.push_back(makeLayer(Expand { expand }));
    spec.layers.push_back(makeLayer(Reshape { ctx.batchAwareTarget(merged, in) }));
    ctx.setActivation(node.proto->output(0), ctx.addOp(std::move(spec)));
    if (ctx.isInteger(inputName(node, 0)))
        ctx.markInteger(node.proto->output(0));
}

void mapGather(ImportContext& ctx, const NodeRef& node)
{
    const std::string& data = inputName(node, 0);
    const std::string& indices = inputName(node, 1);
    const auto axis = Attributes(*node.proto).getInt("axis", 0);
    Gather g;
    g.axis = static_cast<int>(axis);
    if (ctx.isConstant(data) && ctx.isActivation(indices)) { // an embedding lookup
        g.dataIsWeight = true;
        const auto dims = ctx.constantDims(data, "data");
        normalizeAxis(axis, static_cast<std::int64_t>(dims.size()));
        const TensorId ids = ctx.activation(indices, "indices");
        ctx.setActivation(node.proto->output(0),
            addSimpleOp(ctx, node.name, OpKind::Gather, { { ids } }, makeLayer(g, { ctx.weightOf(data) })));
        return;
    }
    mapGatherFromActivation(ctx, node, g);
}

void mapGatherElements(ImportContext& ctx, const NodeRef& node)
{
    Gather g;
    g.axis = static_cast<int>(Attributes(*node.proto).getInt("axis", 0));
    g.elements = true;
    if (!ctx.isActivation(inputName(node, 0)))
        throw NodeError("gathering elements of a constant by computed indices is not supported (the data must "
                        "come from the graph's inputs)");
    mapGatherFromActivation(ctx, node, g);
}

// Gather or GatherElements on an activation: constant indices checked and held by the layer,
// computed ones as the op's second term.
void mapGatherFromActivation(ImportContext& ctx, const NodeRef& node, Gather g)
{
    const std::string& indices = inputName(node, 1);
    const TensorId x = ctx.activation(inputName(node, 0), "data");
    const auto rank = static_cast<std::int64_t>(ctx.shapeOf(x).rank());
    g.axis = static_cast<int>(normalizeAxis(g.axis, rank));
    if (ctx.isConstant(indices)) {
        const auto idx = ctx.constant(indices, "indices");
        g.indices = idx->toInts();
        g.indicesDims = idx->dims;
        addUnaryOp(ctx, node, OpKind::Gather, makeLayer(g));
        if (ctx.isInteger(inputName(node, 0)))
            ctx.markInteger(node.proto->output(0));
        return;
    }
    const TensorId ids = ctx.activation(indices, "indices");
    ctx.setActivation(
        node.proto->output(0), addSimpleOp(ctx, node.name, OpKind::Gather, { { x }, { ids } }, makeLayer(g)));
    if (ctx.isInteger(inputName(node, 0)))
        ctx.markInteger(node.proto->output(0));
}

namespace {

// ReduceLogSumExp as log(sum(exp(x - max))) + max over the same axes, from ops every executor has:
// the exponent is at most 0, so it neither overflows for large x nor loses small terms.
void mapReduceLogSumExp(ImportContext& ctx, const NodeRef& node, const Reduce& r)
{
    const TensorId x = ctx.activation(inputName(node, 0), "data");
    Reduce max = r;
    max.kind = ReduceKind::Max;
    max.keepDims = true;
    const TensorId maxKept = addSimpleOp(ctx, node.name + "/max", OpKind::Reduce, { { x } }, makeLayer(max));
    const TensorId exps = addSimpleOp(ctx, node.name + "/exp", OpKind::Subtract, { { x }, { maxKept } },
        makeLayer(Binary { BinaryKind::Sub }, {}, Activation { ActivationKind::Exp }));
    Reduce sum = r;
    sum.kind = ReduceKind::Sum;
    const TensorId logSum = addSimpleOp(ctx, node.name + "/log_sum", OpKind::Reduce, { { exps } },
        makeLayer(sum, {}, Activation { ActivationKind::Log }));
    TensorId maxOut = maxKept;
    if (!r.keepDims) {
        max.keepDims = false;
        maxOut = addSimpleOp(ctx, node.name + "/max_out", OpKind::Reduce, { { x } }, makeLayer(max));
    }
    ctx.setActivation(node.proto->output(0),
        addSimpleOp(ctx, node.name, OpKind::Add, { { logSum }, { maxOut } }, makeLayer(Binary { BinaryKind::Add })));
}

} // namespace

void mapReduce(ImportContext& ctx, const NodeRef& node)
{
    static const std::pair<const char*, ReduceKind> kKinds[]
        = { { "ReduceMean", ReduceKind::Mean }, { "ReduceSum", ReduceKind::Sum }, { "ReduceMax", ReduceKind::Max },
              { "ReduceMin", ReduceKind::Min }, { "ReduceProd", ReduceKind::Prod }, { "ReduceL1", ReduceKind::L1 },
              { "ReduceL2", ReduceKind::L2 }, { "ReduceSumSquare", ReduceKind::SumSquare },
              { "ReduceLogSum", ReduceKind::Sum }, { "ReduceLogSumExp", ReduceKind::Sum } };
    const Attributes attrs(*node.proto);
    const auto& op = node.opType();
    Reduce r;
    const auto* kind = std::find_if(std::begin(kKinds), std::end(kKinds), [&](const auto& k) { return op == k.first; });
    if (kind == std::end(kKinds))
        throw NodeError("is not a reduction opsched computes on activations");
    r.kind = kind->second;
    // Axes became an input in opset 13 for ReduceSum, 18 for the others.
    r.axes = axesInput(ctx, node, 1, op == "ReduceSum" ? 13 : 18);
    if (r.axes.empty() && attrs.getInt("noop_with_empty_axes", 0) != 0) {
        mapPassThrough(ctx, node);
        return;
    }
    r.keepDims = attrs.getInt("keepdims", 1) != 0;
    if (op == "ReduceLogSumExp") {
        mapReduceLogSumExp(ctx, node, r);
        return;
    }
    // ReduceLogSum: the sum, then its log as the layer's activation.
    addUnaryOp(ctx, node, OpKind::Reduce,
        makeLayer(r, {}, op == "ReduceLogSum" ? Activation { ActivationKind::Log } : Activation {}));
}

// Sum and Mean of any number of inputs (NumPy broadcasting): of equal-shaped activations, the op's
// input combination as for Add; else an element-wise Add over the operands. Mean then scales the
// sum by 1/n in an op of its own.
void mapSumOrMean(ImportContext& ctx, const NodeRef& node)
{
    std::vector<TensorId> terms;
    bool sameShapes = true;
    for (const auto& in : node.proto->input()) {
        if (in.empty())
            continue;
        if (!ctx.isActivation(in)) {
            sameShapes = false;
            break;
        }
        terms.push_back(ctx.activation(in, "input"));
        sameShapes = sameShapes && ctx.shapeOf(terms.front()) == ctx.shapeOf(terms.back());
    }
    const std::string& out = node.proto->output(0);
    if (sameShapes && terms.size() >= 2)
        ctx.setActivation(out, addSimpleOp(ctx, node.name, OpKind::Add, { terms }, makeLayer(Identity {})));
    else
        mapBinaryKind(ctx, node, BinaryKind::Add);
    const auto n = static_cast<float>(node.proto->input_size());
    if (node.opType() != "Mean" || n <= 1)
        return;
    const TensorId sum = ctx.activation(out, "sum");
    const auto scale = ctx.newWeight(node.name + ".one_over_n", Shape { 1 }, { 1.0F / n });
    ctx.setActivation(out,
        addSimpleOp(ctx, ctx.derivedOpName(node.name + ":mean"), OpKind::Math, { { sum } },
            makeLayer(Binary { BinaryKind::Mul }, { scale })));
}

// ArgMax / ArgMin along one axis: integer indices, carried as exact floats like other integers.
void mapArgExtreme(ImportContext& ctx, const NodeRef& node)
{
    const Attributes attrs(*node.proto);
    Reduce r;
    r.kind = node.opType() == "ArgMax" ? ReduceKind::ArgMax : ReduceKind::ArgMin;
    r.axes = { attrs.getInt("axis", 0) };
    r.keepDims = attrs.getInt("keepdims", 1) != 0;
    r.selectLast = attrs.getInt("select_last_index", 0) != 0;
    const TensorId x = ctx.activation(inputName(node, 0), "data");
    const auto rank = ctx.shapeOf(x).rank();
    if (r.axes[0] < -rank || r.axes[0] >= rank)
        throw NodeError("axis " + std::to_string(r.axes[0]) + " is out of range for " + ctx.shapeOf(x).toString());
    addUnaryOp(ctx, node, OpKind::Reduce, makeLayer(r));
    ctx.markInteger(node.proto->output(0));
}

} // namespace opsched::onnx_import
