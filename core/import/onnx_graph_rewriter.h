// Decisions about the ONNX graph taken before any op is built: which values are constant (to be
// folded), and which Conv -> BatchNormalization -> activation chains become one IR op.
#pragma once

#include "import/onnx_structure.h"
#include "import/onnx_transformer_patterns.h"

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace opsched::onnx_import {

// Node positions (in the sorted order) of one fused op: the Conv, and the BatchNormalization
// folded into its weights and the activation applied to its output, where there are such.
struct ConvChain {
    std::size_t conv = 0;
    std::optional<std::size_t> batchNorm;
    std::optional<std::size_t> activation;
    // The last member in topological order: where the fused op is built, once every input of
    // the chain (BatchNorm statistics, Clip bounds) is available.
    std::size_t tail() const { return activation ? *activation : batchNorm ? *batchNorm : conv; }
};

struct FusionPlan {
    std::vector<ConvChain> chains;
    std::vector<int> chainOf; // per node position: chain index or -1
    // A zero-valued spatial Pad read only by a Conv or an AveragePool can become that op's own
    // padding (as PyTorch exports avg_pool2d with padding). Per node position: the consumer a Pad
    // may fold into (padInto) and the Pad that may fold into a consumer (padOf), or -1; whether
    // it does depends on values known only while building.
    std::vector<int> padInto;
    std::vector<int> padOf;
    // Identity and inference Dropout nodes whose readers now read their input instead.
    std::vector<bool> dropped;
    // Transformer blocks imported as one op each (layer norms, GELUs, Linear layers).
    std::vector<PatternMatch> patterns;
    std::vector<int> patternOf; // per node position: pattern index or -1
    std::unordered_map<std::string, int> consumers; // reads by nodes, plus one per graph output
    std::unordered_set<std::string> constants; // values that fold to constants
    std::unordered_set<std::string> graphOutputs;
};

// Activations that fuse into a conv (and map to standalone Eltwise ops otherwise).
bool isActivationOpType(const std::string& opType);

// Rewrites the graph's node inputs to bypass Identity and Dropout (so that fusions see through
// them), then plans the fusions. `nodes` must be the graph's nodes in order (sortNodes).
FusionPlan planFusions(onnx::GraphProto& graph, const std::vector<NodeRef>& nodes, int opset);

} // namespace opsched::onnx_import
