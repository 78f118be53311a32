// Transformer building blocks that exporters write as many small nodes and opsched imports as one
// op each: layer normalisation (ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add), RMS
// normalisation (Pow, ReduceMean, Add, Sqrt, Div or Reciprocal, Mul, Mul), GELU (the erf form and
// the tanh approximation) and Linear layers (MatMul by a constant, then a bias Add, then an
// activation or a GELU). Found once before import, like the Conv chains of the graph rewriter.
#pragma once

#include "graph/layer.h"
#include "import/onnx_structure.h"

#include <onnx/onnx_pb.h>

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace opsched::onnx_import {

enum class PatternKind : std::uint8_t { LayerNorm, RmsNorm, Gelu, Linear };

struct PatternMatch {
    PatternKind kind = PatternKind::Gelu;
    std::vector<std::size_t> members; // node positions, in topological order
    std::string input; // the activation it reads
    std::string output; // the value it defines (the last member's output)
    // LayerNorm / RmsNorm: the reduced axes (trailing), epsilon, the constant scale and bias ("": none).
    std::vector<std::int64_t> axes;
    float epsilon = 0.0F;
    std::string scale, bias;
    // Gelu: which form. Linear: its activation (None or a GELU), or the ONNX activation node it
    // ends with (Relu, Clip, ...: activationNode).
    Activation activation;
    std::optional<std::size_t> activationNode;
    std::string weight; // Linear: the constant right operand of the MatMul
    std::size_t tail() const { return members.back(); }
};

// What the finder needs to know about the graph: constant values by name (statically known
// Constant nodes and initializers only), and how often each value is read.
struct PatternInputs {
    const onnx::GraphProto& graph;
    const std::vector<NodeRef>& nodes;
    const std::unordered_set<std::string>& constants; // every value that folds
    const std::unordered_map<std::string, int>& consumers; // reads, plus one per graph output
    const std::vector<int>& taken; // per node: already in a Conv chain (>= 0)
    const std::vector<bool>& dropped; // bypassed Identity/Dropout nodes
};

// Non-overlapping matches, each member read only inside its match (but the last).
std::vector<PatternMatch> findTransformerPatterns(const PatternInputs& in);

} // namespace opsched::onnx_import
