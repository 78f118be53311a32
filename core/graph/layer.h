// The primitive computations inside a schedulable op. An op is a short chain of layers that the
// schedulers treat as one unit (IOS: Conv-Relu, Relu-SepConv), so a fused kernel or a compound is
// still one thing to place on a stream.
#pragma once

#include "graph/shape.h"
#include "util/index.h"

#include <array>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace opsched {

// Element-wise functions: fused after a layer, or a standalone Eltwise. Boolean masks of imported
// models are 0/1 floats, so Not, NonZero and Truncate (a cast to an integer type) are functions too.
enum class ActivationKind : std::uint8_t {
    None,
    Relu,
    Clip,
    Sigmoid,
    HardSigmoid,
    HardSwish,
    Tanh,
    Gelu, // x * Phi(x), the erf form
    GeluTanh, // 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
    Erf,
    Sqrt,
    Exp,
    Log,
    Abs,
    Neg,
    Reciprocal,
    Pow, // x ^ alpha
    Not, // 1 where x == 0, else 0
    NonZero, // 1 where x != 0, else 0 (a cast to bool)
    Truncate, // toward zero (a cast from float to an integer type)
    LeakyRelu, // x < 0: alpha x
    Elu, // x < 0: alpha (exp(x) - 1)
    Selu, // beta (x < 0: alpha (exp(x) - 1)), ONNX's gamma as beta
    Celu, // x < 0: alpha (exp(x / alpha) - 1)
    Softplus, // log(1 + exp(x))
    Softsign, // x / (1 + |x|)
    Mish, // x tanh(softplus(x))
    ThresholdedRelu, // x > alpha: x, else 0
    Floor,
    Ceil,
    Round, // to the nearest, halves to even (ONNX's Round)
    Sign, // -1, 0 or 1
    Sin,
    Cos,
};

struct Activation {
    ActivationKind kind = ActivationKind::None;
    float alpha = 0.0F; // Clip: min, HardSigmoid/LeakyRelu/Elu/Selu/Celu/ThresholdedRelu: alpha, Pow: exponent
    float beta = 0.0F; // Clip: max, HardSigmoid: beta, Selu: gamma

    static Activation none() { return {}; }
    static Activation relu() { return { ActivationKind::Relu }; }
    static Activation relu6() { return { ActivationKind::Clip, 0.0F, 6.0F }; }

    friend bool operator==(const Activation&, const Activation&) = default;
};

const char* toString(ActivationKind k);

// A convolution over NCHW, or over NCDHW (video, volumes) when the input has 5 dimensions: the
// depth fields are then the third spatial axis' (1 and 0 for 2-D convolutions).
struct Conv2d {
    std::int64_t outChannels = 0;
    std::int64_t kernelH = 1, kernelW = 1;
    std::int64_t strideH = 1, strideW = 1;
    std::int64_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
    std::int64_t dilationH = 1, dilationW = 1;
    std::int64_t groups = 1;
    bool bias = true;
    std::int64_t kernelD = 1, strideD = 1, padFront = 0, padBack = 0, dilationD = 1;
    friend bool operator==(const Conv2d&, const Conv2d&) = default;
};

enum class PoolKind : std::uint8_t { Max, Average, GlobalAverage, GlobalMax };
const char* toString(PoolKind k);

struct Pool2d {
    PoolKind kind = PoolKind::Max;
    std::int64_t kernelH = 1, kernelW = 1;
    std::int64_t strideH = 1, strideW = 1;
    std::int64_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
    bool countIncludePad = false;
    bool ceilMode = false;
    friend bool operator==(const Pool2d&, const Pool2d&) = default;
};

// A standalone activation (the first step of Relu-SepConv, or an unfused ONNX activation).
struct Eltwise {
    Activation activation;
    friend bool operator==(const Eltwise&, const Eltwise&) = default;
};

// Element-wise product of the op's input terms (with NumPy broadcasting).
struct Multiply {
    friend bool operator==(const Multiply&, const Multiply&) = default;
};

// Fully connected: [N, K] x [K, outFeatures] (+ bias). Flattens NCHW input implicitly.
struct Gemm {
    std::int64_t outFeatures = 0;
    bool bias = true;
    friend bool operator==(const Gemm&, const Gemm&) = default;
};

struct Softmax {
    int axis = 1;
    bool log = false; // LogSoftmax: x - max - log(sum(exp(x - max)))
    friend bool operator==(const Softmax&, const Softmax&) = default;
};

// Keeps dims [0, axis) and flattens the rest into one.
struct Flatten {
    int axis = 1;
    friend bool operator==(const Flatten&, const Flatten&) = default;
};

// ONNX semantics: 0 copies the input dimension, -1 is inferred. Dimension 0 is normally 0 so the
// batch can change after import.
struct Reshape {
    std::vector<std::int64_t> target;
    friend bool operator==(const Reshape&, const Reshape&) = default;
};

// The layers below come from imported models. Operand layers (Binary, MatMul, Concat) take the
// op's terms as separate operands (one tensor per term), followed by the layer's constant weights,
// instead of the summed-and-concatenated input; they are always an op's first layer.

// Comparisons give 0/1 floats (ONNX's booleans).
// PRelu: x < 0 ? slope x : x, the slope (second operand) broadcast to x.
enum class BinaryKind : std::uint8_t { Add, Sub, Mul, Div, Pow, Min, Max, Equal, Less, Greater, PRelu };
const char* toString(BinaryKind k);

// Element-wise operation folded left to right over the operands, with NumPy broadcasting.
// constantFirst: the layer's one weight is the left operand (c - x, c / x), not the last.
struct Binary {
    BinaryKind kind = BinaryKind::Add;
    bool constantFirst = false;
    friend bool operator==(const Binary&, const Binary&) = default;
};

// Normalisation over the dimensions from `axis` to the last (ONNX LayerNormalization, and the
// ReduceMean/Sub/Pow/Sqrt/Div pattern older exporters write). Weights: scale, then bias when
// `bias`, each of the normalised dimensions. rms: no mean subtracted (T5's RMS norm).
struct LayerNorm {
    int axis = -1;
    float epsilon = 1e-5F;
    bool bias = true;
    bool rms = false;
    friend bool operator==(const LayerNorm&, const LayerNorm&) = default;
};

// ONNX Gather along `axis`, an operand layer. Embedding form (dataIsWeight): the op's one term
// holds the indices (token ids as integer-valued floats) and the layer's one weight is the table.
// Otherwise the op's first term is the data; the indices are its second term (computed, as
// integer-valued floats) or, with one term, constants held here. `elements`: ONNX
// GatherElements, the output shaped as the indices, each replacing its own coordinate on `axis`.
struct Gather {
    int axis = 0;
    bool dataIsWeight = false;
    bool elements = false;
    std::vector<std::int64_t> indices; // constant indices (not the embedding form)
    std::vector<std::int64_t> indicesDims; // their shape (empty: a scalar index)
    friend bool operator==(const Gather&, const Gather&) = default;
};

// ONNX Where: condition ? x : y with broadcasting, an operand layer. `operand` indexes the
// operands (the op's terms, then the layer's weights) for the condition, x and y.
struct Where {
    std::array<std::int8_t, 3> operand { 0, 1, 2 };
    friend bool operator==(const Where&, const Where&) = default;
};

// ONNX Expand: the input broadcast to `shape` (NumPy rules, the output may also grow in rank).
struct Expand {
    std::vector<std::int64_t> shape;
    friend bool operator==(const Expand&, const Expand&) = default;
};

// [..., M, K] x [..., K, N] with broadcasting over leading dimensions (ONNX MatMul). bias: the
// last weight is a bias of N values added to every row (a Linear layer: MatMul then Add).
struct MatMul {
    bool bias = false;
    friend bool operator==(const MatMul&, const MatMul&) = default;
};

// Concatenation of the operands along an axis other than channels (channel concat is the op's
// input combination).
struct Concat {
    int axis = 1;
    // The order the operands (terms, then weights) are concatenated in; empty: as they come. A
    // constant before an activation (ViT's class token) needs it.
    std::vector<std::int8_t> order;
    friend bool operator==(const Concat&, const Concat&) = default;
};

// ONNX Slice: per listed axis, elements start, start+step, ... before end (ends clamped).
struct Slice {
    std::vector<std::int64_t> starts, ends, axes, steps;
    friend bool operator==(const Slice&, const Slice&) = default;
};

struct Transpose {
    std::vector<std::int64_t> perm;
    friend bool operator==(const Transpose&, const Transpose&) = default;
};

enum class PadMode : std::uint8_t { Constant, Reflect, Edge };

// ONNX Pad: pads = [begin_0, ..., begin_n-1, end_0, ..., end_n-1].
struct Pad {
    std::vector<std::int64_t> pads;
    PadMode mode = PadMode::Constant;
    float value = 0.0F;
    friend bool operator==(const Pad&, const Pad&) = default;
};

// ArgMax and ArgMin give the index (as an integer-valued float) along their one axis.
// L1 = sum |x|, L2 = sqrt(sum x^2), SumSquare = sum x^2 (ONNX's ReduceL1, ReduceL2, ReduceSumSquare).
// TopK keeps the k largest (or smallest) along its one axis, best first, the lower index first
// among equal values (ONNX's TopK): their values, or their indices with `indices`.
enum class ReduceKind : std::uint8_t { Mean, Sum, Max, ArgMax, ArgMin, Min, Prod, L1, L2, SumSquare, TopK };

struct Reduce {
    ReduceKind kind = ReduceKind::Mean;
    std::vector<std::int64_t> axes; // empty: all axes
    bool keepDims = true;
    bool selectLast = false; // ArgMax/ArgMin: the last of equal extremes, not the first
    std::int64_t k = 0; // TopK: how many (the axis' size in the output)
    bool largest = true; // TopK: the largest, else the smallest
    bool indices = false; // TopK: their indices (integer-valued floats), else their values
    friend bool operator==(const Reduce&, const Reduce&) = default;
};

// Inference batch normalisation that could not be folded into a conv. Weights: scale, bias,
// mean, variance, each [C].
struct BatchNorm {
    float epsilon = 1e-5F;
    friend bool operator==(const BatchNorm&, const BatchNorm&) = default;
};

// ONNX ConvTranspose on NCHW (a convolution's gradient with respect to its input). Weights:
// [C_in, outChannels / groups, kernelH, kernelW] as ONNX stores them, then the bias. Output size
// per axis: (in - 1) * stride + (kernel - 1) * dilation + 1 - padBegin - padEnd + outputPadding.
struct ConvTranspose2d {
    std::int64_t outChannels = 0;
    std::int64_t kernelH = 1, kernelW = 1;
    std::int64_t strideH = 1, strideW = 1;
    std::int64_t padTop = 0, padLeft = 0, padBottom = 0, padRight = 0;
    std::int64_t dilationH = 1, dilationW = 1;
    std::int64_t outputPaddingH = 0, outputPaddingW = 0;
    std::int64_t groups = 1;
    bool bias = true;
    // Over NCDHW (5-D input, weights [C_in, outChannels / groups, kD, kH, kW]): the depth axis'.
    std::int64_t kernelD = 1, strideD = 1, padFront = 0, padBack = 0, dilationD = 1, outputPaddingD = 0;
    friend bool operator==(const ConvTranspose2d&, const ConvTranspose2d&) = default;
};

enum class ResizeMode : std::uint8_t { Nearest, Linear, Cubic };
// ONNX's coordinate_transformation_mode: where output coordinate x lands in the input.
enum class ResizeCoordinates : std::uint8_t {
    HalfPixel, // (x + 0.5) / scale - 0.5
    HalfPixelSymmetric, // half_pixel, centred when the output size was rounded
    PytorchHalfPixel, // half_pixel, 0 when the output has one element
    AlignCorners, // x * (in - 1) / (out - 1)
    Asymmetric, // x / scale
    TfHalfPixelForNn, // (x + 0.5) / scale
    TfCropAndResize, // roi start * (in - 1) + x * (end - start) * (in - 1) / (out - 1); outside: 0 weight
};
// ONNX's nearest_mode: how a coordinate between two input elements picks one.
enum class NearestRounding : std::uint8_t { RoundPreferFloor, RoundPreferCeil, Floor, Ceil };
const char* toString(ResizeMode m);
const char* toString(ResizeCoordinates c);
const char* toString(NearestRounding r);

// ONNX Resize and Upsample: every axis of the input resampled to `sizes` (0: the input's size,
// scale 1; the batch follows the input that way). `scales` are the factors the coordinate
// transform uses: ONNX's scales when given, else output / input size.
struct Resize {
    ResizeMode mode = ResizeMode::Nearest;
    ResizeCoordinates coordinates = ResizeCoordinates::HalfPixel;
    NearestRounding rounding = NearestRounding::RoundPreferFloor;
    float cubicA = -0.75F;
    bool excludeOutside = false; // cubic: weights outside the input dropped and renormalised
    std::vector<std::int64_t> sizes;
    std::vector<float> scales;
    bool sizesGiven = false; // the model gave sizes: the transform scales by out / in exactly
    // TfCropAndResize: per axis the crop's normalised start and end (empty: 0 and 1). A position
    // outside the input gets no taps' weight (0); the importer adds the extrapolation value.
    std::vector<float> roiStart, roiEnd;
    friend bool operator==(const Resize&, const Resize&) = default;
};

// Local response normalisation across channels (ONNX's LRN, AlexNet- and GoogLeNet-era networks):
// x / (bias + alpha / size * sum of x^2 over channels c - (size - 1) / 2 ... c + size / 2)^beta.
struct Lrn {
    std::int64_t size = 5;
    float alpha = 1e-4F, beta = 0.75F, bias = 1.0F;
    friend bool operator==(const Lrn&, const Lrn&) = default;
};

// One direction of ONNX's RNN, GRU or LSTM over its whole sequence, as one op (an operand layer).
// Operands: the input projection x W^T + biases of every step, [T, B, gates x hidden] ([B, T, ...]
// when batchFirst), gates in ONNX's order (LSTM i, o, f, c; GRU z, r, h); then the initial h
// (initialH) and the initial c (initialC), [B, hidden] as dense data; without them the state
// starts at zero. Weights: R^T [hidden, gates x hidden]; then R's bias of the hidden gate [hidden]
// when linearBeforeReset (GRU); then the peepholes i, o, f [3 x hidden] when peepholes (LSTM).
// The output is h of every step, [T, B, hidden] (or [B, T, hidden]), in time order, or with
// cellStates (LSTM) c of every step; reverse runs from the last step to the first.
enum class RecurrentCell : std::uint8_t { Rnn, Gru, Lstm };
const char* toString(RecurrentCell c);

struct Recurrent {
    RecurrentCell cell = RecurrentCell::Lstm;
    std::int64_t hidden = 0;
    bool reverse = false;
    bool batchFirst = false;
    bool initialH = false, initialC = false;
    bool linearBeforeReset = false; // GRU: r * (h R_h + Rb_h) instead of (r * h) R_h + Rb_h
    bool inputForget = false; // LSTM: f = 1 - i
    bool peepholes = false; // LSTM
    bool cellStates = false; // LSTM: the output is c of every step (for ONNX's Y_c), not h
    // f, g, h of ONNX's activations (RNN uses f; GRU f and g; LSTM all three).
    std::array<Activation, 3> functions { Activation { ActivationKind::Sigmoid }, Activation { ActivationKind::Tanh },
        Activation { ActivationKind::Tanh } };
    float clip = 0.0F; // > 0: every function's input clipped to [-clip, clip]
    int gates() const { return cell == RecurrentCell::Rnn ? 1 : cell == RecurrentCell::Gru ? 3 : 4; }
    friend bool operator==(const Recurrent&, const Recurrent&) = default;
};

// Where each operand of a Recurrent layer sits in its operand list (terms, then weights); -1:
// absent. count: how many there are.
struct RecurrentOperands {
    int projection = 0, initialH = -1, initialC = -1, recurrence = -1, hiddenBias = -1, peepholes = -1, count = 0;
};
RecurrentOperands recurrentOperands(const Recurrent& r);

// Passes its input through: the op's input combination (sum / concat) is all the work there is.
struct Identity {
    friend bool operator==(const Identity&, const Identity&) = default;
};

using LayerParams = std::variant<Conv2d, Pool2d, Eltwise, Multiply, Gemm, Softmax, Flatten, Reshape, Identity, Binary,
    MatMul, Concat, Slice, Transpose, Pad, Reduce, BatchNorm, LayerNorm, Gather, Where, Expand, ConvTranspose2d, Resize,
    Lrn, Recurrent>;

// Work of one layer or one op. Multiply-adds count as 2 FLOPs.
struct Cost {
    double flops = 0;
    double bytesRead = 0; // inputs + weights
    double bytesWritten = 0; // output
    double bytes() const { return bytesRead + bytesWritten; }
};

struct Layer {
    LayerParams params;
    Activation activation; // fused post-activation
    std::vector<TensorId> weights; // filled by the graph builder (seeded) or the importer
    Shape output; // filled by shape inference
    Cost cost; // filled with the op's cost; a compound's layers run as separate kernels

    const char* kindName() const;
    // Conv, ConvTranspose, Gemm, BatchNorm and LayerNorm weights have shapes the layer defines (and
    // zoo networks seed).
    bool needsWeights() const;
    // Binary, MatMul, Concat, Gather, Where and Recurrent read the op's terms as operands (see above).
    bool takesOperands() const;
};

} // namespace opsched
