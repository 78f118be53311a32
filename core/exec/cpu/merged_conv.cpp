#include "exec/cpu/merged_conv.h"

#include "exec/cpu/tensor_layout.h"
#include "util/error.h"

#include <algorithm>

namespace opsched::cpu {

Conv2d MergedConvGeometry::conv() const
{
    return Conv2d { .outChannels = outChannels,
        .kernelH = kernelH,
        .kernelW = kernelW,
        .strideH = strideH,
        .strideW = strideW,
        .padTop = padTop,
        .padLeft = padLeft,
        .padBottom = padBottom,
        .padRight = padRight };
}

std::optional<MergedConvGeometry> mergedConvGeometry(const Graph& graph, const std::vector<OpId>& ops)
{
    if (ops.size() < 2)
        return std::nullopt;
    const Op& first = graph.op(ops.front());
    const auto in = combinedInputDims(graph, first);
    if (in.size() != 4)
        return std::nullopt;
    MergedConvGeometry g;
    g.inChannels = in[1];
    g.inH = in[2];
    g.inW = in[3];
    const auto& out0 = graph.tensor(first.output).shape;
    g.outH = out0.height();
    g.outW = out0.width();
    bool strideSet = false;
    for (auto id : ops) {
        const Op& op = graph.op(id);
        if (op.layers.size() != 1 || op.inputs != first.inputs
            || !(op.layers.front().activation == first.layers.front().activation))
            return std::nullopt;
        const auto* c = std::get_if<Conv2d>(&op.layers.front().params);
        if (!c || c->groups != 1 || c->dilationH != 1 || c->dilationW != 1)
            return std::nullopt;
        if (strideSet && (c->strideH != g.strideH || c->strideW != g.strideW))
            return std::nullopt;
        g.strideH = c->strideH;
        g.strideW = c->strideW;
        strideSet = true;
        const auto& out = graph.tensor(op.output).shape;
        if (out.height() != g.outH || out.width() != g.outW)
            return std::nullopt;
        g.outChannels += c->outChannels;
        g.padTop = std::max(g.padTop, c->padTop);
        g.padLeft = std::max(g.padLeft, c->padLeft);
    }
    // Kernel k starts at padTop - k.padTop inside the merged window, so it reads the input rows it
    // reads alone; the window is as large as the furthest kernel end.
    for (auto id : ops) {
        const auto& c = std::get<Conv2d>(graph.op(id).layers.front().params);
        g.kernelH = std::max(g.kernelH, g.padTop - c.padTop + c.kernelH);
        g.kernelW = std::max(g.kernelW, g.padLeft - c.padLeft + c.kernelW);
    }
    // Bottom and right padding that yield exactly the ops' output size.
    g.padBottom = (g.outH - 1) * g.strideH + g.kernelH - g.inH - g.padTop;
    g.padRight = (g.outW - 1) * g.strideW + g.kernelW - g.inW - g.padLeft;
    if (g.padBottom < 0 || g.padRight < 0)
        return std::nullopt;
    return g;
}

std::vector<float> weightValues(const Graph& graph, TensorId weight)
{
    const Tensor& t = graph.tensor(weight);
    if (!t.weight)
        throw Error("weight '" + t.name + "' has no values");
    return t.weight->values(static_cast<std::size_t>(t.shape.elements()));
}

StackedWeights stackWeights(const Graph& graph, const std::vector<OpId>& ops, const MergedConvGeometry& g)
{
    StackedWeights out;
    const std::int64_t kArea = g.kernelH * g.kernelW;
    out.weights.assign(static_cast<std::size_t>(g.outChannels * g.inChannels * kArea), 0.0F);
    out.bias.assign(static_cast<std::size_t>(g.outChannels), 0.0F);
    std::int64_t o0 = 0;
    for (auto id : ops) {
        const Layer& layer = graph.op(id).layers.front();
        const auto& c = std::get<Conv2d>(layer.params);
        const std::int64_t offH = g.padTop - c.padTop, offW = g.padLeft - c.padLeft;
        const auto w = weightValues(graph, layer.weights.at(0));
        for (std::int64_t o = 0; o < c.outChannels; ++o)
            for (std::int64_t i = 0; i < g.inChannels; ++i)
                for (std::int64_t y = 0; y < c.kernelH; ++y)
                    for (std::int64_t x = 0; x < c.kernelW; ++x) {
                        const auto src = ((o * g.inChannels + i) * c.kernelH + y) * c.kernelW + x;
                        const auto dst = (((o0 + o) * g.inChannels + i) * g.kernelH + offH + y) * g.kernelW + offW + x;
                        out.weights[static_cast<std::size_t>(dst)] = w[static_cast<std::size_t>(src)];
                    }
        if (c.bias && layer.weights.size() > 1) {
            const auto b = weightValues(graph, layer.weights[1]);
            std::copy(b.begin(), b.end(), out.bias.begin() + o0);
        }
        o0 += c.outChannels;
    }
    return out;
}

} // namespace opsched::cpu
