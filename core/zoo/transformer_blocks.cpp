#include "zoo/transformer_blocks.h"

#include "util/random.h"

#include <cmath>

namespace opsched::zoo {
namespace {

std::int64_t lastDim(const NetBuilder& b, TensorId x)
{
    return b.shape(x).dims.back();
}

// Uniform values in [centre - spread, centre + spread], a function of the name and the network's
// seed (as the builder seeds every other weight).
std::shared_ptr<const WeightData> around(
    const NetBuilder& b, const std::string& name, std::int64_t count, float centre, float spread)
{
    SplitMix64 rng(hashString(name, b.weightSeed()));
    std::vector<float> values(static_cast<std::size_t>(count));
    for (auto& v : values)
        v = centre + spread * static_cast<float>(rng.uniform() * 2.0 - 1.0);
    return WeightData::stored(std::move(values));
}

// [B, S, H*Dh] -> [B, S, H, Dh] (a view) -> transposed by `perm` (a copy kernel).
TensorId splitHeads(
    NetBuilder& b, const std::string& name, TensorId x, const AttentionSpec& spec, std::vector<std::int64_t> perm)
{
    const auto heads = b.op(
        name + ".heads", OpKind::Reshape, { { x } }, { layerOf(Reshape { { 0, 0, spec.heads, spec.headDim } }) });
    return b.op(name + ".t", OpKind::Transpose, { { heads } }, { layerOf(Transpose { std::move(perm) }) });
}

} // namespace

Layer layerOf(LayerParams params, Activation act, std::vector<TensorId> weights)
{
    Layer l;
    l.params = std::move(params);
    l.activation = act;
    l.weights = std::move(weights);
    return l;
}

TensorId layerNorm(NetBuilder& b, const std::string& name, TensorId x, float epsilon, bool rms, float gain)
{
    const std::int64_t d = lastDim(b, x);
    LayerNorm params;
    params.axis = -1;
    params.epsilon = epsilon;
    params.rms = rms;
    params.bias = !rms;
    std::vector<TensorId> weights { b.weight(
        name + ".weight", Shape { d }, around(b, name + ".weight", d, gain, 0.1F * gain)) };
    if (!rms)
        weights.push_back(seededConstant(b, name + ".bias", Shape { d }, 0.1F));
    return b.op(name, OpKind::LayerNorm, { { x } }, { layerOf(params, {}, std::move(weights)) });
}

TensorId linear(
    NetBuilder& b, const std::string& name, TensorId x, std::int64_t outFeatures, bool bias, Activation act, float gain)
{
    const std::int64_t k = lastDim(b, x);
    // Uniform in [-a, a] has variance a^2/3: a = sqrt(3/K) keeps the output's variance the input's.
    const auto scale = static_cast<float>(gain * std::sqrt(3.0 / static_cast<double>(k)));
    std::vector<TensorId> weights { seededConstant(b, name + ".weight", Shape { k, outFeatures }, scale) };
    if (bias)
        weights.push_back(seededConstant(b, name + ".bias", Shape { outFeatures }, 0.1F));
    return b.op(name, OpKind::MatMul, { { x } }, { layerOf(MatMul { bias }, act, std::move(weights)) });
}

TensorId attention(
    NetBuilder& b, const std::string& prefix, TensorId query, TensorId keyValue, const AttentionSpec& spec)
{
    const std::int64_t inner = spec.heads * spec.headDim;
    const float queryGain = spec.scaled ? 1.0F : static_cast<float>(1.0 / std::sqrt(static_cast<double>(spec.headDim)));
    const bool bias = spec.linearBias;
    const auto q = linear(b, prefix + ".q", query, inner, bias, {}, queryGain);
    const auto k = linear(b, prefix + ".k", keyValue, inner, bias);
    const auto v = linear(b, prefix + ".v", keyValue, inner, bias);
    const auto qh = splitHeads(b, prefix + ".q", q, spec, { 0, 2, 1, 3 }); // [B, H, S, Dh]
    const auto kh = splitHeads(b, prefix + ".k", k, spec, { 0, 2, 3, 1 }); // [B, H, Dh, S]
    const auto vh = splitHeads(b, prefix + ".v", v, spec, { 0, 2, 1, 3 }); // [B, H, S, Dh]

    auto scores = b.op(prefix + ".scores", OpKind::MatMul, { { qh }, { kh } }, { layerOf(MatMul {}) });
    if (spec.scaled) {
        const auto factor = static_cast<float>(1.0 / std::sqrt(static_cast<double>(spec.headDim)));
        const auto c = b.weight(prefix + ".scale", Shape { 1 }, WeightData::stored({ factor }));
        scores = b.op(
            prefix + ".scaled", OpKind::Multiply, { { scores } }, { layerOf(Binary { BinaryKind::Mul }, {}, { c }) });
    }
    if (spec.scoreBias)
        scores = b.op(prefix + ".bias", OpKind::Add, { { scores } },
            { layerOf(Binary { BinaryKind::Add }, {}, { *spec.scoreBias }) });
    const int keyAxis = b.shape(scores).rank() - 1;
    const auto probs = b.op(prefix + ".softmax", OpKind::Softmax, { { scores } }, { layerOf(Softmax { keyAxis }) });
    auto ctx = b.op(prefix + ".context", OpKind::MatMul, { { probs }, { vh } }, { layerOf(MatMul {}) });
    ctx = b.op(prefix + ".context.t", OpKind::Transpose, { { ctx } }, { layerOf(Transpose { { 0, 2, 1, 3 } }) });
    ctx = b.op(prefix + ".context.merge", OpKind::Reshape, { { ctx } }, { layerOf(Reshape { { 0, 0, inner } }) });
    return linear(b, prefix + ".out", ctx, lastDim(b, query), bias);
}

TensorId feedForward(
    NetBuilder& b, const std::string& prefix, TensorId x, std::int64_t hidden, Activation act, bool bias)
{
    const auto h = linear(b, prefix + ".fc1", x, hidden, bias, act);
    return linear(b, prefix + ".fc2", h, lastDim(b, x), bias);
}

TensorId residualAdd(NetBuilder& b, const std::string& name, TensorId x, TensorId y)
{
    return b.op(name, OpKind::Add, { { x }, { y } }, { layerOf(Binary { BinaryKind::Add }) });
}

TensorId embeddingTable(NetBuilder& b, const std::string& name, std::int64_t vocab, std::int64_t dim)
{
    return seededConstant(b, name, Shape { vocab, dim }, static_cast<float>(std::sqrt(3.0)));
}

TensorId embedding(NetBuilder& b, const std::string& name, TensorId ids, TensorId table)
{
    Gather g;
    g.axis = 0;
    g.dataIsWeight = true;
    return b.op(name, OpKind::Gather, { { ids } }, { layerOf(g, {}, { table }) });
}

TensorId addConstants(NetBuilder& b, const std::string& name, TensorId x, const std::vector<TensorId>& constants)
{
    return b.op(name, OpKind::Add, { { x } }, { layerOf(Binary { BinaryKind::Add }, {}, constants) });
}

TensorId seededConstant(NetBuilder& b, const std::string& name, Shape shape, float scale)
{
    return b.weight(name, std::move(shape), WeightData::seeded(hashString(name, b.weightSeed()), scale));
}

TensorId causalMask(NetBuilder& b, const std::string& name, std::int64_t seq)
{
    std::vector<float> values(static_cast<std::size_t>(seq * seq), 0.0F);
    for (std::int64_t i = 0; i < seq; ++i)
        for (std::int64_t j = i + 1; j < seq; ++j)
            values[static_cast<std::size_t>(i * seq + j)] = -10000.0F; // exp() of it is 0 after softmax's shift
    return b.weight(name, Shape { 1, 1, seq, seq }, WeightData::stored(std::move(values)));
}

TensorId tiedLmHead(NetBuilder& b, const std::string& name, TensorId x, TensorId table)
{
    const Shape& in = b.shape(x);
    const std::int64_t seq = in[1], dim = in.dims.back();
    const std::int64_t vocab = b.shape(table)[0];
    // -1 rather than the batch, so the graph can be rebatched.
    const auto rows = b.op(name + ".rows", OpKind::Reshape, { { x } }, { layerOf(Reshape { { -1, dim } }) });
    const auto logits = b.op(name, OpKind::Gemm, { { rows } }, { layerOf(Gemm { vocab, false }, {}, { table }) });
    return b.op(name + ".unflatten", OpKind::Reshape, { { logits } }, { layerOf(Reshape { { -1, seq, vocab } }) });
}

TensorId takeToken(NetBuilder& b, const std::string& name, TensorId x, std::int64_t index)
{
    Slice s;
    s.starts = { index };
    s.ends = { index + 1 };
    s.axes = { 1 };
    s.steps = { 1 };
    return b.op(name, OpKind::Slice, { { x } }, { layerOf(s) });
}

} // namespace opsched::zoo
