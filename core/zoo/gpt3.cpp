// GPT-3 175B as a cost-only graph for mapping studies (DiviML section VI): one decoding step of
// `tokens` tokens through `layers` pre-LN decoder layers at GPT-3's dimensions (d_model 12288,
// 96 heads, d_ff 49152). Only the hidden states flow in and out: the embedding and the LM head
// are left out, so the graph is `layers` identical modules (what the replicated baseline and
// the symmetry study rely on).
//
// Attention is written head-free: scores = q k^T over the whole model dimension and context =
// softmax(scores) v cost exactly the FLOPs and bytes of 96 heads of 128 (2 S^2 D each), in fewer
// ops. The 1/sqrt(d) scale and the causal mask are folded away (element-wise on S x S, noise
// beside the projections). Weights are FP32 like every zoo graph: 6.75 GiB (7.25 GB) per layer, 648 GiB
// for 96 layers; zoo:gpt3?dtype=fp16 halves every tensor's bytes (zoo.cpp). The graph is never
// meant to run: `run` refuses it (zoo::costOnlyReason).
#include "zoo/networks.h"
#include "zoo/transformer_blocks.h"

#include "util/error.h"
#include "util/random.h"

namespace opsched::zoo {

namespace {

constexpr std::int64_t kModel = 12288, kFfn = 49152;

TensorId decoderLayer(NetBuilder& b, const std::string& p, TensorId x)
{
    const float eps = 1e-5F;
    const auto h = layerNorm(b, p + ".ln1", x, eps);
    const auto q = linear(b, p + ".attn.q", h, kModel, true);
    const auto k = linear(b, p + ".attn.k", h, kModel, true);
    const auto v = linear(b, p + ".attn.v", h, kModel, true);
    const auto kt = b.op(p + ".attn.k.t", OpKind::Transpose, { { k } }, { layerOf(Transpose { { 0, 2, 1 } }) });
    const auto scores = b.op(p + ".attn.scores", OpKind::MatMul, { { q }, { kt } }, { layerOf(MatMul {}) });
    const auto probs = b.op(p + ".attn.softmax", OpKind::Softmax, { { scores } }, { layerOf(Softmax { 2 }) });
    const auto ctx = b.op(p + ".attn.context", OpKind::MatMul, { { probs }, { v } }, { layerOf(MatMul {}) });
    const auto out = linear(b, p + ".attn.out", ctx, kModel, true);
    x = residualAdd(b, p + ".attn.residual", x, out);
    const auto f = feedForward(b, p + ".mlp", layerNorm(b, p + ".ln2", x, eps), kFfn, { ActivationKind::Gelu }, true);
    return residualAdd(b, p + ".mlp.residual", x, f);
}

} // namespace

Graph gpt3(std::int64_t batch, std::int64_t layers, std::int64_t tokens)
{
    if (layers < 1 || layers > 96)
        throw ModelRefError("zoo:gpt3: layers must be between 1 and 96, got " + std::to_string(layers));
    if (tokens < 1 || tokens > 2048)
        throw ModelRefError("zoo:gpt3: tokens must be between 1 and 2048, got " + std::to_string(tokens));
    NetBuilder b("gpt3", hashString("gpt3-weights", kDefaultWeightSeed));
    auto x = b.input("hidden_states", Shape { batch, tokens, kModel });
    for (std::int64_t l = 0; l < layers; ++l)
        x = decoderLayer(b, "l" + std::to_string(l), x);
    return std::move(b).finish();
}

} // namespace opsched::zoo
