// Comparisons, logic, masks and norms that real exports use, written as ops every executor already
// has: bools are 0/1 values (as Equal, Less and Greater produce them), so And is a product, Or a
// maximum, Xor "not equal", GreaterOrEqual "not less"; Hardmax, MeanVarianceNormalization,
// LpNormalization, Trilu, Mod and CumSum are short decompositions. TopK is a selection of its own.
#include "import/import_error.h"
#include "import/onnx_mapping_support.h"

#include <numeric>

namespace opsched::onnx_import {
namespace {

// The node's output, produced so far by `produced`, becomes Not(produced) in an op of its own.
void negateOutput(ImportContext& ctx, const NodeRef& node)
{
    const std::string& out = node.proto->output(0);
    const TensorId produced = ctx.activation(out, "comparison");
    ctx.setActivation(out,
        addSimpleOp(ctx, ctx.derivedOpName(node.name + ":not"), OpKind::Math, { { produced } },
            makeLayer(Eltwise { { ActivationKind::Not } })));
    ctx.markInteger(out);
}

std::int64_t normalizedAxis(std::int64_t axis, std::int64_t rank, const char* what)
{
    if (axis < -rank || axis >= rank)
        throw NodeError(
            std::string(what) + " " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    return axis < 0 ? axis + rank : axis;
}

} // namespace

void mapComparisonOrEqual(ImportContext& ctx, const NodeRef& node)
{
    // a >= b is not (a < b); a <= b is not (a > b) (NaN compares false both ways, as ONNX's own
    // function bodies for these ops say).
    mapBinaryKind(ctx, node, node.opType() == "GreaterOrEqual" ? BinaryKind::Less : BinaryKind::Greater);
    negateOutput(ctx, node);
}

void mapLogical(ImportContext& ctx, const NodeRef& node)
{
    const auto& op = node.opType();
    for (int i = 0; i < 2; ++i)
        if (!ctx.isInteger(inputName(node, i)) && ctx.isActivation(inputName(node, i)))
            throw NodeError("operand " + std::to_string(i) + " is not a bool");
    if (op == "Xor") {
        mapBinaryKind(ctx, node, BinaryKind::Equal);
        negateOutput(ctx, node);
        return;
    }
    mapBinaryKind(ctx, node, op == "And" ? BinaryKind::Mul : BinaryKind::Max);
    ctx.markInteger(node.proto->output(0));
}

// Hardmax: 1 where the first maximum along the axis is, 0 elsewhere: ArgMax (the first of equal
// maxima), then its index compared with 0, 1, ... along the axis. Before opset 13 the input is
// seen as 2-D, [product of the dimensions before axis, product of the rest].
void mapHardmax(ImportContext& ctx, const NodeRef& node)
{
    const Attributes attrs(*node.proto);
    const TensorId x = ctx.activation(inputName(node, 0), "input");
    const Shape shape = ctx.shapeOf(x);
    const auto rank = static_cast<std::int64_t>(shape.rank());
    const bool flattened = ctx.opset < 13;
    std::int64_t axis = normalizedAxis(attrs.getInt("axis", flattened ? 1 : -1), rank, "axis");
    TensorId in = x;
    if (flattened) {
        std::int64_t outer = 1, inner = 1;
        for (std::int64_t d = 0; d < rank; ++d)
            (d < axis ? outer : inner) *= shape[static_cast<int>(d)];
        in = addSimpleOp(ctx, ctx.derivedOpName(node.name + ":2d"), OpKind::Reshape, { { x } },
            makeLayer(Reshape { { outer, inner } }));
        axis = 1;
    }
    const Shape inShape = ctx.shapeOf(in);
    Reduce arg;
    arg.kind = ReduceKind::ArgMax;
    arg.axes = { axis };
    arg.keepDims = true;
    const TensorId index
        = addSimpleOp(ctx, ctx.derivedOpName(node.name + ":argmax"), OpKind::Reduce, { { in } }, makeLayer(arg));
    // 0, 1, ..., n-1 along the axis, broadcast over the others.
    const std::int64_t n = inShape[static_cast<int>(axis)];
    std::vector<std::int64_t> iotaDims(static_cast<std::size_t>(inShape.rank()), 1);
    iotaDims[static_cast<std::size_t>(axis)] = n;
    std::vector<float> iota(static_cast<std::size_t>(n));
    std::iota(iota.begin(), iota.end(), 0.0F);
    const TensorId positions = ctx.newWeight(node.name + ".positions", Shape(iotaDims), std::move(iota));
    TensorId onehot = addSimpleOp(ctx, flattened ? ctx.derivedOpName(node.name + ":onehot") : node.name,
        OpKind::Compare, { { index } }, makeLayer(Binary { BinaryKind::Equal }, { positions }));
    if (flattened)
        onehot = addSimpleOp(ctx, node.name, OpKind::Reshape, { { onehot } }, makeLayer(Reshape { shape.dims }));
    ctx.setActivation(node.proto->output(0), onehot);
}

// MeanVarianceNormalization: (x - mean) / sqrt(mean((x - mean)^2)) over `axes` (default 0, 2, 3),
// as ONNX's function body computes it (its epsilon, 1e-9, added under the root).
void mapMeanVarianceNormalization(ImportContext& ctx, const NodeRef& node)
{
    const Attributes attrs(*node.proto);
    const TensorId x = ctx.activation(inputName(node, 0), "input");
    const auto rank = static_cast<std::int64_t>(ctx.shapeOf(x).rank());
    Reduce mean;
    mean.kind = ReduceKind::Mean;
    mean.keepDims = true;
    mean.axes = attrs.has("axes") ? attrs.getInts("axes") : std::vector<std::int64_t> { 0, 2, 3 };
    for (auto& a : mean.axes)
        a = normalizedAxis(a, rank, "axis");
    const TensorId mu
        = addSimpleOp(ctx, ctx.derivedOpName(node.name + ":mean"), OpKind::Reduce, { { x } }, makeLayer(mean));
    const TensorId centred = addSimpleOp(ctx, ctx.derivedOpName(node.name + ":centred"), OpKind::Subtract,
        { { x }, { mu } }, makeLayer(Binary { BinaryKind::Sub }));
    const TensorId squares = addSimpleOp(ctx, ctx.derivedOpName(node.name + ":squares"), OpKind::Math, { { centred } },
        makeLayer(Eltwise { { ActivationKind::Pow, 2.0F } }));
    const TensorId variance = addSimpleOp(
        ctx, ctx.derivedOpName(node.name + ":variance"), OpKind::Reduce, { { squares } }, makeLayer(mean));
    const auto epsilon = ctx.newWeight(node.name + ".epsilon", Shape { 1 }, { 1e-9F });
    const TensorId deviation = addSimpleOp(ctx, ctx.derivedOpName(node.name + ":deviation"), OpKind::Add,
        { { variance } }, makeLayer(Binary { BinaryKind::Add }, { epsilon }, Activation { ActivationKind::Sqrt }));
    ctx.setActivation(node.proto->output(0),
        addSimpleOp(
            ctx, node.name, OpKind::Divide, { { centred }, { deviation } }, makeLayer(Binary { BinaryKind::Div })));
}

// LpNormalization: x / ||x||_p along `axis` (default the last), p 1 or 2: the norm as a kept-dims
// reduction, then a division (no epsilon: ONNX defines none).
void mapLpNormalization(ImportContext& ctx, const NodeRef& node)
{
    const Attributes attrs(*node.proto);
    const TensorId x = ctx.activation(inputName(node, 0), "input");
    const auto rank = static_cast<std::int64_t>(ctx.shapeOf(x).rank());
    const std::int64_t p = attrs.getInt("p", 2);
    if (p != 1 && p != 2)
        throw NodeError("p = " + std::to_string(p) + " (ONNX defines 1 and 2)");
    Reduce norm;
    norm.kind = p == 2 ? ReduceKind::L2 : ReduceKind::L1;
    norm.axes = { normalizedAxis(attrs.getInt("axis", -1), rank, "axis") };
    norm.keepDims = true;
    const TensorId n
        = addSimpleOp(ctx, ctx.derivedOpName(node.name + ":norm"), OpKind::Reduce, { { x } }, makeLayer(norm));
    ctx.setActivation(node.proto->output(0),
        addSimpleOp(ctx, node.name, OpKind::Divide, { { x }, { n } }, makeLayer(Binary { BinaryKind::Div })));
}

// Trilu: the lower (upper = 0) or upper triangle of the last two dimensions from diagonal k, the
// rest 0: a product with a constant 0/1 mask broadcast over the leading dimensions.
void mapTrilu(ImportContext& ctx, const NodeRef& node)
{
    const TensorId x = ctx.activation(inputName(node, 0), "input");
    const Shape shape = ctx.shapeOf(x);
    if (shape.rank() < 2)
        throw NodeError("input of rank " + std::to_string(shape.rank()) + " has no matrix to take a triangle of");
    std::int64_t k = 0;
    if (!inputName(node, 1).empty()) {
        if (!ctx.isConstant(inputName(node, 1)))
            throw NodeError("a diagonal offset k computed at run time is not supported");
        const auto values = ctx.constant(inputName(node, 1), "k")->toInts();
        if (values.size() != 1)
            throw NodeError("k must be a scalar");
        k = values.front();
    }
    const bool upper = Attributes(*node.proto).getInt("upper", 1) != 0;
    const std::int64_t rows = shape[shape.rank() - 2], cols = shape[shape.rank() - 1];
    std::vector<float> mask(static_cast<std::size_t>(rows * cols));
    for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t j = 0; j < cols; ++j)
            mask[static_cast<std::size_t>(i * cols + j)] = (upper ? j - i >= k : j - i <= k) ? 1.0F : 0.0F;
    const TensorId weight = ctx.newWeight(node.name + ".mask", Shape { rows, cols }, std::move(mask));
    const bool integer = ctx.isInteger(inputName(node, 0));
    ctx.setActivation(node.proto->output(0),
        addSimpleOp(ctx, node.name, OpKind::Multiply, { { x } }, makeLayer(Binary { BinaryKind::Mul }, { weight })));
    if (integer)
        ctx.markInteger(node.proto->output(0));
}

// CumSum along a constant axis: a product with a constant 0/1 triangle (inclusive or `exclusive`,
// forward or `reverse`), the axis moved last and back by transposes. Exact on the integer masks
// exports take running sums of (RoBERTa's position ids), as GEMM sums of 0/1 products are.
void mapCumSum(ImportContext& ctx, const NodeRef& node)
{
    const Attributes attrs(*node.proto);
    const TensorId x = ctx.activation(inputName(node, 0), "x");
    const Shape shape = ctx.shapeOf(x);
    const auto rank = static_cast<std::int64_t>(shape.rank());
    if (!ctx.isConstant(inputName(node, 1)))
        throw NodeError("an axis computed at run time is not supported");
    const auto axes = ctx.constant(inputName(node, 1), "axis")->toInts();
    if (axes.size() != 1)
        throw NodeError("axis must be a scalar");
    const std::int64_t axis = normalizedAxis(axes.front(), rank, "axis");
    const bool exclusive = attrs.getInt("exclusive", 0) != 0, reverse = attrs.getInt("reverse", 0) != 0;
    const std::int64_t n = shape[static_cast<int>(axis)];
    // y[j] = sum_i x[i] t[i][j].
    std::vector<float> triangle(static_cast<std::size_t>(n * n));
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            const bool in = reverse ? (exclusive ? i > j : i >= j) : (exclusive ? i < j : i <= j);
            triangle[static_cast<std::size_t>(i * n + j)] = in ? 1.0F : 0.0F;
        }
    const TensorId weight = ctx.newWeight(node.name + ".triangle", Shape { n, n }, std::move(triangle));
    const bool integer = ctx.isInteger(inputName(node, 0));
    TensorId in = x;
    std::vector<std::int64_t> perm(static_cast<std::size_t>(rank));
    std::iota(perm.begin(), perm.end(), 0);
    std::swap(perm[static_cast<std::size_t>(axis)], perm.back());
    const bool moved = axis != rank - 1;
    if (rank == 1)
        in = addSimpleOp(
            ctx, ctx.derivedOpName(node.name + ":row"), OpKind::Reshape, { { x } }, makeLayer(Reshape { { 1, n } }));
    else if (moved)
        in = addSimpleOp(ctx, ctx.derivedOpName(node.name + ":axis_last"), OpKind::Transpose, { { x } },
            makeLayer(Transpose { perm }));
    const bool last = rank > 1 && !moved;
    TensorId out = addSimpleOp(ctx, last ? node.name : ctx.derivedOpName(node.name + ":sums"), OpKind::MatMul,
        { { in } }, makeLayer(MatMul {}, { weight }));
    if (rank == 1)
        out = addSimpleOp(ctx, node.name, OpKind::Reshape, { { out } }, makeLayer(Reshape { { n } }));
    else if (moved)
        out = addSimpleOp(ctx, node.name, OpKind::Transpose, { { out } }, makeLayer(Transpose { perm }));
    ctx.setActivation(node.proto->output(0), out);
    if (integer)
        ctx.markInteger(node.proto->output(0));
}

// Mod: a - b * floor(a / b) (the divisor's sign, integers), or with fmod = 1 a - b * trunc(a / b)
// (the dividend's sign, C's fmod); trunc(q) = sign(q) * floor(|q|).
void mapMod(ImportContext& ctx, const NodeRef& node)
{
    const bool fmod = Attributes(*node.proto).getInt("fmod", 0) != 0;
    const TensorId a = ctx.activation(inputName(node, 0), "A");
    const std::string& divisor = inputName(node, 1);
    const bool integer = ctx.isInteger(inputName(node, 0)) && ctx.isInteger(divisor);
    if (!integer && !fmod)
        throw NodeError("fmod = 0 is defined for integers only");
    // The divisor an activation or a constant (x % 2): an operand, or the layer's weight.
    const bool constantDivisor = !ctx.isActivation(divisor);
    const TensorId b = constantDivisor ? ctx.weightOf(divisor) : ctx.activation(divisor, "B");
    auto withDivisor = [&](const std::string& name, OpKind kind, BinaryKind op, TensorId other) {
        return constantDivisor ? addSimpleOp(ctx, name, kind, { { other } }, makeLayer(Binary { op }, { b }))
                               : addSimpleOp(ctx, name, kind, { { other }, { b } }, makeLayer(Binary { op }));
    };
    const std::string base = node.name;
    const TensorId q = withDivisor(ctx.derivedOpName(base + ":quotient"), OpKind::Divide, BinaryKind::Div, a);
    TensorId whole;
    if (fmod) {
        const TensorId magnitude = addSimpleOp(ctx, ctx.derivedOpName(base + ":floor_abs"), OpKind::Math, { { q } },
            makeLayer(Eltwise { { ActivationKind::Abs } }, {}, Activation { ActivationKind::Floor }));
        const TensorId sign = addSimpleOp(ctx, ctx.derivedOpName(base + ":sign"), OpKind::Math, { { q } },
            makeLayer(Eltwise { { ActivationKind::Sign } }));
        whole = addSimpleOp(ctx, ctx.derivedOpName(base + ":trunc"), OpKind::Multiply, { { sign }, { magnitude } },
            makeLayer(Binary { BinaryKind::Mul }));
    } else {
        whole = addSimpleOp(ctx, ctx.derivedOpName(base + ":floor"), OpKind::Math, { { q } },
            makeLayer(Eltwise { { ActivationKind::Floor } }));
    }
    const TensorId product
        = withDivisor(ctx.derivedOpName(base + ":product"), OpKind::Multiply, BinaryKind::Mul, whole);
    ctx.setActivation(node.proto->output(0),
        addSimpleOp(ctx, base, OpKind::Subtract, { { a }, { product } }, makeLayer(Binary { BinaryKind::Sub })));
    if (integer)
        ctx.markInteger(node.proto->output(0));
}

// TopK: the k largest (or smallest) along `axis`, best first (`sorted` = 0 allows any order; this
// order is one), the lower index first among equal values; one op for the values and one for the
// indices, each only when read. k is an attribute before opset 10, a constant input after.
void mapTopK(ImportContext& ctx, const NodeRef& node)
{
    const Attributes attrs(*node.proto);
    const TensorId x = ctx.activation(inputName(node, 0), "X");
    const auto rank = static_cast<std::int64_t>(ctx.shapeOf(x).rank());
    std::int64_t k = 0;
    if (ctx.opset < 10) {
        k = attrs.getInt("k", 0);
    } else {
        if (!ctx.isConstant(inputName(node, 1)))
            throw NodeError("K computed at run time is not supported (the output's size would depend on the data)");
        const auto kv = ctx.constant(inputName(node, 1), "K")->toInts();
        if (kv.size() != 1)
            throw NodeError("K must hold one value, not " + std::to_string(kv.size()));
        k = kv.front();
    }
    Reduce top;
    top.kind = ReduceKind::TopK;
    top.axes = { normalizedAxis(attrs.getInt("axis", -1), rank, "axis") };
    top.k = k;
    top.largest = attrs.getInt("largest", 1) != 0;
    const int outputs = node.proto->output_size();
    for (int i = 0; i < outputs && i < 2; ++i) {
        const std::string& name = node.proto->output(i);
        if (name.empty() || (!ctx.isUsed(name) && !ctx.isGraphOutput(name)))
            continue;
        top.indices = i == 1;
        const std::string opName = i == 0 ? node.name : ctx.derivedOpName(node.name + ":indices");
        ctx.setActivation(name, addSimpleOp(ctx, opName, OpKind::Reduce, { { x } }, makeLayer(top)));
        if (i == 1)
            ctx.markInteger(name);
    }
}

} // namespace opsched::onnx_import
