// Transformer networks from the blocks of transformer_blocks.h: BERT-base, GPT-2 small, T5-small
// and ViT-B/16 at inference, one op per kernel. Token ids are a float input [batch, seq] holding
// integer values. What an exported model reads from constant buffers (position ids, token type
// ids, masks) is folded into constants here: BERT's position and segment-0 rows are constants
// [1, S, D] and [D] added to the token embeddings; every sequence is full length, so BERT and T5's
// encoder need no padding mask.
#include "zoo/networks.h"
#include "zoo/transformer_blocks.h"

#include "util/error.h"
#include "util/random.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace opsched::zoo {
namespace {

void checkRange(const char* network, const char* key, std::int64_t value, std::int64_t lo, std::int64_t hi)
{
    if (value < lo || value > hi)
        throw ModelRefError(std::string("zoo:") + network + ": " + key + " must be between " + std::to_string(lo)
            + " and " + std::to_string(hi) + ", got " + std::to_string(value));
}

// What every text model starts from: its length and depth checked, then its builder.
NetBuilder textModel(const char* network, const TransformerParams& params, std::int64_t maxSeq)
{
    checkRange(network, "seq", params.seq, 1, maxSeq);
    checkRange(network, "layers", params.layers, 1, 48);
    return NetBuilder(network, hashString(std::string(network) + "-weights", kDefaultWeightSeed));
}

std::string layerName(int l)
{
    return "l" + std::to_string(l);
}

// T5's bucket of a relative position (key - query): exact for small distances, logarithmic up to
// maxDistance; bidirectional buckets (the encoder) tell left from right, unidirectional ones (the
// decoder) only look back.
int relativeBucket(std::int64_t relative, bool bidirectional, int buckets = 32, int maxDistance = 128)
{
    int bucket = 0;
    if (bidirectional) {
        buckets /= 2;
        if (relative > 0)
            bucket += buckets;
        relative = std::abs(relative);
    } else {
        relative = relative < 0 ? -relative : 0;
    }
    const int maxExact = buckets / 2;
    if (relative < maxExact)
        return bucket + static_cast<int>(relative);
    const double logRatio
        = std::log(static_cast<double>(relative) / maxExact) / std::log(static_cast<double>(maxDistance) / maxExact);
    const int large = maxExact + static_cast<int>(logRatio * (buckets - maxExact));
    return bucket + std::min(large, buckets - 1);
}

// The score bias of one T5 stack, [1, H, S, S]: a seeded value per head and bucket, plus the
// causal mask in the decoder (T5 computes it once per stack and every layer adds it).
TensorId relativePositionBias(
    NetBuilder& b, const std::string& name, std::int64_t heads, std::int64_t seq, bool decoder)
{
    constexpr int kBuckets = 32;
    SplitMix64 rng(hashString(name, b.weightSeed()));
    std::vector<float> table(static_cast<std::size_t>(heads * kBuckets));
    for (auto& v : table)
        v = static_cast<float>(rng.uniform() * 2.0 - 1.0);
    std::vector<float> values(static_cast<std::size_t>(heads * seq * seq));
    for (std::int64_t h = 0; h < heads; ++h)
        for (std::int64_t i = 0; i < seq; ++i)
            for (std::int64_t j = 0; j < seq; ++j) {
                const int bucket = relativeBucket(j - i, !decoder);
                float v = table[static_cast<std::size_t>(h * kBuckets + bucket)];
                if (decoder && j > i)
                    v = -10000.0F;
                values[static_cast<std::size_t>((h * seq + i) * seq + j)] = v;
            }
    return b.weight(name, Shape { 1, heads, seq, seq }, WeightData::stored(std::move(values)));
}

struct Dims {
    std::int64_t model = 768, heads = 12, headDim = 64, ffn = 3072;
};

// Pre-LN block (GPT-2, ViT): x + Attn(LN(x)), then x + FFN(LN(x)).
TensorId preNormBlock(NetBuilder& b, const std::string& p, TensorId x, const Dims& d, float eps, Activation act,
    std::optional<TensorId> mask)
{
    const AttentionSpec spec { d.heads, d.headDim, true, true, mask };
    const auto h = layerNorm(b, p + ".ln1", x, eps);
    x = residualAdd(b, p + ".attn.residual", x, attention(b, p + ".attn", h, h, spec));
    const auto f = feedForward(b, p + ".ffn", layerNorm(b, p + ".ln2", x, eps), d.ffn, act, true);
    return residualAdd(b, p + ".ffn.residual", x, f);
}

// The token ids [batch, seq] ("input_ids") looked up in a fresh embedding table [vocab, D].
struct Tokens {
    TensorId table, embedded;
};

Tokens embedTokens(NetBuilder& b, std::int64_t batch, std::int64_t seq, const std::string& table, std::int64_t vocab,
    std::int64_t model)
{
    const auto ids = b.input("input_ids", Shape { batch, seq });
    const auto t = embeddingTable(b, table, vocab, model);
    return { t, embedding(b, "embeddings.lookup", ids, t) };
}

} // namespace

Graph bert(std::int64_t batch, const TransformerParams& params)
{
    NetBuilder b = textModel("bert", params, 512);
    const Dims d;
    const float eps = 1e-12F;
    auto x = embedTokens(b, batch, params.seq, "embeddings.word", 30522, d.model).embedded;
    x = addConstants(b, "embeddings.add", x,
        { seededConstant(b, "embeddings.position", Shape { 1, params.seq, d.model }, 0.5F),
            seededConstant(b, "embeddings.segment", Shape { d.model }, 0.5F) });
    x = layerNorm(b, "embeddings.ln", x, eps);
    const AttentionSpec spec { d.heads, d.headDim, true, true, std::nullopt };
    for (int l = 0; l < params.layers; ++l) {
        const std::string p = layerName(l);
        // Post-LN: LN(x + Attn(x)), then LN(x + FFN(x)).
        const auto a = attention(b, p + ".attn", x, x, spec);
        x = layerNorm(b, p + ".ln1", residualAdd(b, p + ".attn.residual", x, a), eps);
        const auto f = feedForward(b, p + ".ffn", x, d.ffn, { ActivationKind::Gelu }, true);
        x = layerNorm(b, p + ".ln2", residualAdd(b, p + ".ffn.residual", x, f), eps);
    }
    // The pooler: tanh(dense(first token)). Both it and the hidden states are outputs.
    const auto pooled
        = linear(b, "pooler.dense", takeToken(b, "pooler.cls", x, 0), d.model, true, { ActivationKind::Tanh });
    b.markOutput(x);
    b.markOutput(pooled);
    return std::move(b).finish();
}

Graph gpt2(std::int64_t batch, const TransformerParams& params)
{
    NetBuilder b = textModel("gpt2", params, 1024);
    const Dims d;
    const float eps = 1e-5F;
    const Tokens tokens = embedTokens(b, batch, params.seq, "wte", 50257, d.model);
    auto x = tokens.embedded;
    x = addConstants(b, "embeddings.add", x, { seededConstant(b, "wpe", Shape { 1, params.seq, d.model }, 0.5F) });
    const auto mask = causalMask(b, "causal_mask", params.seq); // one constant every layer adds
    for (int l = 0; l < params.layers; ++l)
        x = preNormBlock(b, layerName(l), x, d, eps, { ActivationKind::GeluTanh }, mask);
    x = layerNorm(b, "ln_f", x, eps);
    tiedLmHead(b, "lm_head", x, tokens.table);
    return std::move(b).finish();
}

Graph t5(std::int64_t batch, const TransformerParams& params)
{
    NetBuilder b = textModel("t5", params, 512);
    const Dims d { 512, 8, 64, 2048 };
    const float eps = 1e-6F;
    const Activation relu = Activation::relu();
    const auto encIds = b.input("input_ids", Shape { batch, params.seq });
    const auto decIds = b.input("decoder_input_ids", Shape { batch, params.seq });
    const auto shared = embeddingTable(b, "shared", 32128, d.model);
    // T5 scales no scores: the 1/sqrt(d) is in the query weights (attention() folds it there).
    const AttentionSpec encSpec { d.heads, d.headDim, false, false,
        relativePositionBias(b, "encoder.position_bias", d.heads, params.seq, false) };
    const AttentionSpec decSpec { d.heads, d.headDim, false, false,
        relativePositionBias(b, "decoder.position_bias", d.heads, params.seq, true) };
    const AttentionSpec crossSpec { d.heads, d.headDim, false, false, std::nullopt };

    // Pre-norm with RMS norms and no biases anywhere.
    auto x = embedding(b, "encoder.embed", encIds, shared);
    for (int l = 0; l < params.layers; ++l) {
        const std::string p = "encoder." + layerName(l);
        const auto h = layerNorm(b, p + ".ln1", x, eps, true);
        x = residualAdd(b, p + ".attn.residual", x, attention(b, p + ".attn", h, h, encSpec));
        const auto f = feedForward(b, p + ".ffn", layerNorm(b, p + ".ln2", x, eps, true), d.ffn, relu, false);
        x = residualAdd(b, p + ".ffn.residual", x, f);
    }
    const auto encoded = layerNorm(b, "encoder.ln_f", x, eps, true);

    auto y = embedding(b, "decoder.embed", decIds, shared);
    for (int l = 0; l < params.layers; ++l) {
        const std::string p = "decoder." + layerName(l);
        const auto h = layerNorm(b, p + ".ln1", y, eps, true);
        y = residualAdd(b, p + ".attn.residual", y, attention(b, p + ".attn", h, h, decSpec));
        const auto c = layerNorm(b, p + ".ln2", y, eps, true);
        y = residualAdd(b, p + ".cross.residual", y, attention(b, p + ".cross", c, encoded, crossSpec));
        const auto f = feedForward(b, p + ".ffn", layerNorm(b, p + ".ln3", y, eps, true), d.ffn, relu, false);
        y = residualAdd(b, p + ".ffn.residual", y, f);
    }
    // The tied head rescales by d_model^-0.5: folded into the final norm's scale.
    y = layerNorm(b, "decoder.ln_f", y, eps, true, static_cast<float>(1.0 / std::sqrt(static_cast<double>(d.model))));
    tiedLmHead(b, "lm_head", y, shared);
    return std::move(b).finish();
}

Graph vit(std::int64_t batch, int layers)
{
    checkRange("vit", "layers", layers, 1, 48);
    const Dims d;
    const float eps = 1e-6F;
    constexpr std::int64_t kImage = 224, kPatch = 16, kTokens = (kImage / kPatch) * (kImage / kPatch) + 1;
    NetBuilder b("vit", hashString("vit-weights", kDefaultWeightSeed));
    const auto image = b.input("pixel_values", Shape { batch, 3, kImage, kImage });
    auto x = b.conv("patch_embed", { { image } }, d.model, kPatch, kPatch, 0, Activation::none());
    x = b.op("patch_embed.flatten", OpKind::Reshape, { { x } }, { layerOf(Reshape { { 0, 0, -1 } }) }); // [B, D, 196]
    x = b.op("patch_embed.t", OpKind::Transpose, { { x } }, { layerOf(Transpose { { 0, 2, 1 } }) }); // [B, 196, D]
    // A zero row in front of the patches, then one constant [1, 197, D] added: the class token
    // plus its position embedding in row 0, the patches' position embeddings after it.
    x = b.op("cls.pad", OpKind::Pad, { { x } }, { layerOf(Pad { { 0, 1, 0, 0, 0, 0 } }) });
    x = addConstants(
        b, "embeddings.add", x, { seededConstant(b, "cls_and_position", Shape { 1, kTokens, d.model }, 0.5F) });
    for (int l = 0; l < layers; ++l)
        x = preNormBlock(b, layerName(l), x, d, eps, { ActivationKind::Gelu }, std::nullopt);
    x = layerNorm(b, "ln_f", x, eps);
    b.fullyConnected("head", { { takeToken(b, "head.cls", x, 0) } }, 1000);
    return std::move(b).finish();
}

} // namespace opsched::zoo
