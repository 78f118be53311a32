// The parts transformer networks are built from, one op per kernel an efficient implementation
// launches: the zoo's BERT, GPT-2, T5 and ViT share them, and so can a larger (cost-only) graph.
// Hidden states are [batch, sequence, model dim]; attention works on [batch, heads, seq, head dim].
//
// Linear layers are MatMul ops with a constant weight [K, N] and, where the model has one, a bias
// in the same op (cuBLASLt adds it in the GEMM's epilogue: no kernel of its own).
#pragma once

#include "zoo/net_builder.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace opsched::zoo {

// One layer with its fused activation and the constants it reads (operands or weights).
Layer layerOf(LayerParams params, Activation act = {}, std::vector<TensorId> weights = {});

struct AttentionSpec {
    std::int64_t heads = 12;
    std::int64_t headDim = 64;
    bool scaled = true; // scores * 1/sqrt(headDim) as an op; T5 folds it into its query weights
    bool linearBias = true; // the Q, K, V and output projections have biases (not in T5)
    std::optional<TensorId> scoreBias; // a constant added to the scores (causal mask, position bias)
};

// Normalisation over the last dimension: LayerNorm (scale and bias) or RMS norm (scale only).
// Scales are seeded near `gain` (1: activations stay at unit scale) and biases near 0.
TensorId layerNorm(
    NetBuilder& b, const std::string& name, TensorId x, float epsilon, bool rms = false, float gain = 1.0F);

// x [.., K] times a seeded weight [K, outFeatures] (plus a seeded bias), with a fused activation.
// The weight's scale keeps unit-variance inputs at unit variance (times `gain`).
TensorId linear(NetBuilder& b, const std::string& name, TensorId x, std::int64_t outFeatures, bool bias,
    Activation act = {}, float gain = 1.0F);

// Multi-head attention: Q from `query`, K and V from `keyValue` (the same tensor for
// self-attention, the encoder's output for cross-attention), as three separate projections so
// schedulers see them side by side; heads split by a reshape (a view) and a transpose (a copy; K
// goes straight to [B, H, Dh, S]); scores, optional scale and bias, softmax over the keys, context,
// heads merged back, output projection. Returns the projection (the caller adds the residual).
TensorId attention(
    NetBuilder& b, const std::string& prefix, TensorId query, TensorId keyValue, const AttentionSpec& spec);

// Two linear layers, `act` fused into the first (GELU, ReLU). Returns the second's output.
TensorId feedForward(
    NetBuilder& b, const std::string& prefix, TensorId x, std::int64_t hidden, Activation act, bool bias);

// x + y: the residual connection.
TensorId residualAdd(NetBuilder& b, const std::string& name, TensorId x, TensorId y);

// A seeded embedding table [vocab, dim] with unit-variance entries.
TensorId embeddingTable(NetBuilder& b, const std::string& name, std::int64_t vocab, std::int64_t dim);
// Looks up `ids` ([B, S] integer-valued floats) in `table`: [B, S, dim].
TensorId embedding(NetBuilder& b, const std::string& name, TensorId ids, TensorId table);

// x plus constants that broadcast to it (position embeddings, a class token), in one kernel.
TensorId addConstants(NetBuilder& b, const std::string& name, TensorId x, const std::vector<TensorId>& constants);

// A seeded constant of the given shape, uniform in [-scale, scale].
TensorId seededConstant(NetBuilder& b, const std::string& name, Shape shape, float scale);

// [1, 1, S, S]: 0 where key <= query, a large negative number above the diagonal.
TensorId causalMask(NetBuilder& b, const std::string& name, std::int64_t seq);

// Logits against a tied embedding table [vocab, dim]: x [B, S, dim] flattened to rows, one GEMM
// with the table as its weight (x * table^T), reshaped back to [B, S, vocab].
TensorId tiedLmHead(NetBuilder& b, const std::string& name, TensorId x, TensorId table);

// Token `index` of every sequence: [B, S, D] -> [B, 1, D] (BERT's pooler, ViT's class token).
TensorId takeToken(NetBuilder& b, const std::string& name, TensorId x, std::int64_t index);

} // namespace opsched::zoo
