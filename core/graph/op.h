// A schedulable operator: one unit for the schedulers (a fused conv, a compound such as
// Relu-SepConv, a pool, a concat).
#pragma once

#include "graph/layer.h"
#include "util/index.h"

#include <cstdint>
#include <string>
#include <vector>

namespace opsched {

// What a person sees as the op's type. Compounds are named as in the IOS paper's Table 2.
enum class OpKind : std::uint8_t {
    Conv, // conv (+ bias + activation)
    ReluConv, // relu -> conv
    SepConv, // depthwise conv -> pointwise conv
    ReluSepConv, // relu -> depthwise conv -> pointwise conv
    Pool, // max / average / global pooling
    Activation, // standalone activation
    Add, // element-wise sum of inputs
    Multiply, // element-wise product of inputs
    Subtract,
    Divide,
    Concat, // channel concat (of sums), or concat on another axis
    MatMul,
    Slice, // slice / one output of a split
    Transpose,
    Pad,
    Reduce,
    BatchNorm,
    Gemm, // fully connected / matmul
    Softmax,
    Reshape, // reshape / flatten
    Identity,
    LayerNorm, // layer normalisation (or RMS norm)
    Gelu, // GELU (erf or tanh form), recognised from its pattern
    Gather, // embedding lookup or constant-index gather
    Compare, // equal / less / greater: a 0/1 mask
    Where, // select by a mask
    Expand, // broadcast copy
    Math, // other element-wise math (pow, min, max, erf, sqrt, ...)
    Resize, // nearest / linear / cubic resampling (Resize, Upsample)
    ConvTranspose, // transposed convolution (+ bias + activation)
    Lrn, // local response normalisation across channels
    Recurrent, // one direction of an RNN, GRU or LSTM over its sequence
};

// The last OpKind: views loop over every kind up to it (legends, colour classes).
inline constexpr OpKind kLastOpKind = OpKind::Recurrent;

const char* toString(OpKind k);

// The inputs of an op form terms: the tensors of a term are summed element-wise and the terms are
// concatenated along channels, and the result feeds the first layer (the IOS unit input). A plain
// op has one term holding one tensor. Multiply takes each term as one operand.
using InputTerm = std::vector<TensorId>;

using OpCost = Cost;

struct Op {
    OpId id;
    std::string name;
    OpKind kind = OpKind::Identity;
    std::vector<InputTerm> inputs;
    std::vector<Layer> layers;
    TensorId output;
    OpCost cost;

    // Every distinct tensor the op reads (activations only, not weights), in term order.
    std::vector<TensorId> inputTensors() const;
    const Layer& lastLayer() const { return layers.back(); }
};

} // namespace opsched
