// Shorthand for writing the built-in networks: one call per schedulable op, shapes tracked by the
// underlying GraphBuilder, seeded weights created on the way, scaled so activations keep unit
// scale through any depth (zoo/signal_scale.h).
#pragma once

#include "graph/graph_builder.h"
#include "zoo/signal_scale.h"

#include <string>
#include <vector>

namespace opsched::zoo {

struct Window {
    std::int64_t h = 1, w = 1;
    Window() = default;
    Window(std::int64_t square)
        : h(square)
        , w(square)
    {
    } // NOLINT(google-explicit-constructor)
    Window(std::int64_t hh, std::int64_t ww)
        : h(hh)
        , w(ww)
    {
    }
};

using Terms = std::vector<InputTerm>;

class NetBuilder {
public:
    NetBuilder(std::string model, std::uint64_t weightSeed);

    TensorId input(const std::string& name, Shape shape);

    // Conv (+ bias) with a fused activation. Padding is symmetric.
    TensorId conv(const std::string& name, const Terms& in, std::int64_t outChannels, Window kernel, Window stride = {},
        Window pad = { 0 }, Activation act = Activation::relu(), std::int64_t groups = 1);
    // Relu, then conv without activation (NasNet's 1x1 adapters).
    TensorId reluConv(const std::string& name, const Terms& in, std::int64_t outChannels, Window kernel,
        Window stride = {}, Window pad = { 0 });
    // Relu, depthwise conv, pointwise conv: one unit (IOS's Relu-SepConv).
    TensorId reluSepConv(
        const std::string& name, const Terms& in, std::int64_t outChannels, Window kernel, Window stride, Window pad);
    TensorId maxPool(const std::string& name, const Terms& in, Window kernel, Window stride, Window pad = { 0 },
        bool ceilMode = false);
    TensorId avgPool(const std::string& name, const Terms& in, Window kernel, Window stride, Window pad = { 0 },
        bool countIncludePad = false);
    TensorId globalAvgPool(const std::string& name, const Terms& in);
    TensorId relu(const std::string& name, const Terms& in);
    // Sums within terms, concatenates terms: an Add, a Concat, or both at once.
    TensorId combine(const std::string& name, const Terms& in);
    TensorId fullyConnected(const std::string& name, const Terms& in, std::int64_t outFeatures);

    // Any op, for networks whose units are not convs (transformer_blocks.h builds on these).
    TensorId op(const std::string& name, OpKind kind, const Terms& in, std::vector<Layer> layers);
    // A constant the caller fills; weightSeed() seeds values derived from its name.
    TensorId weight(const std::string& name, Shape shape, std::shared_ptr<const WeightData> data);
    std::uint64_t weightSeed() const { return weightSeed_; }
    // Without a call, the graph's outputs are the tensors no op reads.
    void markOutput(TensorId t) { builder_.markOutput(t); }

    std::int64_t channels(TensorId t) const { return builder_.shapeOf(t).channels(); }
    // Channels of the combined input the terms describe.
    std::int64_t channels(const Terms& in) const;
    const Shape& shape(TensorId t) const { return builder_.shapeOf(t); }

    // The statistics the terms' combined input is expected to have on the seeded inputs.
    Signal signal(const Terms& in) const;

    Graph finish() &&;

private:
    TensorId pool(const std::string& name, const Terms& in, Pool2d params);
    // Adds the op, its conv and gemm weights seeded, scaled and centred for its input's statistics,
    // and records its output's.
    TensorId scaledOp(const std::string& name, OpKind kind, const Terms& in, std::vector<Layer> layers);
    void addScaledWeights(const std::string& prefix, Layer& layer, const Shape& input, Signal& s);
    void setSignal(TensorId t, Signal s);
    std::vector<Signal> signals_; // by tensor id: every activation's
    GraphBuilder builder_;
    std::uint64_t weightSeed_;
};

} // namespace opsched::zoo
