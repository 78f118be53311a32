// A merged launch (IOS operator merge): convolutions that read the same input run as one
// convolution over their weights stacked along output channels, each kernel zero-padded into the
// largest window. Each op's kernel sits where its own padding puts it, which centres it for
// "same" convolutions (1x1 inside 3x3, 1x3 and 3x1 inside 3x3); each op's output is then a
// channel slice of the stacked output, equal to what the op computes alone.
#pragma once

#include "graph/graph.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace opsched::cpu {

struct MergedConvGeometry {
    std::int64_t inChannels = 0, inH = 0, inW = 0;
    std::int64_t outChannels = 0, outH = 0, outW = 0; // the stacked output
    std::int64_t kernelH = 0, kernelW = 0;
    std::int64_t strideH = 1, strideW = 1;
    std::int64_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;

    // The convolution the executors launch: this window over the stacked output channels.
    Conv2d conv() const;
};

// The one convolution that computes all of `ops`, or nullopt when they cannot run as one (not
// plain convolutions of one input with one stride and activation, or outputs that do not line
// up); the executor then runs them one by one.
std::optional<MergedConvGeometry> mergedConvGeometry(const Graph& graph, const std::vector<OpId>& ops);

// The values of a weight tensor. Throws Error when the tensor carries no data.
std::vector<float> weightValues(const Graph& graph, TensorId weight);

struct StackedWeights {
    std::vector<float> weights; // [outChannels, inChannels, kernelH, kernelW]
    std::vector<float> bias; // [outChannels]; zero for ops without a bias
};

// `ops` in stacking order: op k's filters start at the sum of the output channels before it.
StackedWeights stackWeights(const Graph& graph, const std::vector<OpId>& ops, const MergedConvGeometry& geometry);

} // namespace opsched::cpu
