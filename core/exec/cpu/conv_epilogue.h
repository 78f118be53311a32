// Element-wise ops the CPU executor folds into the op before them, as oneDNN post-ops: a residual
// sum (Add of a convolution's output and an earlier tensor, then its activation, as in ResNet and
// the inverted-residual blocks), SiLU / swish (x * sigmoid(x) over a convolution's output, as in
// EfficientNet), HardSwish (x * hardsigmoid(x) after any op, as PyTorch exports MobileNetV3's
// Hardswish at opset 13), and a lone activation op after any op without one (DenseNet's
// BatchNorm -> Relu). The op then writes the last folded op's output itself; the folded ops' launches do
// nothing. Folded only when the plan guarantees the residual is ready when the convolution
// starts, the intermediate tensors have no other reader, and nothing is merged. Internal to the
// CPU backend.
#pragma once

#include "graph/graph.h"
#include "plan/plan.h"

#include <vector>

namespace opsched::cpu {

struct ConvEpilogue {
    OpId conv; // the op whose last layer runs it: a convolution, except for a lone activation
    std::vector<OpId> absorbed; // ops that then run nothing
    TensorId output; // what the convolution writes: the last absorbed op's output
    TensorId addend; // a residual added after the convolution (and swish); invalid: none
    bool swish = false; // x * sigmoid(x) after the convolution's own activation
    Activation after; // applied last (the Add's activation)
};

// At most one per op. `enabled` false: none.
std::vector<ConvEpilogue> convEpilogues(const Graph& graph, const Plan& plan, bool enabled = true);

} // namespace opsched::cpu
