#include "graph/layer.h"
#include "graph/op.h"

#include <algorithm>

namespace opsched {

const char* toString(ActivationKind k)
{
    switch (k) {
    case ActivationKind::None:
        return "none";
    case ActivationKind::Relu:
        return "relu";
    case ActivationKind::Clip:
        return "clip";
    case ActivationKind::Sigmoid:
        return "sigmoid";
    case ActivationKind::HardSigmoid:
        return "hardsigmoid";
    case ActivationKind::HardSwish:
        return "hardswish";
    case ActivationKind::Tanh:
        return "tanh";
    case ActivationKind::Gelu:
        return "gelu";
    case ActivationKind::GeluTanh:
        return "gelu_tanh";
    case ActivationKind::Erf:
        return "erf";
    case ActivationKind::Sqrt:
        return "sqrt";
    case ActivationKind::Exp:
        return "exp";
    case ActivationKind::Log:
        return "log";
    case ActivationKind::Abs:
        return "abs";
    case ActivationKind::Neg:
        return "neg";
    case ActivationKind::Reciprocal:
        return "reciprocal";
    case ActivationKind::Pow:
        return "pow";
    case ActivationKind::Not:
        return "not";
    case ActivationKind::NonZero:
        return "nonzero";
    case ActivationKind::Truncate:
        return "truncate";
    case ActivationKind::Floor:
        return "floor";
    case ActivationKind::Ceil:
        return "ceil";
    case ActivationKind::Round:
        return "round";
    case ActivationKind::Sign:
        return "sign";
    case ActivationKind::Sin:
        return "sin";
    case ActivationKind::Cos:
        return "cos";
    case ActivationKind::LeakyRelu:
        return "leakyrelu";
    case ActivationKind::Elu:
        return "elu";
    case ActivationKind::Selu:
        return "selu";
    case ActivationKind::Celu:
        return "celu";
    case ActivationKind::Softplus:
        return "softplus";
    case ActivationKind::Softsign:
        return "softsign";
    case ActivationKind::Mish:
        return "mish";
    case ActivationKind::ThresholdedRelu:
        return "thresholdedrelu";
    }
    return "unknown";
}

const char* toString(ResizeMode m)
{
    switch (m) {
    case ResizeMode::Nearest:
        return "nearest";
    case ResizeMode::Linear:
        return "linear";
    case ResizeMode::Cubic:
        return "cubic";
    }
    return "unknown";
}

const char* toString(ResizeCoordinates c)
{
    switch (c) {
    case ResizeCoordinates::HalfPixel:
        return "half_pixel";
    case ResizeCoordinates::HalfPixelSymmetric:
        return "half_pixel_symmetric";
    case ResizeCoordinates::PytorchHalfPixel:
        return "pytorch_half_pixel";
    case ResizeCoordinates::AlignCorners:
        return "align_corners";
    case ResizeCoordinates::Asymmetric:
        return "asymmetric";
    case ResizeCoordinates::TfHalfPixelForNn:
        return "tf_half_pixel_for_nn";
    case ResizeCoordinates::TfCropAndResize:
        return "tf_crop_and_resize";
    }
    return "unknown";
}

const char* toString(NearestRounding r)
{
    switch (r) {
    case NearestRounding::RoundPreferFloor:
        return "round_prefer_floor";
    case NearestRounding::RoundPreferCeil:
        return "round_prefer_ceil";
    case NearestRounding::Floor:
        return "floor";
    case NearestRounding::Ceil:
        return "ceil";
    }
    return "unknown";
}

const char* toString(PoolKind k)
{
    switch (k) {
    case PoolKind::Max:
        return "max";
    case PoolKind::Average:
        return "avg";
    case PoolKind::GlobalAverage:
        return "global_avg";
    case PoolKind::GlobalMax:
        return "global_max";
    }
    return "unknown";
}

const char* toString(OpKind k)
{
    switch (k) {
    case OpKind::Conv:
        return "Conv";
    case OpKind::ReluConv:
        return "ReluConv";
    case OpKind::SepConv:
        return "SepConv";
    case OpKind::ReluSepConv:
        return "ReluSepConv";
    case OpKind::Pool:
        return "Pool";
    case OpKind::Activation:
        return "Activation";
    case OpKind::Add:
        return "Add";
    case OpKind::Multiply:
        return "Multiply";
    case OpKind::Subtract:
        return "Sub";
    case OpKind::Divide:
        return "Div";
    case OpKind::Concat:
        return "Concat";
    case OpKind::MatMul:
        return "MatMul";
    case OpKind::Slice:
        return "Slice";
    case OpKind::Transpose:
        return "Transpose";
    case OpKind::Pad:
        return "Pad";
    case OpKind::Reduce:
        return "Reduce";
    case OpKind::BatchNorm:
        return "BatchNorm";
    case OpKind::Gemm:
        return "Gemm";
    case OpKind::Softmax:
        return "Softmax";
    case OpKind::Reshape:
        return "Reshape";
    case OpKind::Identity:
        return "Identity";
    case OpKind::LayerNorm:
        return "LayerNorm";
    case OpKind::Gelu:
        return "Gelu";
    case OpKind::Gather:
        return "Gather";
    case OpKind::Compare:
        return "Compare";
    case OpKind::Where:
        return "Where";
    case OpKind::Expand:
        return "Expand";
    case OpKind::Resize:
        return "Resize";
    case OpKind::ConvTranspose:
        return "ConvTranspose";
    case OpKind::Lrn:
        return "LRN";
    case OpKind::Recurrent:
        return "Recurrent";
    case OpKind::Math:
        return "Math";
    }
    return "unknown";
}

const char* Layer::kindName() const
{
    struct Visitor {
        const char* operator()(const Conv2d&) const { return "conv2d"; }
        const char* operator()(const Pool2d&) const { return "pool2d"; }
        const char* operator()(const Eltwise&) const { return "eltwise"; }
        const char* operator()(const Multiply&) const { return "multiply"; }
        const char* operator()(const Gemm&) const { return "gemm"; }
        const char* operator()(const Softmax&) const { return "softmax"; }
        const char* operator()(const Flatten&) const { return "flatten"; }
        const char* operator()(const Reshape&) const { return "reshape"; }
        const char* operator()(const Identity&) const { return "identity"; }
        const char* operator()(const Binary& b) const { return toString(b.kind); }
        const char* operator()(const MatMul&) const { return "matmul"; }
        const char* operator()(const Concat&) const { return "concat"; }
        const char* operator()(const Slice&) const { return "slice"; }
        const char* operator()(const Transpose&) const { return "transpose"; }
        const char* operator()(const Pad&) const { return "pad"; }
        const char* operator()(const Reduce&) const { return "reduce"; }
        const char* operator()(const BatchNorm&) const { return "batchnorm"; }
        const char* operator()(const LayerNorm& l) const { return l.rms ? "rmsnorm" : "layernorm"; }
        const char* operator()(const Gather& g) const { return g.dataIsWeight ? "embedding" : "gather"; }
        const char* operator()(const Where&) const { return "where"; }
        const char* operator()(const Expand&) const { return "expand"; }
        const char* operator()(const ConvTranspose2d&) const { return "convtranspose2d"; }
        const char* operator()(const Resize&) const { return "resize"; }
        const char* operator()(const Lrn&) const { return "lrn"; }
        const char* operator()(const Recurrent& r) const { return toString(r.cell); }
    };
    return std::visit(Visitor {}, params);
}

bool Layer::needsWeights() const
{
    return std::holds_alternative<Conv2d>(params) || std::holds_alternative<ConvTranspose2d>(params)
        || std::holds_alternative<Gemm>(params) || std::holds_alternative<BatchNorm>(params)
        || std::holds_alternative<LayerNorm>(params);
}

bool Layer::takesOperands() const
{
    return std::holds_alternative<Binary>(params) || std::holds_alternative<MatMul>(params)
        || std::holds_alternative<Concat>(params) || std::holds_alternative<Where>(params)
        || std::holds_alternative<Gather>(params) || std::holds_alternative<Recurrent>(params);
}

RecurrentOperands recurrentOperands(const Recurrent& r)
{
    RecurrentOperands o;
    int next = 1;
    if (r.initialH)
        o.initialH = next++;
    if (r.initialC)
        o.initialC = next++;
    o.recurrence = next++;
    if (r.linearBeforeReset)
        o.hiddenBias = next++;
    if (r.peepholes)
        o.peepholes = next++;
    o.count = next;
    return o;
}

const char* toString(RecurrentCell c)
{
    switch (c) {
    case RecurrentCell::Rnn:
        return "rnn";
    case RecurrentCell::Gru:
        return "gru";
    case RecurrentCell::Lstm:
        return "lstm";
    }
    return "unknown";
}

const char* toString(BinaryKind k)
{
    switch (k) {
    case BinaryKind::Add:
        return "add";
    case BinaryKind::Sub:
        return "sub";
    case BinaryKind::Mul:
        return "mul";
    case BinaryKind::Div:
        return "div";
    case BinaryKind::Pow:
        return "pow";
    case BinaryKind::Min:
        return "min";
    case BinaryKind::Max:
        return "max";
    case BinaryKind::Equal:
        return "equal";
    case BinaryKind::Less:
        return "less";
    case BinaryKind::Greater:
        return "greater";
    case BinaryKind::PRelu:
        return "prelu";
    }
    return "unknown";
}

std::vector<TensorId> Op::inputTensors() const
{
    std::vector<TensorId> out;
    for (const auto& term : inputs)
        for (auto t : term)
            if (std::find(out.begin(), out.end(), t) == out.end())
                out.push_back(t);
    return out;
}

} // namespace opsched
