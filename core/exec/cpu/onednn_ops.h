// oneDNN primitives for the CPU executor, built once per plan with their arguments bound to fixed
// addresses (arena slices, weights reordered once into the layout each primitive prefers), so a
// run only walks the list and executes. Internal to the CPU backend.
#pragma once

#include "exec/cpu/tensor_views.h"
#include "graph/layer.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace opsched::cpu {

// Float32 data at a fixed address. Dense row-major (NCHW) unless strides are given (channel
// slices, channels-last bytes).
struct Operand {
    float* data = nullptr;
    std::vector<std::int64_t> dims;
    std::vector<std::int64_t> strides; // in elements; empty: dense

    // The same bytes under other dims: dense operands any way, strided ones only with the same
    // dims or leading 1s added (throws Error otherwise, never reads bytes in the wrong order).
    Operand reshaped(std::vector<std::int64_t> newDims) const;
};

// A primitive with bound arguments, or host code (zero fills) in its place.
struct Step {
    dnnl::primitive primitive;
    std::unordered_map<int, dnnl::memory> args;
    std::function<void()> host;
    std::vector<dnnl_exec_arg_t> execArgs; // `args` for the C API, once they are all bound
    // What runs: oneDNN's implementation name ("brg:avx512_core", "jit:avx2", "ref:any") with the
    // primitive's kind before it ("convolution jit:avx2"), or "host" for host code.
    std::string implementation;

    // Builds execArgs; call after the last argument is bound.
    void freezeArgs();
    // Runs the step on `stream` (host code waits for the stream first).
    void run(dnnl::stream& stream);
};

// What a convolution does after its own activation: swish, a residual added, an activation.
struct ConvTail {
    bool swish = false;
    const Operand* addend = nullptr;
    Activation after;
};

class PrimitiveBuilder {
public:
    explicit PrimitiveBuilder(const dnnl::engine& engine)
        : engine_(engine)
    {
    }

    // Whether 3x3 stride-1 convolutions large enough to gain run as Winograd convolutions
    // (slightly larger rounding error than direct ones; off: direct everywhere).
    void setWinograd(bool on) { winograd_ = on; }
    // Whether a reference kernel oneDNN offers first is replaced by another layout's JIT kernel
    // (off: oneDNN's first choice, for showing that the kernel audit notices reference kernels).
    void setAvoidReference(bool on) { avoidReference_ = on; }

    // Conv2d with optional bias and the fused activation as post-ops; weights are
    // [outChannels, inChannels / groups, kernelH, kernelW].
    // `tail` runs as post-ops where oneDNN's direct kernel takes them, else as steps after it.
    void conv(const Conv2d& c, const Operand& src, const Operand& dst, const std::vector<float>& weights,
        const std::vector<float>* bias, const Activation& act, const ConvTail& tail = {});
    // `padded`: the zero-padded copy of src that paddedPoolInputDims asked for, or null.
    void pool(const Pool2d& p, const Operand& src, const Operand& dst, const Operand* padded, const Activation& act);
    // Transposed convolution (oneDNN deconvolution) with ONNX's [C_in, C_out / groups, kH, kW] weights.
    void convTranspose(const ConvTranspose2d& c, const Operand& src, const Operand& dst,
        const std::vector<float>& weights, const std::vector<float>* bias, const Activation& act);
    // Resampling by the layer's tap tables (resize_taps.h), in host code on dense operands.
    void resize(const Resize& r, const Operand& src, const Operand& dst, const Activation& act);
    // Applies the activations one after another; a plain copy when there are none.
    void eltwise(const Operand& src, const Operand& dst, const std::vector<Activation>& acts);
    // src flattened to [N, K] times weights [outFeatures, K] (+ bias).
    void innerProduct(const Operand& src, const Operand& dst, const std::vector<float>& weights,
        const std::vector<float>* bias, const Activation& act);
    void softmax(const Softmax& s, const Operand& src, const Operand& dst, const Activation& act);
    // LRN across channels (oneDNN's lrn_forward; dst in src's layout).
    void lrn(const Lrn& l, const Operand& src, const Operand& dst, const Activation& act);
    // Product of the operands with NumPy broadcasting into dst (which has the broadcast shape).
    void multiply(const std::vector<Operand>& operands, const Operand& dst, const Activation& act);
    void sum(const std::vector<Operand>& srcs, const Operand& dst);
    void concat(const std::vector<Operand>& srcs, const Operand& dst, int axis);
    void copy(const Operand& src, const Operand& dst);

    // Layers of imported models (onednn_tensor_ops.cpp). Every one applies `act` after itself.
    // The kind folded left to right over the operands, with NumPy broadcasting, into dst.
    void binary(BinaryKind kind, const std::vector<Operand>& operands, const Operand& dst, const Activation& act);
    // ONNX MatMul (1-D operands promoted, batch dimensions broadcast). `constantB`: b's values
    // when b is a weight, reordered once into the layout oneDNN prefers.
    // `bias`: values added to each row of the result (a Linear layer), or null.
    void matmul(const Operand& a, const Operand& b, const std::vector<float>* constantB, const Operand& dst,
        const Activation& act, const std::vector<float>* bias = nullptr);
    // dst has src's rank, with 1 on the reduced axes.
    void reduce(ReduceKind kind, const Operand& src, const Operand& dst, const Activation& act);
    // ArgMax / ArgMin along the layer's one axis (host code on dense operands).
    void argExtreme(const Reduce& r, const Operand& src, const Operand& dst, const Activation& act);
    // TopK's values or indices along the layer's one axis (host code on dense operands).
    void topK(const Reduce& r, const Operand& src, const Operand& dst, const Activation& act);
    // Inference batch normalisation over axis 1, per-channel parameters of dst.dims[1] values.
    void batchNorm(const Operand& src, const Operand& dst, const std::vector<float>& scale,
        const std::vector<float>& shift, const std::vector<float>& mean, const std::vector<float>& variance,
        float epsilon, const Activation& act);
    // The view of `base` (slice, transpose) copied into dense dst: a reorder, or host code when a
    // stride is negative (oneDNN memory descriptors have none).
    void gather(const float* base, const StridedView& view, const Operand& dst, const Activation& act);
    void pad(const Pad& p, const Operand& src, const Operand& dst, const Activation& act);
    // The activation applied to dst in place (nothing for none).
    void activate(const Operand& dst, const Activation& act);
    // Layers transformers bring (onednn_transformer_ops.cpp). Every one applies `act` after itself.
    // Normalisation over the dimensions from `axis` on (layer norm, or RMS norm when l.rms).
    void layerNorm(const LayerNorm& l, const Operand& src, const Operand& dst, const std::vector<float>& scale,
        const std::vector<float>* bias, const Activation& act);
    // Rows of the table (a constant) by the ids in `ids` (integer-valued floats).
    void embedding(const Operand& ids, const std::vector<float>& table, const std::vector<std::int64_t>& tableDims,
        int axis, const Operand& dst, const Activation& act);
    // Gather and GatherElements from an activation: constant indices held by the layer, or
    // computed ones (`ids`, integer-valued floats, checked when they arrive).
    void gatherIndices(const Gather& g, const Operand& src, const Operand& dst, const Activation& act);
    void gatherComputed(
        const Gather& g, const Operand& src, const Operand& ids, const Operand& dst, const Activation& act);
    void where(const Operand& cond, const Operand& x, const Operand& y, const Operand& dst, const Activation& act);
    void expand(const Operand& src, const Operand& dst, const Activation& act);
    // One direction of an RNN, GRU or LSTM over its sequence: operands as Recurrent describes.
    void recurrent(const Recurrent& r, const std::vector<Operand>& operands, const Operand& dst, const Activation& act);

    // Values the builder keeps for the plan's lifetime (constant operands), as an Operand.
    Operand constantOperand(const std::vector<float>& values, std::vector<std::int64_t> dims);

    std::vector<Step>& steps() { return steps_; }
    // The largest scratchpad any primitive asked for; the steps that run one after another (all,
    // or one partition's) share one buffer: bound for steps [first, end).
    std::size_t scratchpadBytes() const { return scratchpadBytes_; }
    void bindScratchpad(void* buffer, std::size_t first = 0, std::size_t end = ~std::size_t { 0 });
    std::int64_t weightBytes() const { return weightBytes_; }
    // Convolutions run on oneDNN's blocked activation layouts (nChw16c, ...) where it has a direct
    // kernel for them and only a gemm (im2col) one for plain NCHW: their input is reordered into a
    // staging buffer, the output reordered back. Two buffers, shared by all such convolutions.
    std::size_t stagingBytes() const { return (stagingInBytes_ + 63) / 64 * 64 + stagingOutBytes_; }
    void bindStaging(void* buffer, std::size_t first = 0, std::size_t end = ~std::size_t { 0 });

private:
    struct Piece {
        dnnl::algorithm algorithm;
        float alpha, beta;
        const Operand* operand = nullptr; // a binary post-op's second source (algorithm binary_*)
        Activation host {}; // a function oneDNN lacks, run in host code (host_kernels.h)
    };
    static bool hasHostPiece(const std::vector<Piece>& ps);
    bool onlyReferenceKernel(BinaryKind kind, const Operand& a, const Operand& b, const Operand& dst) const;
    // Host code over a dense operand, as a step; `what` names the layer in errors.
    void hostOver(const Operand& o, const char* what, std::function<void(float*, std::int64_t)> fn);
    static std::vector<Piece> pieces(const Activation& act);
    dnnl::memory bind(const Operand& o) const;
    // The convolution with these post-ops on its operands' own layouts; false (nothing pushed)
    // when oneDNN has no direct kernel for that.
    bool convFused(const Conv2d& c, const Operand& src, const Operand& dst, const std::vector<float>& weights,
        const std::vector<float>* bias, const std::vector<Piece>& ps);
    // The primitive between src and dst, through staging buffers and reorders where it wants other
    // layouts than theirs. `args` holds the rest (weights, bias).
    void pushStaged(const dnnl::primitive_desc_base& pd, dnnl::primitive primitive, const Operand& src,
        const Operand& dst, std::unordered_map<int, dnnl::memory> args);
    dnnl::memory constant(
        const dnnl::memory::desc& user, const std::vector<float>& values, const dnnl::memory::desc& wanted);
    dnnl::primitive_attr attr(const std::vector<Piece>& postOps) const;
    void push(
        const dnnl::primitive_desc_base& pd, dnnl::primitive primitive, std::unordered_map<int, dnnl::memory> args);
    // Post-ops the primitive could not take, as in-place eltwise steps on dst.
    void eltwiseInPlace(const Operand& dst, const std::vector<Piece>& pieces);
    void hostStep(std::function<void()> fn);
    void fill(const Operand& dst, float value);

    dnnl::engine engine_;
    bool winograd_ = false;
    bool avoidReference_ = true;
    std::vector<Step> steps_;
    std::vector<dnnl::memory::desc> scratchpads_; // per step; zero-size when none
    std::size_t scratchpadBytes_ = 0;
    std::int64_t weightBytes_ = 0;
    std::vector<std::shared_ptr<std::vector<float>>> constants_; // ones for products, constant operands
    // Handles set by bindStaging, with the index of the first step that uses them.
    std::vector<std::pair<std::size_t, dnnl::memory>> stagedIn_, stagedOut_;
    std::size_t stagingInBytes_ = 0, stagingOutBytes_ = 0;
};

dnnl::memory::desc describe(const Operand& o);

// A kernel written for these layouts: not im2col + GEMM, not a reference or "simple" loop.
bool directKernel(const dnnl::primitive_desc_base& pd);

// Throws Error unless `o` is dense row-major (host kernels index it so).
void requireDense(const Operand& o, const char* what);

// Row-major strides of `dims`, in elements.
dnnl::memory::dims denseStrides(const std::vector<std::int64_t>& dims);

// `o` with channels-last strides when `like` is channels-last and o has one spatial position (the
// same bytes either way; oneDNN picks its fast kernels only for matching layouts).
Operand matchLayout(const Operand& like, const Operand& o);

// Creates the primitive descriptor with the activation as post-ops where the primitive takes
// them; `fused` says whether it did.
template <typename PD, typename Desc, typename AttrFn>
PD withPostOps(const Desc& d, const dnnl::engine& engine, bool wantPostOps, AttrFn attrWith, bool& fused)
{
    fused = false;
    if (wantPostOps) {
        try {
            PD pd(d, attrWith(true), engine);
            fused = true;
            return pd;
        } catch (const dnnl::error&) {
        }
    }
    return PD(d, attrWith(false), engine);
}

} // namespace opsched::cpu
