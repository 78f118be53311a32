// The built-in benchmark networks, as the IOS paper schedules them (its Table 2 counts the units).
#pragma once

#include "graph/graph.h"

#include <cstdint>

namespace opsched::zoo {

// Weights are seeded from this unless a network takes a seed parameter.
inline constexpr std::uint64_t kDefaultWeightSeed = 20210401;

Graph inceptionV3(std::int64_t batch); // 299x299, Conv-Relu units
Graph randWire(std::int64_t batch, std::uint64_t seed); // WS(4, 0.75) stages, Relu-SepConv units
Graph nasnetA(std::int64_t batch); // NASNet-A large, 331x331, stem 96, filters 168
Graph squeezeNet(std::int64_t batch); // SqueezeNet 1.0 with bypass connections
Graph googLeNet(std::int64_t batch); // GoogLeNet (Inception v1), 224x224

struct RandomDagParams {
    int ops = 20;
    int width = 4; // most ops on one level
    std::uint64_t seed = 1;
};
Graph randomDag(std::int64_t batch, const RandomDagParams& params);

// Stacked randomly wired modules (DiviML's RWNNs), zoo:rwnn?gen=..&n=..&modules=..&channels=..
struct RwnnParams {
    enum class Generator { WattsStrogatz, ErdosRenyi, BarabasiAlbert };
    Generator generator = Generator::ErdosRenyi;
    int nodes = 10; // per module
    int modules = 10;
    int channels = 1; // edges from one module to the next
    bool strongDependency = true; // sdep; false: wdep
    std::uint64_t seed = 1;
    std::int64_t width = 64; // feature channels
    std::int64_t resolution = 224; // input side; modules run at a quarter of it
};
Graph rwnn(std::int64_t batch, const RwnnParams& params);

// Transformers (transformers.cpp), one op per kernel; token ids are a float input [batch, seq].
struct TransformerParams {
    std::int64_t seq = 128;
    int layers = 12; // T5: per stack (encoder and decoder)
};
Graph bert(std::int64_t batch, const TransformerParams& params); // BERT-base, post-LN
Graph gpt2(std::int64_t batch, const TransformerParams& params); // GPT-2 small, causal, tied LM head
Graph t5(std::int64_t batch, const TransformerParams& params); // T5-small encoder-decoder
Graph vit(std::int64_t batch, int layers); // ViT-B/16, 224x224
// GPT-3 175B, cost-only (gpt3.cpp): `layers` decoder layers, one step of `tokens` tokens.
Graph gpt3(std::int64_t batch, std::int64_t layers, std::int64_t tokens);

} // namespace opsched::zoo
