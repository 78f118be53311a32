// Mappings of the layout and matrix ops: Gemm, MatMul, Reshape and its relatives, Transpose,
// Slice, Split, Pad, Softmax, and the pass-through ops.
#include "import/import_error.h"
#include "import/onnx_attributes.h"
#include "import/onnx_constant_folding.h"
#include "import/onnx_mapping_support.h"

#include <limits>

namespace opsched::onnx_import {
namespace {

// Reshape targets and pads beyond this are absurd and would overflow the shape arithmetic.
constexpr std::int64_t kMaxDimension = std::int64_t { 1 } << 32;

void checkDims(const std::vector<std::int64_t>& values, const char* what)
{
    for (auto v : values)
        if (v > kMaxDimension || v < -kMaxDimension)
            throw NodeError(std::string(what) + " value " + std::to_string(v) + " is out of range");
}

// Gemm's C operand (times beta) as a bias vector of `n` values, when it broadcasts as one.
std::optional<std::vector<float>> biasVector(const ConstTensor& c, std::int64_t n, float beta)
{
    const bool rowLike = (c.rank() == 1 && (c.dims[0] == n || c.dims[0] == 1))
        || (c.rank() == 2 && c.dims[0] == 1 && (c.dims[1] == n || c.dims[1] == 1)) || c.rank() == 0;
    if (!rowLike)
        return std::nullopt;
    std::vector<float> out(static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < out.size(); ++i)
        out[i] = beta * static_cast<float>(c.at(c.size() == 1 ? 0 : i));
    return out;
}

// Pad's `pads` for every axis (begins, then ends) from the ones given for `axes` (opset 18).
std::vector<std::int64_t> padsOverAxes(
    const std::vector<std::int64_t>& pads, const std::vector<std::int64_t>& axes, int rank)
{
    if (pads.size() != 2 * axes.size())
        throw NodeError("has " + std::to_string(pads.size()) + " pads for " + std::to_string(axes.size())
            + " axes; it needs two per axis");
    std::vector<std::int64_t> full(2 * static_cast<std::size_t>(rank), 0);
    std::vector<bool> seen(static_cast<std::size_t>(rank), false);
    for (std::size_t i = 0; i < axes.size(); ++i) {
        const auto axis = static_cast<std::size_t>(normalizeAxis(axes[i], rank));
        if (seen[axis])
            throw NodeError("lists axis " + std::to_string(axes[i]) + " twice in its axes");
        seen[axis] = true;
        full[axis] = pads[i];
        full[axis + static_cast<std::size_t>(rank)] = pads[i + axes.size()];
    }
    return full;
}

} // namespace

void mapGemm(ImportContext& ctx, const NodeRef& node)
{
    const Attributes attrs(*node.proto);
    const bool transA = attrs.getInt("transA", 0) != 0, transB = attrs.getInt("transB", 0) != 0;
    const float alpha = attrs.getFloat("alpha", 1.0F), beta = attrs.getFloat("beta", 1.0F);
    TensorId a = ctx.activation(inputName(node, 0), "A");
    if (ctx.shapeOf(a).rank() != 2)
        throw NodeError("A must be a matrix, not " + ctx.shapeOf(a).toString());
    if (transA) // a transpose op before the product, as for a run-time B with transB
        a = addSimpleOp(ctx, ctx.derivedOpName(node.name + ":transA"), OpKind::Transpose, { { a } },
            makeLayer(Transpose { { 1, 0 } }));
    const Shape& in = ctx.shapeOf(a);
    const std::string& bName = inputName(node, 1);
    const std::string& cName = inputName(node, 2);
    const std::string& out = node.proto->output(0);

    // What is left after the product: a bias that is not a vector (or not constant) is a
    // separate Add op, which then takes the node's name.
    std::optional<std::vector<float>> bias;
    bool biasOp = !cName.empty();
    if (!cName.empty() && ctx.isConstant(cName) && ctx.isConstant(bName)) {
        const auto b = ctx.constantDims(bName, "B");
        const std::int64_t n = b.size() == 2 ? (transB ? b[0] : b[1]) : 0;
        bias = biasVector(*ctx.constant(cName, "C"), n, beta);
        biasOp = !bias;
    }
    auto addBias = [&](TensorId product) {
        if (ctx.isConstant(cName)) {
            const auto c = ctx.constant(cName, "C");
            std::vector<float> values = c->toFloats();
            for (auto& v : values)
                v *= beta;
            const TensorId w
                = beta == 1.0F ? ctx.weightOf(cName) : ctx.newWeight(node.name + ".C", Shape(c->dims), values);
            return addSimpleOp(
                ctx, node.name, OpKind::Add, { { product } }, makeLayer(Binary { BinaryKind::Add }, { w }));
        }
        TensorId c = ctx.activation(cName, "C");
        if (beta != 1.0F)
            c = addSimpleOp(ctx, ctx.derivedOpName(node.name + ":beta"), OpKind::Multiply, { { c } },
                makeLayer(Binary { BinaryKind::Mul }, { ctx.newWeight(node.name + ".beta", Shape {}, { beta }) }));
        return addSimpleOp(ctx, node.name, OpKind::Add, { { product }, { c } }, makeLayer(Binary { BinaryKind::Add }));
    };

    if (ctx.isConstant(bName)) {
        const auto bDims = ctx.constantDims(bName, "B");
        if (bDims.size() != 2)
            throw NodeError("B must be a matrix, not " + dimsToString(bDims));
        const std::int64_t k = transB ? bDims[1] : bDims[0], n = transB ? bDims[0] : bDims[1];
        if (k != in[1])
            throw NodeError("A " + in.toString() + " and B " + dimsToString(bDims) + " do not multiply"
                + (transB ? " (transB=1)" : ""));
        // The IR's Gemm weight is [outFeatures, K], ONNX's B with transB=1; alpha scales it.
        TensorId weight;
        if (transB && alpha == 1.0F) {
            weight = ctx.weightOf(bName);
        } else {
            const auto b = ctx.constant(bName, "B");
            std::vector<float> w(static_cast<std::size_t>(n * k));
            for (std::int64_t i = 0; i < n; ++i)
                for (std::int64_t j = 0; j < k; ++j)
                    w[static_cast<std::size_t>(i * k + j)]
                        = alpha * static_cast<float>(b->at(static_cast<std::size_t>(transB ? i * k + j : j * n + i)));
            weight = ctx.newWeight(node.name + ".weight", Shape { n, k }, std::move(w));
        }
        std::vector<TensorId> weights { weight };
        if (bias)
            weights.push_back(ctx.newWeight(node.name + ".bias", Shape { n }, std::move(*bias)));
        const std::string name = biasOp ? ctx.derivedOpName(node.name + ":gemm") : node.name;
        const TensorId product
            = addSimpleOp(ctx, name, OpKind::Gemm, { { a } }, makeLayer(Gemm { n, bias.has_value() }, weights));
        ctx.setActivation(out, biasOp ? addBias(product) : product);
        return;
    }

    // B computed at run time: [Transpose] -> MatMul -> [* alpha] -> [+ C].
    TensorId b = ctx.activation(bName, "B");
    if (transB)
        b = addSimpleOp(ctx, ctx.derivedOpName(node.name + ":transB"), OpKind::Transpose, { { b } },
            makeLayer(Transpose { { 1, 0 } }));
    const bool scaled = alpha != 1.0F;
    TensorId product = addSimpleOp(ctx, scaled || biasOp ? ctx.derivedOpName(node.name + ":matmul") : node.name,
        OpKind::MatMul, { { a }, { b } }, makeLayer(MatMul {}));
    if (scaled)
        product = addSimpleOp(ctx, biasOp ? ctx.derivedOpName(node.name + ":alpha") : node.name, OpKind::Multiply,
            { { product } },
            makeLayer(Binary { BinaryKind::Mul }, { ctx.newWeight(node.name + ".alpha", Shape {}, { alpha }) }));
    ctx.setActivation(out, biasOp ? addBias(product) : product);
}

void mapMatMul(ImportContext& ctx, const NodeRef& node)
{
    const std::string& a = inputName(node, 0);
    const std::string& b = inputName(node, 1);
    if (!ctx.isActivation(a))
        throw NodeError("a constant left operand is not supported (the constant must be the right one)");
    const TensorId ta = ctx.activation(a, "A");
    const TensorId result = ctx.isActivation(b)
        ? addSimpleOp(ctx, node.name, OpKind::MatMul, { { ta }, { ctx.activation(b, "B") } }, makeLayer(MatMul {}))
        : addSimpleOp(ctx, node.name, OpKind::MatMul, { { ta } }, makeLayer(MatMul {}, { ctx.weightOf(b) }));
    ctx.setActivation(node.proto->output(0), result);
}

void mapReshape(ImportContext& ctx, const NodeRef& node)
{
    const TensorId x = ctx.activation(inputName(node, 0), "data");
    const Shape& in = ctx.shapeOf(x);
    const auto target = ctx.constant(inputName(node, 1), "shape")->toInts();
    checkDims(target, "reshape target");
    const bool allowZero = Attributes(*node.proto).getInt("allowzero", 0) != 0;
    if (allowZero)
        for (auto d : target)
            if (d == 0)
                throw NodeError("allowzero with a 0 in the target (an empty tensor) is not supported");
    const auto irTarget = ctx.batchAwareTarget(target, in);
    reshapeDims(in.dims, irTarget, false); // validates, naming the shapes
    addUnaryOp(ctx, node, OpKind::Reshape, makeLayer(Reshape { irTarget }));
}

void mapFlatten(ImportContext& ctx, const NodeRef& node)
{
    const TensorId x = ctx.activation(inputName(node, 0), "data");
    const auto rank = ctx.shapeOf(x).rank();
    auto axis = Attributes(*node.proto).getInt("axis", 1);
    if (axis < -rank || axis > rank)
        throw NodeError("flatten axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    if (axis < 0)
        axis += rank;
    addUnaryOp(ctx, node, OpKind::Reshape, makeLayer(Flatten { static_cast<int>(axis) }));
}

void mapSqueeze(ImportContext& ctx, const NodeRef& node)
{
    const TensorId x = ctx.activation(inputName(node, 0), "data");
    const Shape& in = ctx.shapeOf(x);
    const bool squeeze = node.opType() == "Squeeze";
    auto axes = axesInput(ctx, node, 1, 13);
    auto target = squeeze ? squeezeDims(in.dims, axes) : unsqueezeDims(in.dims, axes);
    // Dimension 0 carried through unchanged stays tied to the input's (the batch).
    bool keepsFirst = !target.empty() && in.rank() > 0;
    for (auto& a : axes) {
        const auto rank = squeeze ? in.rank() : static_cast<std::int64_t>(target.size());
        keepsFirst = keepsFirst && normalizeAxis(a, rank) != 0;
    }
    if (squeeze && axes.empty())
        keepsFirst = keepsFirst && in[0] != 1;
    if (keepsFirst)
        target[0] = 0;
    addUnaryOp(ctx, node, OpKind::Reshape, makeLayer(Reshape { target }));
}

void mapTranspose(ImportContext& ctx, const NodeRef& node)
{
    const TensorId x = ctx.activation(inputName(node, 0), "data");
    auto perm = Attributes(*node.proto).getInts("perm");
    if (perm.empty())
        for (auto i = ctx.shapeOf(x).rank(); i-- > 0;)
            perm.push_back(i);
    addUnaryOp(ctx, node, OpKind::Transpose, makeLayer(Transpose { perm }));
}

void mapSlice(ImportContext& ctx, const NodeRef& node)
{
    const Attributes attrs(*node.proto);
    Slice s;
    if (ctx.opset < 10) { // starts, ends and axes became inputs in opset 10
        s.starts = attrs.getInts("starts");
        s.ends = attrs.getInts("ends");
        s.axes = attrs.getInts("axes");
    } else {
        s.starts = ctx.constant(inputName(node, 1), "starts")->toInts();
        s.ends = ctx.constant(inputName(node, 2), "ends")->toInts();
        if (!inputName(node, 3).empty())
            s.axes = ctx.constant(inputName(node, 3), "axes")->toInts();
        if (!inputName(node, 4).empty())
            s.steps = ctx.constant(inputName(node, 4), "steps")->toInts();
    }
    if (s.axes.empty())
        for (std::size_t i = 0; i < s.starts.size(); ++i)
            s.axes.push_back(static_cast<std::int64_t>(i));
    if (s.steps.empty())
        s.steps.assign(s.starts.size(), 1);
    checkDims(s.steps, "slice step");
    addUnaryOp(ctx, node, OpKind::Slice, makeLayer(s));
}

void mapSplit(ImportContext& ctx, const NodeRef& node)
{
    const Attributes attrs(*node.proto);
    const TensorId x = ctx.activation(inputName(node, 0), "data");
    const Shape& in = ctx.shapeOf(x);
    const auto axis = normalizeAxis(attrs.getInt("axis", 0), in.rank());
    const auto dim = in[static_cast<int>(axis)];
    const auto outputs = static_cast<std::int64_t>(node.proto->output_size());
    std::vector<std::int64_t> sizes = ctx.opset < 13 ? attrs.getInts("split")
        : inputName(node, 1).empty()                 ? std::vector<std::int64_t> {}
                                                     : ctx.constant(inputName(node, 1), "split")->toInts();
    if (sizes.empty() && ctx.opset >= 18 && attrs.has("num_outputs")) {
        // Equal parts of ceil(dim / n), the last one smaller when n does not divide dim.
        const auto n = attrs.getInt("num_outputs", outputs);
        if (n != outputs)
            throw NodeError(
                "num_outputs " + std::to_string(n) + " does not match its " + std::to_string(outputs) + " outputs");
        const std::int64_t chunk = (dim + n - 1) / n;
        if (chunk * (n - 1) >= dim)
            throw NodeError("cannot split dimension " + std::to_string(dim) + " into " + std::to_string(n)
                + " non-empty parts of " + std::to_string(chunk));
        sizes.assign(static_cast<std::size_t>(n), chunk);
        sizes.back() = dim - chunk * (n - 1);
    }
    if (sizes.empty()) {
        if (dim % outputs != 0)
            throw NodeError(
                "cannot split dimension " + std::to_string(dim) + " into " + std::to_string(outputs) + " equal parts");
        sizes.assign(static_cast<std::size_t>(outputs), dim / outputs);
    }
    std::int64_t total = 0;
    for (auto s : sizes) {
        if (s < 0 || s > dim)
            throw NodeError("split size " + std::to_string(s) + " does not fit dimension " + std::to_string(dim));
        total += s;
    }
    if (static_cast<std::int64_t>(sizes.size()) != outputs || total != dim)
        throw NodeError("split sizes do not add up to dimension " + std::to_string(dim) + " over "
            + std::to_string(outputs) + " outputs");
    // One Slice op per output that something reads, named "<node>:<output index>".
    std::int64_t offset = 0;
    for (int k = 0; k < node.proto->output_size(); ++k) {
        const auto size = sizes[static_cast<std::size_t>(k)];
        const std::string& out = node.proto->output(k);
        if (ctx.isUsed(out)) {
            Slice s { { offset }, { offset + size }, { axis }, { 1 } };
            ctx.setActivation(out,
                addSimpleOp(ctx, ctx.derivedOpName(node.name + ":" + std::to_string(k)), OpKind::Slice, { { x } },
                    makeLayer(s)));
        }
        offset += size;
    }
}

void mapPad(ImportContext& ctx, const NodeRef& node)
{
    const Attributes attrs(*node.proto);
    Pad p;
    const std::string mode = attrs.getString("mode", "constant");
    if (mode == "constant")
        p.mode = PadMode::Constant;
    else if (mode == "reflect")
        p.mode = PadMode::Reflect;
    else if (mode == "edge")
        p.mode = PadMode::Edge;
    else
        throw NodeError("pad mode '" + mode + "' is not supported");
    if (ctx.opset < 11) { // pads and the value became inputs in opset 11
        p.pads = attrs.getInts("pads");
        p.value = attrs.getFloat("value", 0.0F);
    } else {
        p.pads = ctx.constant(inputName(node, 1), "pads")->toInts();
        if (!inputName(node, 2).empty()) {
            const auto v = ctx.constant(inputName(node, 2), "constant_value");
            if (v->size() != 1)
                throw NodeError("constant_value must be a scalar");
            p.value = static_cast<float>(v->at(0));
        }
        if (!inputName(node, 3).empty()) // opset 18: pads for the listed axes only
            p.pads = padsOverAxes(p.pads, ctx.constant(inputName(node, 3), "axes")->toInts(),
                ctx.shapeOf(ctx.activation(inputName(node, 0), "data")).rank());
    }
    checkDims(p.pads, "pad");
    addUnaryOp(ctx, node, OpKind::Pad, makeLayer(p));
}

// Softmax and LogSoftmax. Before opset 13 they normalise over all dimensions from `axis` on,
// flattened: a softmax over the last axis of the input viewed as [dims before axis..., rest].
void mapSoftmax(ImportContext& ctx, const NodeRef& node)
{
    const TensorId x = ctx.activation(inputName(node, 0), "data");
    const Shape in = ctx.shapeOf(x);
    const bool log = node.opType() == "LogSoftmax";
    if (ctx.opset >= 13) {
        const auto axis = normalizeAxis(Attributes(*node.proto).getInt("axis", -1), in.rank());
        addUnaryOp(ctx, node, OpKind::Softmax, makeLayer(Softmax { static_cast<int>(axis), log }));
        return;
    }
    const auto axis = normalizeAxis(Attributes(*node.proto).getInt("axis", 1), in.rank());
    bool trailingOnes = true;
    for (auto d = axis; d + 1 < in.rank(); ++d)
        trailingOnes = trailingOnes && in[static_cast<int>(d)] == 1;
    if (trailingOnes) {
        addUnaryOp(ctx, node, OpKind::Softmax, makeLayer(Softmax { in.rank() - 1, log }));
        return;
    }
    // Axis 0 makes the whole tensor one row, the batch included.
    std::vector<std::int64_t> rows(in.dims.begin(), in.dims.begin() + axis), back = in.dims;
    if (rows.empty()) {
        rows.push_back(1);
        back[0] = -1;
    }
    rows.push_back(-1);
    OpSpec spec;
    spec.name = node.name;
    spec.kind = OpKind::Softmax;
    spec.inputs = { { x } };
    spec.layers.push_back(makeLayer(Reshape { ctx.batchAwareTarget(rows, in) }));
    spec.layers.push_back(makeLayer(Softmax { static_cast<int>(rows.size()) - 1, log }));
    spec.layers.push_back(makeLayer(Reshape { axis == 0 ? back : ctx.batchAwareTarget(back, in) }));
    ctx.setActivation(node.proto->output(0), ctx.addOp(std::move(spec)));
}

void mapPassThrough(ImportContext& ctx, const NodeRef& node)
{
    if (node.opType() == "Dropout") {
        if (ctx.opset >= 12 && !inputName(node, 2).empty()) {
            const auto training = ctx.constant(inputName(node, 2), "training_mode");
            // A ratio of 0 keeps every value even in training mode (torchvision's Swin writes that).
            const auto ratio = inputName(node, 1).empty() ? nullptr : ctx.constant(inputName(node, 1), "ratio");
            const bool keepsAll = ratio && ratio->size() == 1 && ratio->at(0) == 0.0;
            if (training->size() == 1 && training->at(0) != 0.0 && !keepsAll)
                throw NodeError("training-mode dropout is not supported");
        }
        if (node.proto->output_size() > 1 && ctx.isUsed(node.proto->output(1)))
            throw NodeError("the mask output of Dropout is not supported");
    }
    const std::string& in = inputName(node, 0);
    const std::string& out = node.proto->output(0);
    const TensorId x = ctx.activation(in, "data");
    // Dropped, unless a graph input would become a graph output: that needs an op.
    if (ctx.isGraphOutput(out) && ctx.isGraphInput(x)) {
        addUnaryOp(ctx, node, OpKind::Identity, makeLayer(Identity {}));
        return;
    }
    ctx.setActivation(out, x);
}

} // namespace opsched::onnx_import
