// Small builders for hand-made test graphs, shared by the CPU and the CUDA executor tests.
#pragma once

#include "graph/graph_builder.h"
#include "graph/layer.h"

#include <ostream>
#include <string>
#include <vector>

namespace opsched::test {

inline Layer layer(LayerParams params, Activation act = {}, std::vector<TensorId> weights = {})
{
    Layer l;
    l.params = std::move(params);
    l.activation = act;
    l.weights = std::move(weights);
    return l;
}

inline Conv2d conv(std::int64_t out, std::int64_t kh, std::int64_t kw, std::int64_t stride = 1, std::int64_t pad = 0)
{
    Conv2d c;
    c.outChannels = out;
    c.kernelH = kh;
    c.kernelW = kw;
    c.strideH = c.strideW = stride;
    c.padTop = c.padLeft = c.padBottom = c.padRight = pad;
    return c;
}

// A constant weight with the given values.
inline TensorId weight(GraphBuilder& b, const std::string& name, Shape shape, std::vector<float> values)
{
    return b.addWeight(name, std::move(shape), WeightData::stored(std::move(values)));
}

// `c` after `edit(c)`: a variant of a conv in one expression.
inline Conv2d with(Conv2d c, auto&& edit)
{
    edit(c);
    return c;
}

inline Pool2d pool(
    PoolKind kind, std::int64_t k, std::int64_t s, std::int64_t pad, bool ceil = false, bool includePad = false)
{
    Pool2d p { kind, k, k, s, s, pad, pad, pad, pad };
    p.ceilMode = ceil;
    p.countIncludePad = includePad;
    return p;
}

// Single-layer cases the executors' tests run against the reference.
struct ConvCase {
    const char* name;
    Conv2d conv;
    Activation act;
    std::int64_t channels;
    std::int64_t batch;
};

struct PoolCase {
    const char* name;
    Pool2d pool;
    Activation act;
    std::int64_t batch;
};

// How gtest shows a case (instead of its bytes).
inline void PrintTo(const ConvCase& c, std::ostream* os)
{
    *os << c.name << " batch " << c.batch;
}
inline void PrintTo(const PoolCase& c, std::ostream* os)
{
    *os << c.name << " batch " << c.batch;
}

// The cases every executor runs (on [batch, channels, 9, 8] and [batch, 3, 6, 7] inputs).
// The one-op graph each case runs: the conv over a 9x8 input, the pool over a 6x7 one.
inline Graph graphOf(const ConvCase& c)
{
    GraphBuilder b(c.name, 3);
    const auto x = b.addInput("x", Shape { c.batch, c.channels, 9, 8 });
    b.addOp({ "conv", OpKind::Conv, { { x } }, { layer(c.conv, c.act) } });
    return std::move(b).finish();
}

inline Graph graphOf(const PoolCase& c)
{
    GraphBuilder b(c.name, 3);
    const auto x = b.addInput("x", Shape { c.batch, 3, 6, 7 });
    b.addOp({ "pool", OpKind::Pool, { { x } }, { layer(c.pool, c.act) } });
    return std::move(b).finish();
}

inline std::vector<ConvCase> convCases()
{
    return { ConvCase { "same3x3_relu", conv(6, 3, 3, 1, 1), Activation::relu(), 4, 1 },
        ConvCase {
            "relu_no_bias", with(conv(6, 3, 3, 1, 1), [](Conv2d& c) { c.bias = false; }), Activation::relu(), 4, 2 },
        ConvCase { "asym_pads_no_bias",
            with(conv(5, 5, 3, 2),
                [](Conv2d& c) {
                    c.padTop = 2, c.padLeft = 1, c.padBottom = 0, c.padRight = 1, c.strideW = 1, c.bias = false;
                }),
            {}, 3, 2 },
        ConvCase { "grouped_dilated_clip",
            with(conv(6, 3, 3, 1, 2), [](Conv2d& c) { c.groups = 2, c.dilationH = c.dilationW = 2; }),
            { ActivationKind::Clip, -0.2F, 0.3F }, 4, 1 },
        ConvCase { "depthwise_hardswish", with(conv(4, 3, 3, 2, 1), [](Conv2d& c) { c.groups = 4; }),
            { ActivationKind::HardSwish }, 4, 2 },
        ConvCase { "pointwise_sigmoid", conv(7, 1, 1), { ActivationKind::Sigmoid }, 5, 1 },
        ConvCase { "tanh", conv(3, 2, 2, 1, 0), { ActivationKind::Tanh }, 2, 1 },
        ConvCase { "hardsigmoid", conv(3, 3, 1, 1, 1), { ActivationKind::HardSigmoid, 0.2F, 0.5F }, 2, 1 },
        ConvCase { "relu6", conv(3, 3, 3, 2, 1), Activation::relu6(), 3, 2 } };
}

inline std::vector<PoolCase> poolCases()
{
    return { PoolCase { "max_ceil", pool(PoolKind::Max, 3, 2, 0, true), {}, 1 },
        PoolCase { "max_pad", pool(PoolKind::Max, 3, 1, 1), Activation::relu(), 2 },
        PoolCase { "avg_exclude_pad", pool(PoolKind::Average, 3, 1, 1), {}, 1 },
        PoolCase { "avg_include_pad", pool(PoolKind::Average, 3, 2, 1, false, true), {}, 2 },
        PoolCase { "avg_include_pad_ceil_overhang", pool(PoolKind::Average, 3, 2, 1, true, true), {}, 2 },
        PoolCase { "avg_exclude_pad_ceil", pool(PoolKind::Average, 2, 2, 0, true), { ActivationKind::Tanh }, 1 },
        PoolCase { "asymmetric_pads", Pool2d { PoolKind::Average, 2, 3, 2, 1, 1, 0, 0, 2, false, true }, {}, 1 },
        PoolCase { "max_ceil_big_pad", Pool2d { PoolKind::Max, 1, 1, 3, 3, 0, 0, 3, 3, false, true }, {}, 1 },
        PoolCase { "avg_floor_tail", pool(PoolKind::Average, 2, 3, 0, false, true), {}, 2 },
        PoolCase { "global_avg", Pool2d { PoolKind::GlobalAverage }, {}, 2 },
        PoolCase { "global_max", Pool2d { PoolKind::GlobalMax }, { ActivationKind::Sigmoid }, 1 } };
}

} // namespace opsched::test
