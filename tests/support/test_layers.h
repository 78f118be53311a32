// Small builders for hand-made test graphs, shared by the CPU and the CUDA executor tests.
#pragma once

#include "graph/graph_builder.h"
#include "graph/layer.h"

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

} // namespace opsched::test
