#include "zoo/net_builder.h"

namespace opsched::zoo {
namespace {

Conv2d makeConv(std::int64_t outChannels, Window k, Window s, Window p, std::int64_t groups)
{
    return Conv2d { .outChannels = outChannels,
        .kernelH = k.h,
        .kernelW = k.w,
        .strideH = s.h,
        .strideW = s.w,
        .padTop = p.h,
        .padLeft = p.w,
        .padBottom = p.h,
        .padRight = p.w,
        .groups = groups };
}

Layer layer(LayerParams params, Activation act = {})
{
    Layer l;
    l.params = std::move(params);
    l.activation = act;
    return l;
}

} // namespace

NetBuilder::NetBuilder(std::string model, std::uint64_t weightSeed)
    : builder_(std::move(model), weightSeed)
    , weightSeed_(weightSeed)
{
}

TensorId NetBuilder::input(const std::string& name, Shape shape)
{
    const auto id = builder_.addInput(name, std::move(shape));
    setSignal(id, inputSignal(channels(id)));
    return id;
}

std::int64_t NetBuilder::channels(const Terms& in) const
{
    std::int64_t c = 0;
    for (const auto& term : in)
        c += channels(term.front());
    return c;
}

TensorId NetBuilder::conv(const std::string& name, const Terms& in, std::int64_t outChannels, Window kernel,
    Window stride, Window pad, Activation act, std::int64_t groups)
{
    return scaledOp(name, OpKind::Conv, in, { layer(makeConv(outChannels, kernel, stride, pad, groups), act) });
}

TensorId NetBuilder::reluConv(
    const std::string& name, const Terms& in, std::int64_t outChannels, Window kernel, Window stride, Window pad)
{
    return scaledOp(name, OpKind::ReluConv, in,
        { layer(Eltwise { Activation::relu() }), layer(makeConv(outChannels, kernel, stride, pad, 1)) });
}

TensorId NetBuilder::reluSepConv(
    const std::string& name, const Terms& in, std::int64_t outChannels, Window kernel, Window stride, Window pad)
{
    const std::int64_t c = channels(in);
    return scaledOp(name, OpKind::ReluSepConv, in,
        { layer(Eltwise { Activation::relu() }), layer(makeConv(c, kernel, stride, pad, c)),
            layer(makeConv(outChannels, 1, 1, 0, 1)) });
}

TensorId NetBuilder::pool(const std::string& name, const Terms& in, Pool2d params)
{
    return scaledOp(name, OpKind::Pool, in, { layer(params) });
}

TensorId NetBuilder::maxPool(
    const std::string& name, const Terms& in, Window kernel, Window stride, Window pad, bool ceilMode)
{
    Pool2d p { PoolKind::Max, kernel.h, kernel.w, stride.h, stride.w, pad.h, pad.w, pad.h, pad.w };
    p.ceilMode = ceilMode;
    return pool(name, in, p);
}

TensorId NetBuilder::avgPool(
    const std::string& name, const Terms& in, Window kernel, Window stride, Window pad, bool countIncludePad)
{
    Pool2d p { PoolKind::Average, kernel.h, kernel.w, stride.h, stride.w, pad.h, pad.w, pad.h, pad.w };
    p.countIncludePad = countIncludePad;
    return pool(name, in, p);
}

TensorId NetBuilder::globalAvgPool(const std::string& name, const Terms& in)
{
    return pool(name, in, Pool2d { PoolKind::GlobalAverage });
}

TensorId NetBuilder::relu(const std::string& name, const Terms& in)
{
    return scaledOp(name, OpKind::Activation, in, { layer(Eltwise { Activation::relu() }) });
}

TensorId NetBuilder::combine(const std::string& name, const Terms& in)
{
    const bool concat = in.size() > 1;
    const bool sum = !in.empty() && in.front().size() > 1;
    const OpKind kind = concat ? OpKind::Concat : (sum ? OpKind::Add : OpKind::Identity);
    return scaledOp(name, kind, in, { layer(Identity {}) });
}

TensorId NetBuilder::fullyConnected(const std::string& name, const Terms& in, std::int64_t outFeatures)
{
    return scaledOp(name, OpKind::Gemm, in, { layer(Gemm { outFeatures, true }) });
}

TensorId NetBuilder::op(const std::string& name, OpKind kind, const Terms& in, std::vector<Layer> layers)
{
    return scaledOp(name, kind, in, std::move(layers));
}

TensorId NetBuilder::weight(const std::string& name, Shape shape, std::shared_ptr<const WeightData> data)
{
    return builder_.addWeight(name, std::move(shape), std::move(data));
}

Graph NetBuilder::finish() &&
{
    return std::move(builder_).finish();
}

} // namespace opsched::zoo
