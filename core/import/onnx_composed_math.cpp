// Element-wise ONNX operators written at import as a few ops the executors have: the hyperbolic
// functions and their inverses (Sinh, Cosh, Asinh, Acosh, Atanh), Tan, IsNaN, IsInf, Shrink
// (PyTorch's hardshrink and softshrink) and OneHot of computed indices. Each is the textbook
// identity; the inverse hyperbolic sine uses its odd symmetry so that large negative inputs do not
// cancel.
#include "import/import_error.h"
#include "import/onnx_composer.h"
#include "import/onnx_constant_folding.h"
#include "import/onnx_mapping_support.h"

#include <limits>

namespace opsched::onnx_import {
namespace {

Activation act(ActivationKind k, float alpha = 0.0F)
{
    return { k, alpha };
}

// exp(x) and exp(-x), for Sinh and Cosh.
std::pair<TensorId, TensorId> exponentials(Composer& c, TensorId x)
{
    const TensorId up = c.unary("exp", x, act(ActivationKind::Exp));
    const TensorId down
        = c.withConstant("exp_neg", x, BinaryKind::Mul, { -1.0F }, Shape { 1 }, false, act(ActivationKind::Exp));
    return { up, down };
}

TensorId composedFunction(ImportContext& ctx, const NodeRef& node, TensorId x)
{
    const std::string& op = node.opType();
    Composer c(ctx, node.name);
    if (op == "Sinh" || op == "Cosh") { // (exp(x) -+ exp(-x)) / 2
        const auto [up, down] = exponentials(c, x);
        const TensorId both = c.binary("both", up, down, op == "Sinh" ? BinaryKind::Sub : BinaryKind::Add);
        return c.withConstant("half", both, BinaryKind::Mul, { 0.5F });
    }
    if (op == "Tan") // sin / cos
        return c.binary("tan", c.unary("sin", x, act(ActivationKind::Sin)), c.unary("cos", x, act(ActivationKind::Cos)),
            BinaryKind::Div);
    if (op == "Asinh") { // sign(x) log(|x| + sqrt(x^2 + 1))
        const TensorId magnitude = c.unary("abs", x, act(ActivationKind::Abs));
        const TensorId square = c.unary("square", magnitude, act(ActivationKind::Pow, 2.0F));
        const TensorId root
            = c.withConstant("root", square, BinaryKind::Add, { 1.0F }, Shape { 1 }, false, act(ActivationKind::Sqrt));
        const TensorId log = addSimpleOp(ctx, c.name("log"), OpKind::Add, { { magnitude }, { root } },
            makeLayer(Binary { BinaryKind::Add }, {}, act(ActivationKind::Log)));
        return c.binary("signed", log, c.unary("sign", x, act(ActivationKind::Sign)), BinaryKind::Mul);
    }
    if (op == "Acosh") { // log(x + sqrt(x^2 - 1))
        const TensorId square = c.unary("square", x, act(ActivationKind::Pow, 2.0F));
        const TensorId root
            = c.withConstant("root", square, BinaryKind::Sub, { 1.0F }, Shape { 1 }, false, act(ActivationKind::Sqrt));
        return addSimpleOp(ctx, c.name("log"), OpKind::Add, { { x }, { root } },
            makeLayer(Binary { BinaryKind::Add }, {}, act(ActivationKind::Log)));
    }
    if (op == "Atanh") { // log((1 + x) / (1 - x)) / 2
        const TensorId above = c.withConstant("one_plus", x, BinaryKind::Add, { 1.0F });
        const TensorId below = c.withConstant("one_minus", x, BinaryKind::Sub, { 1.0F }, Shape { 1 }, true);
        const TensorId log = addSimpleOp(ctx, c.name("log"), OpKind::Divide, { { above }, { below } },
            makeLayer(Binary { BinaryKind::Div }, {}, act(ActivationKind::Log)));
        return c.withConstant("half", log, BinaryKind::Mul, { 0.5F });
    }
    if (op == "IsNaN") { // NaN alone is not equal to itself
        ctx.markInteger(node.proto->output(0));
        return addSimpleOp(ctx, c.name("self_equal"), OpKind::Compare, { { x }, { x } },
            makeLayer(Binary { BinaryKind::Equal }, {}, act(ActivationKind::Not)));
    }
    if (op == "IsInf") {
        const Attributes attrs(*node.proto);
        const bool positive = attrs.getInt("detect_positive", 1) != 0,
                   negative = attrs.getInt("detect_negative", 1) != 0;
        constexpr float inf = std::numeric_limits<float>::infinity();
        ctx.markInteger(node.proto->output(0));
        if (positive && negative)
            return c.withConstant("infinite", c.unary("abs", x, act(ActivationKind::Abs)), BinaryKind::Equal, { inf });
        // One sign, or none (NaN equals nothing).
        const float target = positive ? inf : negative ? -inf : std::numeric_limits<float>::quiet_NaN();
        return c.withConstant("infinite", x, BinaryKind::Equal, { target });
    }
    if (op == "Shrink") { // x < -lambd: x + bias; x > lambd: x - bias; else 0
        const Attributes attrs(*node.proto);
        const float lambd = attrs.getFloat("lambd", 0.5F), bias = attrs.getFloat("bias", 0.0F);
        const TensorId low = c.withConstant("below", x, BinaryKind::Less, { -lambd });
        const TensorId high = c.withConstant("above", x, BinaryKind::Greater, { lambd });
        const TensorId raised = c.withConstant("raised", x, BinaryKind::Add, { bias });
        const TensorId lowered = c.withConstant("lowered", x, BinaryKind::Sub, { bias });
        const TensorId lowPart = c.binary("low_part", raised, low, BinaryKind::Mul);
        const TensorId highPart = c.binary("high_part", lowered, high, BinaryKind::Mul);
        return addSimpleOp(ctx, c.name("sum"), OpKind::Add, { { lowPart, highPart } }, makeLayer(Identity {}));
    }
    throw NodeError("is not a composed function");
}

} // namespace

bool isComposedMathOpType(const std::string& op)
{
    return op == "Sinh" || op == "Cosh" || op == "Tan" || op == "Asinh" || op == "Acosh" || op == "Atanh"
        || op == "IsNaN" || op == "IsInf" || op == "Shrink";
}

void mapComposedMath(ImportContext& ctx, const NodeRef& node)
{
    const TensorId x = ctx.activation(inputName(node, 0), "input");
    ctx.setActivation(node.proto->output(0), composedFunction(ctx, node, x));
}

// OneHot of indices the model computes: the indices (negative ones + depth) broadcast along the
// new axis and compared with 0 .. depth - 1, then off + (on - off) x match.
void mapOneHot(ImportContext& ctx, const NodeRef& node)
{
    const TensorId ids = ctx.activation(inputName(node, 0), "indices");
    const auto depthValue = ctx.constant(inputName(node, 1), "depth");
    const auto values = ctx.constant(inputName(node, 2), "values")->toFloats();
    if (depthValue->size() != 1 || values.size() != 2)
        throw NodeError("needs a scalar depth and two values (off, on)");
    const auto depth = static_cast<std::int64_t>(depthValue->at(0));
    if (depth < 1)
        throw NodeError("depth " + std::to_string(depth) + " is not positive");
    const Shape in = ctx.shapeOf(ids);
    const auto axis
        = static_cast<std::size_t>(normalizeAxis(Attributes(*node.proto).getInt("axis", -1), in.rank() + 1));
    Composer c(ctx, node.name);
    const TensorId negative = c.withConstant("negative", ids, BinaryKind::Less, { 0.0F });
    const TensorId wrap = c.withConstant("wrap", negative, BinaryKind::Mul, { static_cast<float>(depth) });
    const TensorId positive = c.binary("positive", ids, wrap, BinaryKind::Add);
    std::vector<std::int64_t> unit = in.dims, full = in.dims, positions(in.dims.size() + 1, 1);
    unit.insert(unit.begin() + static_cast<std::ptrdiff_t>(axis), 1);
    full.insert(full.begin() + static_cast<std::ptrdiff_t>(axis), depth);
    positions[axis] = depth;
    OpSpec spread;
    spread.name = c.name("spread");
    spread.kind = OpKind::Expand;
    spread.inputs = { { positive } };
    spread.layers.push_back(makeLayer(Reshape { unit }));
    spread.layers.push_back(makeLayer(Expand { full }));
    const TensorId spreadIds = ctx.addOp(std::move(spread));
    std::vector<float> range(static_cast<std::size_t>(depth));
    for (std::int64_t k = 0; k < depth; ++k)
        range[static_cast<std::size_t>(k)] = static_cast<float>(k);
    TensorId match = c.withConstant("match", spreadIds, BinaryKind::Equal, std::move(range), Shape(positions));
    const float off = values[0], on = values[1];
    if (off != 0.0F || on != 1.0F) {
        match = c.withConstant("on", match, BinaryKind::Mul, { on - off });
        match = c.withConstant("off", match, BinaryKind::Add, { off });
    }
    ctx.setActivation(node.proto->output(0), match);
}

} // namespace opsched::onnx_import
