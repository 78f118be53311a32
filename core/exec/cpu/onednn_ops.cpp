#include "exec/cpu/onednn_ops.h"

#include "exec/cpu/cpu_executor.h"
#include "exec/cpu/host_kernels.h"
#include "exec/cpu/kernel_names.h"
#include "exec/cpu/partition_runner.h"
#include "exec/cpu/tensor_views.h"

#include "util/error.h"

#include <algorithm>
#include <cstring>
#include <optional>

namespace opsched::cpu {

using dnnl::algorithm;
using dnnl::memory;
using dnnl::prop_kind;
using tag = memory::format_tag;

memory::dims denseStrides(const std::vector<std::int64_t>& dims)
{
    memory::dims strides(dims.size(), 1);
    for (std::size_t i = dims.size(); i-- > 1;)
        strides[i - 1] = strides[i] * dims[i];
    return strides;
}

namespace {

// oneDNN wants (in + before + after - kernel) / stride + 1 == out. The given padding when it
// fits, else the padding the windows need; when they stop short of the input's end, the unread
// tail is cropped off instead (negative padding).
struct Fit {
    std::int64_t in, after;
};

Fit fitWindows(std::int64_t in, std::int64_t kernel, std::int64_t stride, std::int64_t before, std::int64_t after,
    std::int64_t out)
{
    auto fits = [&](std::int64_t a) {
        return a >= 0 && in + before + a >= kernel && (in + before + a - kernel) / stride + 1 == out;
    };
    if (fits(after))
        return { in, after };
    const std::int64_t needed = (out - 1) * stride + kernel - in - before;
    if (needed < 0 && in + needed > 0)
        return { in + needed, 0 };
    if (fits(needed))
        return { in, needed };
    throw Error("pooling window " + std::to_string(kernel) + " / stride " + std::to_string(stride) + " does not give "
        + std::to_string(out) + " outputs from " + std::to_string(in));
}

// 3x3, stride 1, no dilation, no groups, enough channels and pixels that the transforms and the
// two reorders around the blocked layout cost less than the multiplications saved (measured on
// AVX-512 with oneDNN 2.6: 1.2x to 2.5x faster from 32 channels and 14x14 pixels; slower on
// 7x7 maps of few channels).
bool winogradPays(const Conv2d& c, const std::vector<std::int64_t>& src, const std::vector<std::int64_t>& dst)
{
    if (c.kernelH != 3 || c.kernelW != 3 || c.strideH != 1 || c.strideW != 1 || c.dilationH != 1 || c.dilationW != 1
        || c.groups != 1 || src.size() != 4 || dst.size() != 4)
        return false;
    const std::int64_t ic = src[1], oc = dst[1], pixels = dst[2] * dst[3];
    return ic >= 32 && oc >= 32 && (pixels >= 14 * 14 || ic * oc >= 256 * 256);
}

} // namespace

bool directKernel(const dnnl::primitive_desc_base& pd)
{
    const std::string impl = pd.impl_info_str();
    return impl.find("gemm") == std::string::npos && impl.find("ref") == std::string::npos
        && impl.find("simple") == std::string::npos;
}

void requireDense(const Operand& o, const char* what)
{
    if (!o.strides.empty())
        throw Error(std::string("internal: ") + what + " runs on dense tensors only");
}

void Step::freezeArgs()
{
    execArgs.clear();
    for (const auto& [arg, memory] : args)
        execArgs.push_back({ arg, memory.get() });
}

void Step::run(dnnl::stream& stream)
{
    if (host) {
        stream.wait();
        host();
        return;
    }
    // The C API over prebuilt arguments: no map walk and no allocation per execution.
    if (execArgs.size() != args.size())
        freezeArgs();
    const dnnl_status_t status
        = dnnl_primitive_execute(primitive.get(), stream.get(), static_cast<int>(execArgs.size()), execArgs.data());
    if (status != dnnl_success)
        throw dnnl::error(status, "could not execute a primitive");
}

Operand matchLayout(const Operand& like, const Operand& o)
{
    if (o.strides.empty() && o.dims.size() == 4 && o.dims[2] * o.dims[3] == 1 && like.dims.size() == 4
        && like.strides.size() == 4 && like.strides[1] == 1 && like.dims[1] > 1)
        return { o.data, o.dims, { o.dims[1], 1, o.dims[1], o.dims[1] } };
    return o;
}

Operand Operand::reshaped(std::vector<std::int64_t> newDims) const
{
    if (strides.empty() || newDims == dims)
        return { data, std::move(newDims), strides };
    const std::size_t extra = newDims.size() > dims.size() ? newDims.size() - dims.size() : 0;
    bool leadingOnes
        = extra > 0 && std::equal(dims.begin(), dims.end(), newDims.begin() + static_cast<std::ptrdiff_t>(extra));
    for (std::size_t i = 0; leadingOnes && i < extra; ++i)
        leadingOnes = newDims[i] == 1;
    if (!leadingOnes)
        throw Error("internal: a strided operand cannot be seen under other dimensions");
    std::vector<std::int64_t> s(extra, dims.empty() ? 1 : dims[0] * strides[0]);
    s.insert(s.end(), strides.begin(), strides.end());
    return { data, std::move(newDims), std::move(s) };
}

namespace {

template <typename Key> struct Named {
    Key key;
    const char* name;
};

template <typename Key, std::size_t N> const char* nameOf(const Named<Key> (&table)[N], Key key, const char* otherwise)
{
    for (const auto& entry : table)
        if (entry.key == key)
            return entry.name;
    return otherwise;
}

using Kind = dnnl::primitive::kind;
constexpr Named<Kind> kKindNames[] = { { Kind::reorder, "reorder" }, { Kind::concat, "concat" }, { Kind::sum, "sum" },
    { Kind::convolution, "convolution" }, { Kind::deconvolution, "deconvolution" }, { Kind::eltwise, "eltwise" },
    { Kind::softmax, "softmax" }, { Kind::softmax_v2, "softmax" }, { Kind::pooling, "pooling" },
    { Kind::pooling_v2, "pooling" }, { Kind::shuffle, "shuffle" }, { Kind::lrn, "lrn" },
    { Kind::batch_normalization, "batch_normalization" }, { Kind::layer_normalization, "layer_normalization" },
    { Kind::inner_product, "inner_product" }, { Kind::binary, "binary" }, { Kind::matmul, "matmul" },
    { Kind::reduction, "reduction" }, { Kind::resampling, "resampling" }, { Kind::prelu, "prelu" } };

using Isa = dnnl::cpu_isa;
constexpr Named<Isa> kIsaNames[] = { { Isa::sse41, "sse41" }, { Isa::avx, "avx" }, { Isa::avx2, "avx2" },
    { Isa::avx2_vnni, "avx2_vnni" }, { Isa::avx512_mic, "avx512_mic" }, { Isa::avx512_mic_4ops, "avx512_mic_4ops" },
    { Isa::avx512_core, "avx512_core" }, { Isa::avx512_core_vnni, "avx512_core_vnni" },
    { Isa::avx512_core_bf16, "avx512_core_bf16" }, { Isa::avx512_core_amx, "avx512_core_amx" } };

const char* kindName(Kind k)
{
    return nameOf(kKindNames, k, "primitive");
}

} // namespace

std::string effectiveCpuIsa()
{
    return nameOf(kIsaNames, dnnl::get_effective_cpu_isa(), "any (no JIT)");
}

memory::desc describe(const Operand& o)
{
    if (o.dims.empty()) // a scalar: oneDNN has no rank 0
        return memory::desc({ 1 }, memory::data_type::f32, memory::dims { 1 });
    const memory::dims dims(o.dims.begin(), o.dims.end());
    return memory::desc(dims, memory::data_type::f32,
        o.strides.empty() ? denseStrides(o.dims) : memory::dims(o.strides.begin(), o.strides.end()));
}

namespace {

// The activations that are one oneDNN eltwise with fixed alpha and beta.
struct FixedEltwise {
    ActivationKind kind;
    algorithm algo;
    float alpha, beta;
};
constexpr FixedEltwise kFixedEltwise[] = {
    { ActivationKind::Relu, algorithm::eltwise_relu, 0.0F, 0.0F },
    { ActivationKind::Sigmoid, algorithm::eltwise_logistic, 0.0F, 0.0F },
    { ActivationKind::HardSwish, algorithm::eltwise_hardswish, 0.0F, 0.0F },
    { ActivationKind::Tanh, algorithm::eltwise_tanh, 0.0F, 0.0F },
    { ActivationKind::Gelu, algorithm::eltwise_gelu_erf, 0.0F, 0.0F },
    { ActivationKind::GeluTanh, algorithm::eltwise_gelu_tanh, 0.0F, 0.0F },
    { ActivationKind::Sqrt, algorithm::eltwise_sqrt, 0.0F, 0.0F },
    { ActivationKind::Exp, algorithm::eltwise_exp, 0.0F, 0.0F },
    { ActivationKind::Log, algorithm::eltwise_log, 0.0F, 0.0F },
    { ActivationKind::Abs, algorithm::eltwise_abs, 0.0F, 0.0F },
    { ActivationKind::Neg, algorithm::eltwise_linear, -1.0F, 0.0F },
    { ActivationKind::Reciprocal, algorithm::eltwise_pow, 1.0F, -1.0F },
    { ActivationKind::Softplus, algorithm::eltwise_soft_relu, 0.0F, 0.0F },
    { ActivationKind::Mish, algorithm::eltwise_mish, 0.0F, 0.0F },
};

} // namespace

std::vector<PrimitiveBuilder::Piece> PrimitiveBuilder::pieces(const Activation& act)
{
    for (const auto& f : kFixedEltwise)
        if (f.kind == act.kind)
            return { { f.algo, f.alpha, f.beta } };
    switch (act.kind) {
    case ActivationKind::None:
        return {};
    case ActivationKind::Clip:
        return { { algorithm::eltwise_clip, act.alpha, act.beta } };
    // oneDNN 2.6 has no hardsigmoid: clip(alpha * x + beta, 0, 1).
    case ActivationKind::HardSigmoid:
        return { { algorithm::eltwise_linear, act.alpha, act.beta }, { algorithm::eltwise_clip, 0.0F, 1.0F } };
    case ActivationKind::Pow:
        return { { algorithm::eltwise_pow, 1.0F, act.alpha } };
    case ActivationKind::LeakyRelu: // relu's alpha is the negative slope
        return { { algorithm::eltwise_relu, act.alpha, 0.0F } };
    case ActivationKind::Elu:
        return { { algorithm::eltwise_elu, act.alpha, 0.0F } };
    case ActivationKind::Selu: // gamma * elu_alpha(x)
        return { { algorithm::eltwise_elu, act.alpha, 0.0F }, { algorithm::eltwise_linear, act.beta, 0.0F } };
    case ActivationKind::Celu: // alpha * elu_1(x / alpha)
        return { { algorithm::eltwise_linear, 1.0F / act.alpha, 0.0F }, { algorithm::eltwise_elu, 1.0F, 0.0F },
            { algorithm::eltwise_linear, act.alpha, 0.0F } };
    case ActivationKind::Softsign:
    case ActivationKind::ThresholdedRelu:
    case ActivationKind::Erf:
    case ActivationKind::Not:
    case ActivationKind::NonZero:
    case ActivationKind::Truncate:
    case ActivationKind::Floor:
    case ActivationKind::Ceil:
    case ActivationKind::Round:
    case ActivationKind::Sign:
    case ActivationKind::Sin:
    case ActivationKind::Cos:
        return { { algorithm::undef, 0.0F, 0.0F, nullptr, act } };
    default:
        break;
    }
    throw Error(std::string("activation '") + toString(act.kind) + "' is not supported by the CPU backend");
}

dnnl::memory PrimitiveBuilder::bind(const Operand& o) const
{
    return dnnl::memory(describe(o), engine_, o.data);
}

bool PrimitiveBuilder::hasHostPiece(const std::vector<Piece>& ps)
{
    return std::any_of(ps.begin(), ps.end(), [](const Piece& p) { return p.host.kind != ActivationKind::None; });
}

void PrimitiveBuilder::hostOver(const Operand& o, const char* what, std::function<void(float*, std::int64_t)> fn)
{
    // Element-wise host code covers the operand's bytes in any dense order (NCHW or channels-last).
    std::int64_t count = 1, span = 1;
    for (std::size_t i = 0; i < o.dims.size(); ++i) {
        count *= o.dims[i];
        if (!o.strides.empty())
            span += (o.dims[i] - 1) * o.strides[i];
    }
    if (!o.strides.empty() && span != count)
        throw Error(std::string("internal: ") + what + " runs on dense tensors only");
    float* data = o.data;
    hostStep([data, count, fn = std::move(fn)] { fn(data, count); });
}

dnnl::primitive_attr PrimitiveBuilder::attr(const std::vector<Piece>& postOps) const
{
    if (hasHostPiece(postOps)) // not a post-op: callers fall back to eltwiseInPlace
        throw dnnl::error(dnnl_unimplemented, "a host function as a post-op");
    dnnl::primitive_attr a;
    a.set_scratchpad_mode(dnnl::scratchpad_mode::user);
    if (!postOps.empty()) {
        dnnl::post_ops po;
        for (const auto& p : postOps) {
            if (p.operand)
                po.append_binary(p.algorithm, describe(*p.operand));
            else
                po.append_eltwise(1.0F, p.algorithm, p.alpha, p.beta);
        }
        a.set_post_ops(po);
    }
    return a;
}

void PrimitiveBuilder::push(
    const dnnl::primitive_desc_base& pd, dnnl::primitive primitive, std::unordered_map<int, dnnl::memory> args)
{
    steps_.push_back(Step { std::move(primitive), std::move(args), {}, {},
        std::string(kindName(pd.get_kind())) + " " + pd.impl_info_str() });
    scratchpads_.push_back(pd.scratchpad_desc());
    scratchpadBytes_ = std::max(scratchpadBytes_, scratchpads_.back().get_size());
}

void PrimitiveBuilder::bindScratchpad(void* buffer, std::size_t first, std::size_t end)
{
    for (std::size_t i = first; i < std::min(end, steps_.size()); ++i)
        if (scratchpads_[i].get_size() > 0)
            steps_[i].args[DNNL_ARG_SCRATCHPAD] = dnnl::memory(scratchpads_[i], engine_, buffer);
}

dnnl::memory PrimitiveBuilder::constant(
    const memory::desc& user, const std::vector<float>& values, const memory::desc& wanted)
{
    dnnl::memory src(user, engine_);
    std::memcpy(src.get_data_handle(), values.data(), std::min(user.get_size(), values.size() * sizeof(float)));
    weightBytes_ += static_cast<std::int64_t>(wanted.get_size());
    if (wanted == user)
        return src;
    dnnl::memory dst(wanted, engine_);
    // On one thread: an OpenMP team started here would stay with the calling thread, and with
    // partitions (workers with teams of their own) libgomp then counts more threads than cores
    // and stops spinning at barriers, doubling every kernel's time.
    const int threads = ompThreads();
    if (threads > 1)
        setOmpThreads(1);
    dnnl::stream stream(engine_);
    dnnl::reorder(src, dst).execute(stream, src, dst);
    stream.wait();
    if (threads > 1)
        setOmpThreads(threads);
    return dst;
}

void PrimitiveBuilder::hostStep(std::function<void()> fn)
{
    steps_.push_back(Step { {}, {}, std::move(fn), {}, "host" });
    scratchpads_.emplace_back();
}

void PrimitiveBuilder::eltwiseInPlace(const Operand& dst, const std::vector<Piece>& ps)
{
    for (const auto& p : ps) {
        if (p.host.kind != ActivationKind::None) {
            hostOver(dst, toString(p.host.kind),
                [act = p.host](float* data, std::int64_t n) { applyHostActivation(act, data, n); });
            continue;
        }
        dnnl::eltwise_forward::desc d(prop_kind::forward_inference, p.algorithm, describe(dst), p.alpha, p.beta);
        dnnl::eltwise_forward::primitive_desc pd(d, attr({}), engine_);
        const auto m = bind(dst);
        push(pd, dnnl::eltwise_forward(pd), { { DNNL_ARG_SRC, m }, { DNNL_ARG_DST, m } });
    }
}

namespace {

// A convolution's weights as the graph stores them and as oneDNN may lay them out, and its bias
// (empty when it has none).
struct ConvWeights {
    memory::desc user, any, bias;
};

// Weights and geometry of a 2-D (4-D operands) or 3-D (5-D operands) convolution.
ConvWeights convWeights(const Conv2d& c, std::int64_t inChannels, bool hasBias, std::size_t rank)
{
    const std::int64_t g = c.groups, o = c.outChannels, i = inChannels;
    memory::dims wdims = g > 1 ? memory::dims { g, o / g, i / g } : memory::dims { o, i };
    if (rank == 5)
        wdims.push_back(c.kernelD);
    wdims.push_back(c.kernelH);
    wdims.push_back(c.kernelW);
    const tag user = rank == 5 ? (g > 1 ? tag::goidhw : tag::oidhw) : (g > 1 ? tag::goihw : tag::oihw);
    return { memory::desc(wdims, memory::data_type::f32, user), memory::desc(wdims, memory::data_type::f32, tag::any),
        hasBias ? memory::desc({ o }, memory::data_type::f32, tag::x) : memory::desc() };
}

dnnl::convolution_forward::desc convDesc(
    const Conv2d& c, algorithm alg, const memory::desc& src, const ConvWeights& w, const memory::desc& dst)
{
    if (src.dims().size() == 5)
        return dnnl::convolution_forward::desc(prop_kind::forward_inference, alg, src, w.any, w.bias, dst,
            { c.strideD, c.strideH, c.strideW }, { c.dilationD - 1, c.dilationH - 1, c.dilationW - 1 },
            { c.padFront, c.padTop, c.padLeft }, { c.padBack, c.padBottom, c.padRight });
    return dnnl::convolution_forward::desc(prop_kind::forward_inference, alg, src, w.any, w.bias, dst,
        { c.strideH, c.strideW }, { c.dilationH - 1, c.dilationW - 1 }, { c.padTop, c.padLeft },
        { c.padBottom, c.padRight });
}

} // namespace

void PrimitiveBuilder::conv(const Conv2d& c, const Operand& src, const Operand& dst, const std::vector<float>& weights,
    const std::vector<float>* bias, const Activation& act, const ConvTail& tail)
{
    if (hasHostPiece(pieces(act))) { // the convolution, then the function in host code
        conv(c, src, dst, weights, bias, Activation {}, tail);
        eltwiseInPlace(matchLayout(src, dst), pieces(act));
        return;
    }
    if (tail.swish || tail.addend || tail.after.kind != ActivationKind::None) {
        std::vector<Piece> ps = pieces(act);
        if (tail.swish)
            ps.push_back({ algorithm::eltwise_swish, 1.0F, 0.0F });
        if (tail.addend)
            ps.push_back({ algorithm::binary_add, 0.0F, 0.0F, tail.addend });
        for (const auto& p : pieces(tail.after))
            ps.push_back(p);
        if (convFused(c, src, dst, weights, bias, ps))
            return;
        // oneDNN has no direct kernel with these post-ops here: the convolution, then the tail in place.
        conv(c, src, dst, weights, bias, act);
        const Operand out = matchLayout(src, dst);
        if (tail.swish)
            eltwiseInPlace(out, { { algorithm::eltwise_swish, 1.0F, 0.0F } });
        if (tail.addend) {
            dnnl::binary::desc d(algorithm::binary_add, describe(out), describe(*tail.addend), describe(out));
            dnnl::binary::primitive_desc pd(d, attr({}), engine_);
            push(pd, dnnl::binary(pd),
                { { DNNL_ARG_SRC_0, bind(out) }, { DNNL_ARG_SRC_1, bind(*tail.addend) }, { DNNL_ARG_DST, bind(out) } });
        }
        eltwiseInPlace(out, pieces(tail.after));
        return;
    }
    const ConvWeights w = convWeights(c, src.dims.at(1), bias != nullptr, src.dims.size());
    const auto ps = pieces(act);
    auto primitiveDesc
        = [&](const memory::desc& s, const memory::desc& d, algorithm alg = algorithm::convolution_direct) {
              return dnnl::convolution_forward::primitive_desc(convDesc(c, alg, s, w, d), attr(ps), engine_);
          };
    const memory::desc srcPlain = describe(src), dstPlain = describe(matchLayout(src, dst));
    auto pd = primitiveDesc(srcPlain, dstPlain);
    // Without a direct kernel for these layouts (gemm: im2col; ref: scalar loops), the layouts
    // oneDNN picks, with reorders into and out of staging: the output's own kept when it can, then
    // the input's (ResNet's 7x7 first convolution reads NCHW into nChw8c on AVX2, where no kernel
    // writes channels-last from NCHW), then both free. Failing a direct kernel, any but a
    // reference one (AlexNet's 11x11 stride-4 first convolution on AVX2: im2col and a JIT GEMM).
    if (!directKernel(pd)) {
        const memory::desc srcAny(srcPlain.dims(), memory::data_type::f32, tag::any);
        const memory::desc dstAny(dstPlain.dims(), memory::data_type::f32, tag::any);
        std::optional<dnnl::convolution_forward::primitive_desc> fallback;
        for (const auto& [s, d] :
            { std::pair { srcAny, dstPlain }, std::pair { srcPlain, dstAny }, std::pair { srcAny, dstAny } }) {
            const auto candidate = primitiveDesc(s, d);
            if (directKernel(candidate)) {
                fallback.reset();
                pd = candidate;
                break;
            }
            if (!fallback && !isReferenceImplementation(candidate.impl_info_str()))
                fallback = candidate;
        }
        if (fallback && avoidReference_ && isReferenceImplementation(pd.impl_info_str()))
            pd = *fallback;
    }
    if (winograd_ && winogradPays(c, src.dims, dst.dims)) {
        // Winograd F(4x4 or 2x2, 3x3) does 2 to 4 times fewer multiplications; oneDNN runs it on
        // blocked layouts (the reorders are counted in winogradPays' threshold).
        try {
            const memory::desc srcAny(srcPlain.dims(), memory::data_type::f32, tag::any);
            const memory::desc dstAny(dstPlain.dims(), memory::data_type::f32, tag::any);
            const auto wino = primitiveDesc(srcAny, dstAny, algorithm::convolution_winograd);
            if (std::string(wino.impl_info_str()).find("wino") != std::string::npos)
                pd = wino;
        } catch (const dnnl::error&) { // no Winograd kernel for this case: the direct one
        }
    }
    std::unordered_map<int, dnnl::memory> args { { DNNL_ARG_WEIGHTS, constant(w.user, weights, pd.weights_desc()) } };
    if (bias)
        args[DNNL_ARG_BIAS] = constant(w.bias, *bias, pd.bias_desc());
    pushStaged(pd, dnnl::convolution_forward(pd), src, matchLayout(src, dst), std::move(args));
}

void PrimitiveBuilder::pushStaged(const dnnl::primitive_desc_base& pd, dnnl::primitive primitive, const Operand& src,
    const Operand& dst, std::unordered_map<int, dnnl::memory> args)
{
    const memory::desc srcPlain = describe(src), dstPlain = describe(dst);
    dnnl::memory srcMem = bind(src), dstMem = bind(dst);
    if (pd.src_desc() != srcPlain) {
        dnnl::memory staged(pd.src_desc(), engine_, DNNL_MEMORY_NONE);
        stagedIn_.emplace_back(steps_.size(), staged);
        stagingInBytes_ = std::max(stagingInBytes_, pd.src_desc().get_size());
        dnnl::reorder::primitive_desc r(engine_, srcPlain, engine_, pd.src_desc(), attr({}));
        push(r, dnnl::reorder(r), { { DNNL_ARG_FROM, srcMem }, { DNNL_ARG_TO, staged } });
        srcMem = staged;
    }
    dnnl::memory stagedDst = dstMem;
    if (pd.dst_desc() != dstPlain) {
        stagedDst = dnnl::memory(pd.dst_desc(), engine_, DNNL_MEMORY_NONE);
        stagedOut_.emplace_back(steps_.size(), stagedDst);
        stagingOutBytes_ = std::max(stagingOutBytes_, pd.dst_desc().get_size());
    }
    args[DNNL_ARG_SRC] = srcMem;
    args[DNNL_ARG_DST] = stagedDst;
    push(pd, std::move(primitive), std::move(args));
    if (stagedDst != dstMem) {
        dnnl::reorder::primitive_desc r(engine_, pd.dst_desc(), engine_, dstPlain, attr({}));
        push(r, dnnl::reorder(r), { { DNNL_ARG_FROM, stagedDst }, { DNNL_ARG_TO, dstMem } });
    }
}

bool PrimitiveBuilder::convFused(const Conv2d& c, const Operand& src, const Operand& dst,
    const std::vector<float>& weights, const std::vector<float>* bias, const std::vector<Piece>& ps)
{
    const ConvWeights w = convWeights(c, src.dims.at(1), bias != nullptr, src.dims.size());
    const Operand out = matchLayout(src, dst);
    const memory::desc dstDesc = describe(out);
    const auto cd = convDesc(c, algorithm::convolution_direct, describe(src), w, dstDesc);
    std::optional<dnnl::convolution_forward::primitive_desc> pd;
    try {
        pd.emplace(cd, attr(ps), engine_);
    } catch (const dnnl::error&) {
        return false;
    }
    if (!directKernel(*pd) || pd->dst_desc() != dstDesc || pd->src_desc() != describe(src))
        return false;
    std::unordered_map<int, dnnl::memory> args { { DNNL_ARG_SRC, bind(src) },
        { DNNL_ARG_WEIGHTS, constant(w.user, weights, pd->weights_desc()) }, { DNNL_ARG_DST, bind(out) } };
    if (bias)
        args[DNNL_ARG_BIAS] = constant(w.bias, *bias, pd->bias_desc());
    for (std::size_t k = 0; k < ps.size(); ++k)
        if (ps[k].operand)
            args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(static_cast<int>(k)) | DNNL_ARG_SRC_1] = bind(*ps[k].operand);
    push(*pd, dnnl::convolution_forward(*pd), std::move(args));
    return true;
}

void PrimitiveBuilder::bindStaging(void* buffer, std::size_t first, std::size_t end)
{
    auto* base = static_cast<std::byte*>(buffer);
    const std::size_t outOffset = (stagingInBytes_ + 63) / 64 * 64;
    for (auto& [step, m] : stagedIn_)
        if (step >= first && step < end)
            m.set_data_handle(base);
    for (auto& [step, m] : stagedOut_)
        if (step >= first && step < end)
            m.set_data_handle(base + outOffset);
}

void PrimitiveBuilder::pool(
    const Pool2d& p, const Operand& src, const Operand& dst, const Operand* padded, const Activation& act)
{
    Operand in = src;
    const std::int64_t outH = dst.dims.at(2), outW = dst.dims.at(3);
    memory::dims kernel, strides;
    std::int64_t pt = 0, pl = 0, pb = 0, pr = 0;
    algorithm alg = algorithm::pooling_max;
    if (p.kind == PoolKind::GlobalAverage || p.kind == PoolKind::GlobalMax) {
        kernel = { src.dims.at(2), src.dims.at(3) };
        strides = { 1, 1 };
        alg = p.kind == PoolKind::GlobalMax ? algorithm::pooling_max : algorithm::pooling_avg_exclude_padding;
    } else {
        kernel = { p.kernelH, p.kernelW };
        strides = { p.strideH, p.strideW };
        pt = p.padTop, pl = p.padLeft, pb = p.padBottom, pr = p.padRight;
        if (p.kind == PoolKind::Average)
            alg = p.countIncludePad ? algorithm::pooling_avg_include_padding : algorithm::pooling_avg_exclude_padding;
        if (padded) {
            // Padding made explicit (zeros that count); the ceil-mode overhang is then excluded.
            float* base = padded->data;
            const auto count = static_cast<std::size_t>(elementCount(padded->dims));
            hostStep([base, count] { std::fill(base, base + count, 0.0F); });
            const auto strides4 = denseStrides(padded->dims);
            Operand interior { base + pt * strides4[2] + pl, src.dims, { strides4.begin(), strides4.end() } };
            copy(src, interior);
            in = *padded;
            pt = pl = pb = pr = 0;
            alg = algorithm::pooling_avg_exclude_padding;
        }
        const Fit h = fitWindows(in.dims[2], p.kernelH, p.strideH, pt, pb, outH);
        const Fit w = fitWindows(in.dims[3], p.kernelW, p.strideW, pl, pr, outW);
        pb = h.after;
        pr = w.after;
        if (h.in != in.dims[2] || w.in != in.dims[3]) {
            const auto full
                = in.strides.empty() ? denseStrides(in.dims) : memory::dims(in.strides.begin(), in.strides.end());
            in = Operand { in.data, { in.dims[0], in.dims[1], h.in, w.in }, { full.begin(), full.end() } };
        }
    }
    const auto ps = pieces(act);
    auto primitiveDesc = [&](const memory::desc& s, const memory::desc& dd, bool& fused) {
        dnnl::pooling_forward::desc d(
            prop_kind::forward_inference, alg, s, dd, strides, kernel, { pt, pl }, { pb, pr });
        return withPostOps<dnnl::pooling_forward::primitive_desc>(
            d, engine_, !ps.empty(), [&](bool f) { return attr(f ? ps : std::vector<Piece> {}); }, fused);
    };
    const memory::desc srcPlain = describe(in), dstPlain = describe(matchLayout(in, dst));
    bool fused = false;
    auto pd = primitiveDesc(srcPlain, dstPlain, fused);
    // oneDNN 2.6 has no jit kernel for some plain-layout pools (Inception V3's 147 -> 73 max pool;
    // on AVX2 the depth step of a 3-D pool) and runs "simple_nchw" or a reference one, up to ten
    // times slower than a pool in oneDNN's blocked layout for the ISA (16 channels a block with
    // AVX-512, 8 with AVX2) plus two reorders.
    const bool slow = std::string(pd.impl_info_str()).find("simple") != std::string::npos
        || isReferenceImplementation(pd.impl_info_str());
    if (slow && in.strides.empty() && dst.strides.empty() && src.dims.size() == 4) {
        for (const auto& [block, layout] : { std::pair { 16, tag::nChw16c }, std::pair { 8, tag::nChw8c } }) {
            if (src.dims.at(1) % block != 0)
                continue;
            bool blockedFused = false;
            auto blocked = primitiveDesc(memory::desc(srcPlain.dims(), memory::data_type::f32, layout),
                memory::desc(dstPlain.dims(), memory::data_type::f32, layout), blockedFused);
            if (std::string(blocked.impl_info_str()).find("jit") == std::string::npos)
                continue;
            dnnl::memory stagedSrc(blocked.src_desc(), engine_, DNNL_MEMORY_NONE);
            dnnl::memory stagedDst(blocked.dst_desc(), engine_, DNNL_MEMORY_NONE);
            stagedIn_.emplace_back(steps_.size(), stagedSrc);
            stagedOut_.emplace_back(steps_.size(), stagedDst);
            stagingInBytes_ = std::max(stagingInBytes_, blocked.src_desc().get_size());
            stagingOutBytes_ = std::max(stagingOutBytes_, blocked.dst_desc().get_size());
            dnnl::reorder::primitive_desc r1(engine_, srcPlain, engine_, blocked.src_desc(), attr({}));
            push(r1, dnnl::reorder(r1), { { DNNL_ARG_FROM, bind(in) }, { DNNL_ARG_TO, stagedSrc } });
            push(blocked, dnnl::pooling_forward(blocked), { { DNNL_ARG_SRC, stagedSrc }, { DNNL_ARG_DST, stagedDst } });
            dnnl::reorder::primitive_desc r2(engine_, blocked.dst_desc(), engine_, dstPlain, attr({}));
            push(r2, dnnl::reorder(r2), { { DNNL_ARG_FROM, stagedDst }, { DNNL_ARG_TO, bind(dst) } });
            if (!blockedFused)
                eltwiseInPlace(dst, ps);
            return;
        }
    }
    push(pd, dnnl::pooling_forward(pd), { { DNNL_ARG_SRC, bind(in) }, { DNNL_ARG_DST, bind(matchLayout(in, dst)) } });
    if (!fused)
        eltwiseInPlace(dst, ps);
}

void PrimitiveBuilder::eltwise(const Operand& src, const Operand& dst, const std::vector<Activation>& acts)
{
    std::vector<Piece> ps;
    for (const auto& a : acts)
        for (const auto& p : pieces(a))
            ps.push_back(p);
    if (ps.empty()) {
        if (src.data != dst.data)
            copy(src, dst);
        return;
    }
    const Piece& p = ps.front();
    if (p.host.kind != ActivationKind::None) {
        if (src.data != dst.data)
            copy(src, dst);
        eltwiseInPlace(dst, ps);
        return;
    }
    dnnl::eltwise_forward::desc d(prop_kind::forward_inference, p.algorithm, describe(src), p.alpha, p.beta);
    dnnl::eltwise_forward::primitive_desc pd(d, attr({}), engine_);
    push(pd, dnnl::eltwise_forward(pd), { { DNNL_ARG_SRC, bind(src) }, { DNNL_ARG_DST, bind(dst) } });
    eltwiseInPlace(dst, { ps.begin() + 1, ps.end() });
}

void PrimitiveBuilder::innerProduct(const Operand& src, const Operand& dst, const std::vector<float>& weights,
    const std::vector<float>* bias, const Activation& act)
{
    const std::int64_t n = src.dims.at(0), k = elementCount(src.dims) / n, o = dst.dims.at(1);
    const Operand flat = src.reshaped({ n, k });
    const memory::desc user({ o, k }, memory::data_type::f32, tag::oi);
    const memory::desc any({ o, k }, memory::data_type::f32, tag::any);
    const auto ps = pieces(act);
    auto makeDesc = [&] {
        if (!bias)
            return dnnl::inner_product_forward::desc(prop_kind::forward_inference, describe(flat), any, describe(dst));
        return dnnl::inner_product_forward::desc(prop_kind::forward_inference, describe(flat), any,
            memory::desc({ o }, memory::data_type::f32, tag::x), describe(dst));
    };
    bool fused = false;
    auto pd = withPostOps<dnnl::inner_product_forward::primitive_desc>(
        makeDesc(), engine_, !ps.empty(), [&](bool f) { return attr(f ? ps : std::vector<Piece> {}); }, fused);
    std::unordered_map<int, dnnl::memory> args { { DNNL_ARG_SRC, bind(flat) },
        { DNNL_ARG_WEIGHTS, constant(user, weights, pd.weights_desc()) }, { DNNL_ARG_DST, bind(dst) } };
    if (bias)
        args[DNNL_ARG_BIAS] = constant(memory::desc({ o }, memory::data_type::f32, tag::x), *bias, pd.bias_desc());
    push(pd, dnnl::inner_product_forward(pd), std::move(args));
    if (!fused)
        eltwiseInPlace(dst, ps);
}

void PrimitiveBuilder::softmax(const Softmax& s, const Operand& src, const Operand& dst, const Activation& act)
{
    const auto ps = pieces(act);
    const int axis = s.axis < 0 ? s.axis + static_cast<int>(src.dims.size()) : s.axis;
    dnnl::softmax_v2_forward::desc d(prop_kind::forward_inference,
        s.log ? algorithm::softmax_log : algorithm::softmax_accurate, describe(src), describe(dst), axis);
    bool fused = false;
    auto pd = withPostOps<dnnl::softmax_v2_forward::primitive_desc>(
        d, engine_, !ps.empty(), [&](bool f) { return attr(f ? ps : std::vector<Piece> {}); }, fused);
    push(pd, dnnl::softmax_v2_forward(pd), { { DNNL_ARG_SRC, bind(src) }, { DNNL_ARG_DST, bind(dst) } });
    if (!fused)
        eltwiseInPlace(dst, ps);
}

void PrimitiveBuilder::lrn(const Lrn& l, const Operand& src, const Operand& dst, const Activation& act)
{
    // oneDNN's window is ONNX's: channels c - (size - 1) / 2 to c + size / 2, alpha divided by size.
    const dnnl::lrn_forward::desc d(
        prop_kind::forward_inference, algorithm::lrn_across_channels, describe(src), l.size, l.alpha, l.beta, l.bias);
    const dnnl::lrn_forward::primitive_desc pd(d, attr({}), engine_);
    push(pd, dnnl::lrn_forward(pd), { { DNNL_ARG_SRC, bind(src) }, { DNNL_ARG_DST, bind(matchLayout(src, dst)) } });
    eltwiseInPlace(dst, pieces(act));
}

void PrimitiveBuilder::multiply(const std::vector<Operand>& operands, const Operand& dst, const Activation& act)
{
    // oneDNN broadcasts the second operand only: start from one with the full shape (or ones).
    const std::size_t rank = dst.dims.size();
    std::vector<Operand> ops;
    std::optional<std::size_t> full;
    for (const auto& o : operands) {
        std::vector<std::int64_t> dims(rank - std::min(rank, o.dims.size()), 1);
        dims.insert(dims.end(), o.dims.begin(), o.dims.end());
        if (!full && dims == dst.dims)
            full = ops.size();
        ops.push_back(o.reshaped(std::move(dims)));
    }
    Operand cur;
    if (full) {
        cur = ops[*full];
        ops.erase(ops.begin() + static_cast<std::ptrdiff_t>(*full));
    } else {
        constants_.push_back(
            std::make_shared<std::vector<float>>(static_cast<std::size_t>(elementCount(dst.dims)), 1.0F));
        cur = Operand { constants_.back()->data(), dst.dims, {} };
    }
    const auto ps = pieces(act);
    for (std::size_t j = 0; j < ops.size(); ++j) {
        const bool last = j + 1 == ops.size();
        dnnl::binary::desc d(algorithm::binary_mul, describe(cur), describe(ops[j]), describe(dst));
        bool fused = false;
        auto pd = withPostOps<dnnl::binary::primitive_desc>(
            d, engine_, last && !ps.empty(), [&](bool f) { return attr(f ? ps : std::vector<Piece> {}); }, fused);
        push(pd, dnnl::binary(pd),
            { { DNNL_ARG_SRC_0, bind(cur) }, { DNNL_ARG_SRC_1, bind(ops[j]) }, { DNNL_ARG_DST, bind(dst) } });
        if (last && !fused)
            eltwiseInPlace(dst, ps);
        cur = dst;
    }
}

void PrimitiveBuilder::sum(const std::vector<Operand>& srcs, const Operand& dst)
{
    std::vector<memory::desc> descs;
    for (const auto& s : srcs)
        descs.push_back(describe(s));
    const std::vector<float> ones(srcs.size(), 1.0F);
    dnnl::sum::primitive_desc pd(describe(dst), ones, descs, engine_, attr({}));
    dnnl::memory dstMem = bind(dst);
    // oneDNN's vectorised sum wants every operand in one dense layout; into a channel slice of a
    // concatenation (NASNet's cells) it runs its reference kernel. Then: the sum into staging in
    // the sources' layout, and one reorder into the slice.
    dnnl::memory staged;
    if (avoidReference_ && isReferenceImplementation(pd.impl_info_str()) && !descs.empty()) {
        dnnl::sum::primitive_desc dense(descs.front(), ones, descs, engine_, attr({}));
        if (!isReferenceImplementation(dense.impl_info_str())) {
            staged = dnnl::memory(dense.dst_desc(), engine_, DNNL_MEMORY_NONE);
            stagedOut_.emplace_back(steps_.size(), staged);
            stagingOutBytes_ = std::max(stagingOutBytes_, dense.dst_desc().get_size());
            pd = dense;
        }
    }
    std::unordered_map<int, dnnl::memory> args { { DNNL_ARG_DST, staged ? staged : dstMem } };
    for (std::size_t i = 0; i < srcs.size(); ++i)
        args[DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i)] = bind(srcs[i]);
    push(pd, dnnl::sum(pd), std::move(args));
    if (staged) {
        dnnl::reorder::primitive_desc r(engine_, pd.dst_desc(), engine_, describe(dst), attr({}));
        push(r, dnnl::reorder(r), { { DNNL_ARG_FROM, staged }, { DNNL_ARG_TO, dstMem } });
    }
}

void PrimitiveBuilder::concat(const std::vector<Operand>& srcs, const Operand& dst, int axis)
{
    std::vector<memory::desc> descs;
    for (const auto& s : srcs)
        descs.push_back(describe(s));
    dnnl::concat::primitive_desc pd(describe(dst), axis, descs, engine_, attr({}));
    std::unordered_map<int, dnnl::memory> args { { DNNL_ARG_DST, bind(dst) } };
    for (std::size_t i = 0; i < srcs.size(); ++i)
        args[DNNL_ARG_MULTIPLE_SRC + static_cast<int>(i)] = bind(srcs[i]);
    push(pd, dnnl::concat(pd), std::move(args));
}

void PrimitiveBuilder::copy(const Operand& src, const Operand& dst)
{
    dnnl::reorder::primitive_desc pd(engine_, describe(src), engine_, describe(dst), attr({}));
    push(pd, dnnl::reorder(pd), { { DNNL_ARG_FROM, bind(src) }, { DNNL_ARG_TO, bind(dst) } });
}

} // namespace opsched::cpu
