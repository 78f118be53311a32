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

inline Pool2d pool(PoolKind kind, std::int64_t k, std::int64_t s, std::int64_t pad, bool ceil = false,
                   bool includePad = false)
{
    Pool2d p{kind, k, k, s, s, pad, pad, pad, pad};
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

} // namespace opsched::test
