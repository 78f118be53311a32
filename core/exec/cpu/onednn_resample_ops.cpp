// The PrimitiveBuilder's upsampling layers: transposed convolution (oneDNN deconvolution) and
// Resize (host code over the tap tables that the CUDA kernel walks too); and ArgMax/ArgMin, the
// segmentation networks' last step (host code).
#include "exec/cpu/host_kernels.h"
#include "exec/cpu/kernel_names.h"
#include "exec/cpu/onednn_ops.h"
#include "exec/cpu/resize_taps.h"
#include "util/error.h"

#include <algorithm>
#include <numeric>
#include <optional>

namespace opsched::cpu {

using dnnl::algorithm;
using dnnl::memory;
using tag = memory::format_tag;

void PrimitiveBuilder::convTranspose(const ConvTranspose2d& c, const Operand& src, const Operand& dst,
    const std::vector<float>& weights, const std::vector<float>* bias, const Activation& act)
{
    const auto ps = pieces(act);
    if (hasHostPiece(ps)) { // the deconvolution, then the function in host code
        convTranspose(c, src, dst, weights, bias, Activation {});
        eltwiseInPlace(dst, ps);
        return;
    }
    const std::int64_t g = c.groups, o = c.outChannels, i = src.dims.at(1);
    const bool volume = src.dims.size() == 5;
    // ONNX stores [C_in, C_out / g, (kD,) kH, kW]: oneDNN's iohw / iodhw (with groups giohw / giodhw).
    memory::dims wdims = g > 1 ? memory::dims { g, o / g, i / g } : memory::dims { o, i };
    if (volume)
        wdims.push_back(c.kernelD);
    wdims.push_back(c.kernelH);
    wdims.push_back(c.kernelW);
    const tag userTag = volume ? (g > 1 ? tag::giodhw : tag::iodhw) : (g > 1 ? tag::giohw : tag::iohw);
    const memory::desc user(wdims, memory::data_type::f32, userTag);
    const memory::desc any(wdims, memory::data_type::f32, tag::any);
    const memory::desc biasDesc = bias ? memory::desc({ o }, memory::data_type::f32, tag::x) : memory::desc();
    // oneDNN has no output padding: the end padding shrinks by it (it may go negative).
    memory::dims strides { c.strideH, c.strideW }, dilates { c.dilationH - 1, c.dilationW - 1 },
        padBegin { c.padTop, c.padLeft }, padEnd { c.padBottom - c.outputPaddingH, c.padRight - c.outputPaddingW };
    if (volume) {
        strides.insert(strides.begin(), c.strideD);
        dilates.insert(dilates.begin(), c.dilationD - 1);
        padBegin.insert(padBegin.begin(), c.padFront);
        padEnd.insert(padEnd.begin(), c.padBack - c.outputPaddingD);
    }
    auto primitiveDesc = [&](const memory::desc& s, const memory::desc& d) {
        const dnnl::deconvolution_forward::desc desc(dnnl::prop_kind::forward_inference,
            algorithm::deconvolution_direct, s, any, biasDesc, d, strides, dilates, padBegin, padEnd);
        return dnnl::deconvolution_forward::primitive_desc(desc, attr(ps), engine_);
    };
    const memory::desc srcPlain = describe(src), dstPlain = describe(dst);
    auto pd = primitiveDesc(srcPlain, dstPlain);
    // Plain layouts often have only reference kernels: oneDNN's own layouts, through staging.
    if (!directKernel(pd)) {
        const memory::desc srcAny(srcPlain.dims(), memory::data_type::f32, tag::any);
        const memory::desc dstAny(dstPlain.dims(), memory::data_type::f32, tag::any);
        const auto candidate = primitiveDesc(srcAny, dstAny);
        if (directKernel(candidate) || !isReferenceImplementation(candidate.impl_info_str()))
            pd = candidate;
    }
    std::unordered_map<int, dnnl::memory> args { { DNNL_ARG_WEIGHTS, constant(user, weights, pd.weights_desc()) } };
    if (bias)
        args[DNNL_ARG_BIAS] = constant(biasDesc, *bias, pd.bias_desc());
    pushStaged(pd, dnnl::deconvolution_forward(pd), src, dst, std::move(args));
}

void PrimitiveBuilder::argExtreme(const Reduce& r, const Operand& src, const Operand& dst, const Activation& act)
{
    requireDense(src, "argmax");
    requireDense(dst, "argmax");
    if (r.axes.size() != 1)
        throw Error("internal: argmax and argmin take one axis");
    const auto rank = static_cast<std::int64_t>(src.dims.size());
    const std::int64_t axis = r.axes.front() < 0 ? r.axes.front() + rank : r.axes.front();
    if (axis < 0 || axis >= rank)
        throw Error(
            "argmax axis " + std::to_string(r.axes.front()) + " is out of range for rank " + std::to_string(rank));
    const float* in = src.data;
    float* out = dst.data;
    hostStep([in, dims = src.dims, axis, largest = r.kind == ReduceKind::ArgMax, last = r.selectLast, out] {
        cpu::argExtreme(in, dims, static_cast<int>(axis), largest, last, out);
    });
    activate(dst, act);
}

void PrimitiveBuilder::topK(const Reduce& r, const Operand& src, const Operand& dst, const Activation& act)
{
    requireDense(src, "top-k");
    requireDense(dst, "top-k");
    const auto rank = static_cast<std::int64_t>(src.dims.size());
    if (r.axes.size() != 1 || r.axes.front() < -rank || r.axes.front() >= rank)
        throw Error("internal: top-k takes one axis within the rank");
    const std::int64_t axis = r.axes.front() < 0 ? r.axes.front() + rank : r.axes.front();
    const float* in = src.data;
    float* out = dst.data;
    hostStep([in, dims = src.dims, axis, k = r.k, largest = r.largest, indices = r.indices, out] {
        cpu::topK(in, dims, static_cast<int>(axis), k, largest, indices, out);
    });
    activate(dst, act);
}

void PrimitiveBuilder::resize(const Resize& r, const Operand& src, const Operand& dst, const Activation& act)
{
    const auto taps = resizeTaps(r, src.dims, dst.dims);
    // The kernel writes dense rows: the axes go in the order of the output's bytes (NCHW, or
    // NHWC for channels-last operands), the input read through its own strides.
    const std::size_t rank = dst.dims.size();
    const auto srcStrides = src.strides.empty() ? rowMajorStrides(src.dims) : src.strides;
    const auto dstStrides = dst.strides.empty() ? rowMajorStrides(dst.dims) : dst.strides;
    std::vector<std::size_t> order(rank);
    std::iota(order.begin(), order.end(), std::size_t { 0 });
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return dst.dims[a] > 1 && dst.dims[b] > 1 && dstStrides[a] > dstStrides[b];
    });
    Dims inDims, inStrides, outDims;
    std::vector<AxisTaps> axisTaps;
    for (auto d : order) {
        inDims.push_back(src.dims[d]);
        inStrides.push_back(srcStrides[d]);
        outDims.push_back(dst.dims[d]);
        axisTaps.push_back(taps[d]);
    }
    const auto dense = rowMajorStrides(outDims);
    for (std::size_t k = 0; k < rank; ++k)
        if (outDims[k] > 1 && dstStrides[order[k]] != dense[k])
            throw Error("internal: resize writes dense NCHW or channels-last outputs only");
    float* out = dst.data;
    const float* in = src.data;
    hostStep([in, inDims, inStrides, out, outDims, axisTaps = std::move(axisTaps)] {
        resizeGather(in, inDims, inStrides, out, outDims, axisTaps);
    });
    activate(dst, act);
}

} // namespace opsched::cpu
