// QuantizeLinear and DequantizeLinear, as QDQ models (ONNX Runtime's quantization tool,
// TensorRT's and tf2onnx's quantization-aware exports) write them around every quantized op. On
// constants (int8 weights, int32 biases) they fold at import into float weights; on activations
// they become the float arithmetic they define, so a QDQ model runs in float32 with exactly its
// quantization's rounding and clipping: quantize is round-half-to-even(x / scale) + zero point,
// saturated to the zero point's type (uint8 without one); dequantize is (q - zero point) * scale.
// Scales and zero points are per tensor or per `axis`; opset 21's blocked quantization is refused.
#include "import/import_error.h"
#include "import/onnx_constant_folding.h"
#include "import/onnx_folding_support.h"
#include "import/onnx_mapping_support.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace opsched::onnx_import {
namespace {

// The range of a quantized element type; uint8 when the zero point does not say (ONNX's default).
std::pair<std::int64_t, std::int64_t> quantizedRange(int onnxType)
{
    using T = onnx::TensorProto;
    switch (onnxType) {
    case T::INT8:
        return { -128, 127 };
    case T::UINT16:
        return { 0, 65535 };
    case T::INT16:
        return { -32768, 32767 };
    case T::INT32:
        return { -2147483648LL, 2147483647LL };
    default:
        return { 0, 255 };
    }
}

// Scale and zero point of a node: per tensor (one value) or per element of `axis`.
struct QuantParams {
    std::vector<float> scale;
    std::vector<std::int64_t> zeroPoint; // as many as scale
    int zeroPointType = 0; // ONNX type of the zero point (0: none given)
    std::int64_t axis = 0; // normalised; meaningful when perAxis
    bool perAxis = false;

    float scaleAt(std::size_t c) const { return scale[perAxis ? c : 0]; }
    std::int64_t zeroAt(std::size_t c) const { return zeroPoint[perAxis ? c : 0]; }
    bool zeroPointIsZero() const
    {
        for (auto z : zeroPoint)
            if (z != 0)
                return false;
        return true;
    }
};

QuantParams quantParams(const onnx::NodeProto& node, const ConstTensor& scale, const ConstTensor* zeroPoint,
    const std::vector<std::int64_t>& dataDims)
{
    const Attributes attrs(node);
    if (attrs.getInt("block_size", 0) != 0)
        throw NodeError("blocked quantization (block_size) is not supported");
    if (attrs.getInt("output_dtype", 0) != 0)
        throw NodeError("output_dtype is not supported; give the type with the zero point");
    QuantParams q;
    if (scale.integer)
        throw NodeError("the scale must be a float");
    q.scale = scale.toFloats();
    const auto rank = static_cast<std::int64_t>(dataDims.size());
    q.perAxis = scale.rank() == 1 && scale.size() > 1;
    if (q.perAxis) {
        q.axis = normalizeAxis(attrs.getInt("axis", 1), rank);
        if (dataDims[static_cast<std::size_t>(q.axis)] != static_cast<std::int64_t>(q.scale.size()))
            throw NodeError("the scale has " + std::to_string(q.scale.size()) + " values for axis "
                + std::to_string(q.axis) + " of " + dimsToString(dataDims));
    } else if (q.scale.size() != 1) {
        throw NodeError("the scale must be a scalar or a 1-D tensor, not " + dimsToString(scale.dims));
    }
    for (float s : q.scale)
        if (!(s != 0.0F) || !std::isfinite(s))
            throw NodeError("a scale of " + std::to_string(s) + " cannot quantize");
    if (zeroPoint) {
        if (!zeroPoint->integer)
            throw NodeError("float zero points (float8 types) are not supported");
        q.zeroPoint = zeroPoint->toInts();
        q.zeroPointType = zeroPoint->type;
        if (q.zeroPoint.size() != q.scale.size())
            throw NodeError("the zero point has " + std::to_string(q.zeroPoint.size()) + " values, the scale "
                + std::to_string(q.scale.size()));
    } else {
        q.zeroPoint.assign(q.scale.size(), 0);
    }
    return q;
}

// The index along the quantization axis of each element of a row-major tensor of `dims`.
std::vector<std::size_t> axisIndex(const std::vector<std::int64_t>& dims, const QuantParams& q)
{
    std::size_t total = 1, inner = 1;
    for (auto d : dims)
        total *= static_cast<std::size_t>(d);
    for (std::size_t d = static_cast<std::size_t>(q.axis) + 1; q.perAxis && d < dims.size(); ++d)
        inner *= static_cast<std::size_t>(dims[d]);
    std::vector<std::size_t> out(total, 0);
    if (q.perAxis)
        for (std::size_t k = 0; k < total; ++k)
            out[k] = (k / inner) % static_cast<std::size_t>(dims[static_cast<std::size_t>(q.axis)]);
    return out;
}

std::vector<ConstPtr> foldDequantize(const onnx::NodeProto& node, const std::vector<ConstPtr>& in, int)
{
    const ConstTensor& x = folding::input(in, 0, "x");
    const QuantParams q = quantParams(node, folding::input(in, 1, "x_scale"), folding::optionalInput(in, 2), x.dims);
    const auto channel = axisIndex(x.dims, q);
    std::vector<float> y(x.size());
    for (std::size_t k = 0; k < y.size(); ++k)
        y[k] = static_cast<float>(static_cast<double>(static_cast<std::int64_t>(x.at(k)) - q.zeroAt(channel[k])))
            * q.scaleAt(channel[k]);
    return { std::make_shared<ConstTensor>(ConstTensor::ofFloats(x.dims, std::move(y))) };
}

std::vector<ConstPtr> foldQuantize(const onnx::NodeProto& node, const std::vector<ConstPtr>& in, int)
{
    const ConstTensor& x = folding::input(in, 0, "x");
    const QuantParams q = quantParams(node, folding::input(in, 1, "y_scale"), folding::optionalInput(in, 2), x.dims);
    const auto [lo, hi] = quantizedRange(q.zeroPointType);
    const auto channel = axisIndex(x.dims, q);
    std::vector<std::int64_t> y(x.size());
    for (std::size_t k = 0; k < y.size(); ++k) {
        // ONNX rounds half to even (the default rounding mode of nearbyint).
        const double v = std::nearbyint(static_cast<double>(static_cast<float>(x.at(k)) / q.scaleAt(channel[k])))
            + static_cast<double>(q.zeroAt(channel[k]));
        y[k] = static_cast<std::int64_t>(std::clamp(v, static_cast<double>(lo), static_cast<double>(hi)));
    }
    auto out = std::make_shared<ConstTensor>(ConstTensor::ofInts(x.dims, std::move(y)));
    out->type = q.zeroPointType != 0 ? q.zeroPointType : static_cast<int>(onnx::TensorProto::UINT8);
    return { out };
}

// Per-axis values as a weight that broadcasts against a rank-`rank` activation: [C, 1, ..., 1]
// with as many ones as dimensions after the axis; one value as [1].
TensorId paramWeight(
    ImportContext& ctx, const std::string& name, const QuantParams& q, std::int64_t rank, std::vector<float> values)
{
    std::vector<std::int64_t> dims { static_cast<std::int64_t>(values.size()) };
    if (q.perAxis)
        for (std::int64_t d = q.axis + 1; d < rank; ++d)
            dims.push_back(1);
    return ctx.newWeight(name, Shape(dims), std::move(values));
}

QuantParams activationParams(ImportContext& ctx, const NodeRef& node, TensorId x, const char* scaleRole)
{
    const std::string& scaleName = inputName(node, 1);
    const std::string& zeroName = inputName(node, 2);
    if (!ctx.isConstant(scaleName) || (!zeroName.empty() && !ctx.isConstant(zeroName)))
        throw NodeError("scales and zero points computed at run time (dynamic quantization) are not supported");
    const ConstPtr zero = zeroName.empty() ? nullptr : ctx.constant(zeroName, "zero point");
    return quantParams(*node.proto, *ctx.constant(scaleName, scaleRole), zero.get(), ctx.shapeOf(x).dims);
}

} // namespace

namespace folding {

void addQuantizeFolders(FolderTable& table)
{
    table["DequantizeLinear"] = foldDequantize;
    table["QuantizeLinear"] = foldQuantize;
}

} // namespace folding

// Activations: q = clip(round(x / scale) + zero point) as a division with the rounding fused and a
// sum with the clip fused; the result is an integer-valued tensor.
void mapQuantizeLinear(ImportContext& ctx, const NodeRef& node)
{
    const TensorId x = ctx.activation(inputName(node, 0), "x");
    const QuantParams q = activationParams(ctx, node, x, "y_scale");
    const auto rank = static_cast<std::int64_t>(ctx.shapeOf(x).rank());
    const auto [lo, hi] = quantizedRange(q.zeroPointType);
    const Activation clip { ActivationKind::Clip, static_cast<float>(lo), static_cast<float>(hi) };
    const TensorId scale = paramWeight(ctx, node.name + ".scale", q, rank, q.scale);
    const bool zero = q.zeroPointIsZero();
    const TensorId rounded = addSimpleOp(ctx, zero ? ctx.derivedOpName(node.name + ":round") : node.name,
        OpKind::Divide, { { x } }, makeLayer(Binary { BinaryKind::Div }, { scale }, { ActivationKind::Round }));
    TensorId out;
    if (zero) {
        out = addSimpleOp(ctx, node.name, OpKind::Activation, { { rounded } }, makeLayer(Eltwise { clip }));
    } else {
        std::vector<float> zp(q.zeroPoint.begin(), q.zeroPoint.end());
        const TensorId zeroPoint = paramWeight(ctx, node.name + ".zero_point", q, rank, std::move(zp));
        out = addSimpleOp(ctx, ctx.derivedOpName(node.name + ":zero_point"), OpKind::Add, { { rounded } },
            makeLayer(Binary { BinaryKind::Add }, { zeroPoint }, clip));
    }
    ctx.setActivation(node.proto->output(0), out);
    ctx.markInteger(node.proto->output(0));
}

// Activations: (q - zero point) * scale, the subtraction left out for a zero point of 0.
void mapDequantizeLinear(ImportContext& ctx, const NodeRef& node)
{
    TensorId x = ctx.activation(inputName(node, 0), "x");
    const QuantParams q = activationParams(ctx, node, x, "x_scale");
    const auto rank = static_cast<std::int64_t>(ctx.shapeOf(x).rank());
    if (!q.zeroPointIsZero()) {
        std::vector<float> zp(q.zeroPoint.begin(), q.zeroPoint.end());
        const TensorId zeroPoint = paramWeight(ctx, node.name + ".zero_point", q, rank, std::move(zp));
        x = addSimpleOp(ctx, ctx.derivedOpName(node.name + ":zero_point"), OpKind::Subtract, { { x } },
            makeLayer(Binary { BinaryKind::Sub }, { zeroPoint }));
    }
    const TensorId scale = paramWeight(ctx, node.name + ".scale", q, rank, q.scale);
    ctx.setActivation(node.proto->output(0),
        addSimpleOp(ctx, node.name, OpKind::Multiply, { { x } }, makeLayer(Binary { BinaryKind::Mul }, { scale })));
}

} // namespace opsched::onnx_import
