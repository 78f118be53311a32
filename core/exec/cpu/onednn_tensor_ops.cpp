// The PrimitiveBuilder's kernels for the layers imported models bring: binary, matmul, reduction,
// batch normalisation (oneDNN primitives), slices and transposes (reorders from strided views),
// and pad (a reorder into a filled buffer; reflect and edge in host code, oneDNN has no pad).
#include "exec/cpu/onednn_ops.h"

#include "exec/cpu/host_kernels.h"
#include "exec/cpu/kernel_names.h"
#include "exec/cpu/tensor_views.h"
#include "util/error.h"

#include <algorithm>

namespace opsched::cpu {

using dnnl::algorithm;
using dnnl::memory;
using dnnl::prop_kind;
using tag = memory::format_tag;

namespace {

// Constant matmul weights whose rows are a multiple of this many bytes apart get kRowPadding more
// floats per row (PrimitiveBuilder::matmul).
constexpr std::size_t kAliasingStride = 4096;
constexpr std::int64_t kRowPadding = 16;

// The operand with ones prepended up to `rank` (NumPy's right alignment).
Operand alignedTo(const Operand& o, std::size_t rank)
{
    std::vector<std::int64_t> dims(rank - std::min(rank, o.dims.size()), 1);
    dims.insert(dims.end(), o.dims.begin(), o.dims.end());
    return o.reshaped(std::move(dims));
}

algorithm binaryAlgorithm(BinaryKind kind)
{
    switch (kind) {
    case BinaryKind::Add:
        return algorithm::binary_add;
    case BinaryKind::Sub:
        return algorithm::binary_sub;
    case BinaryKind::Mul:
        return algorithm::binary_mul;
    case BinaryKind::Div:
        return algorithm::binary_div;
    case BinaryKind::Min:
        return algorithm::binary_min;
    case BinaryKind::Max:
        return algorithm::binary_max;
    case BinaryKind::Equal:
        return algorithm::binary_eq;
    case BinaryKind::Less:
        return algorithm::binary_lt;
    case BinaryKind::Greater:
        return algorithm::binary_gt;
    case BinaryKind::Pow:
    case BinaryKind::PRelu:
        break; // host code (binary() handles it)
    }
    throw Error("unknown binary kind");
}

algorithm reductionAlgorithm(ReduceKind kind)
{
    switch (kind) {
    case ReduceKind::Mean:
        return algorithm::reduction_mean;
    case ReduceKind::Sum:
        return algorithm::reduction_sum;
    case ReduceKind::Max:
        return algorithm::reduction_max;
    case ReduceKind::Min:
        return algorithm::reduction_min;
    case ReduceKind::Prod:
        return algorithm::reduction_mul;
    case ReduceKind::L1:
    case ReduceKind::L2:
        return algorithm::reduction_norm_lp_sum;
    case ReduceKind::SumSquare:
        return algorithm::reduction_norm_lp_power_p_sum;
    case ReduceKind::ArgMax:
    case ReduceKind::ArgMin:
    case ReduceKind::TopK:
        break; // host code (compileDataLayer runs argExtreme and topK)
    }
    throw Error("unknown reduction kind");
}

std::int64_t product(const std::vector<std::int64_t>& dims)
{
    std::int64_t n = 1;
    for (auto d : dims)
        n *= d;
    return n;
}

} // namespace

Operand PrimitiveBuilder::constantOperand(const std::vector<float>& values, std::vector<std::int64_t> dims)
{
    constants_.push_back(std::make_shared<std::vector<float>>(values));
    weightBytes_ += static_cast<std::int64_t>(values.size() * sizeof(float));
    return Operand { constants_.back()->data(), std::move(dims), {} };
}

void PrimitiveBuilder::fill(const Operand& dst, float value)
{
    float* base = dst.data;
    const auto count = static_cast<std::size_t>(product(dst.dims));
    hostStep([base, count, value] { std::fill(base, base + count, value); });
}

void PrimitiveBuilder::activate(const Operand& dst, const Activation& act)
{
    eltwiseInPlace(dst, pieces(act));
}

// Whether oneDNN runs this broadcast only in its scalar reference kernel (a broadcast over a
// middle dimension, as Swin's window masks): host code is several times faster there.
bool PrimitiveBuilder::onlyReferenceKernel(
    BinaryKind kind, const Operand& a, const Operand& b, const Operand& dst) const
{
    if (a.dims != dst.dims) // the zero-fill path below; oneDNN handles it as it comes
        return false;
    try {
        dnnl::binary::desc d(binaryAlgorithm(kind), describe(a), describe(b), describe(dst));
        dnnl::binary::primitive_desc pd(d, attr({}), engine_);
        return std::string(pd.impl_info_str()).find("ref") != std::string::npos;
    } catch (const dnnl::error&) {
        return false;
    }
}

void PrimitiveBuilder::binary(
    BinaryKind kind, const std::vector<Operand>& operands, const Operand& dst, const Activation& act)
{
    if (operands.size() < 2)
        throw Error("an element-wise operation needs two operands");
    const std::size_t rank = dst.dims.size();
    std::vector<Operand> ops;
    for (const auto& o : operands)
        ops.push_back(alignedTo(o, rank));
    const bool dense = std::all_of(ops.begin(), ops.end(), [](const Operand& o) { return o.strides.empty(); })
        && dst.strides.empty();
    if (kind == BinaryKind::Pow || kind == BinaryKind::PRelu
        || (ops.size() == 2 && dense && onlyReferenceKernel(kind, ops[0], ops[1], dst))) {
        if (ops.size() != 2 || !dense)
            throw Error(std::string("internal: ") + toString(kind) + " runs on two dense operands only");
        const Operand a = ops[0], b = ops[1];
        hostStep([kind, a, b, dst] { broadcastBinary(kind, a.data, a.dims, b.data, b.dims, dst.data, dst.dims); });
        activate(dst, act);
        return;
    }
    // oneDNN broadcasts the second source only; the first must have dst's shape. A commutative
    // kind swaps a full-shape second operand in front; otherwise dst is zeroed and the first
    // operand added into it.
    const bool commutative = kind == BinaryKind::Add || kind == BinaryKind::Mul || kind == BinaryKind::Min
        || kind == BinaryKind::Max || kind == BinaryKind::Equal;
    if (ops[0].dims != dst.dims && commutative && ops[1].dims == dst.dims)
        std::swap(ops[0], ops[1]);
    std::vector<std::pair<algorithm, Operand>> steps;
    Operand cur = ops[0];
    if (ops[0].dims != dst.dims) {
        fill(dst, 0.0F);
        steps.emplace_back(algorithm::binary_add, ops[0]);
        cur = dst;
    }
    for (std::size_t j = 1; j < ops.size(); ++j)
        steps.emplace_back(binaryAlgorithm(kind), ops[j]);
    const auto ps = pieces(act);
    for (std::size_t j = 0; j < steps.size(); ++j) {
        const bool last = j + 1 == steps.size();
        dnnl::binary::desc d(steps[j].first, describe(cur), describe(steps[j].second), describe(dst));
        bool fused = false;
        auto pd = withPostOps<dnnl::binary::primitive_desc>(
            d, engine_, last && !ps.empty(), [&](bool f) { return attr(f ? ps : std::vector<Piece> {}); }, fused);
        push(pd, dnnl::binary(pd),
            { { DNNL_ARG_SRC_0, bind(cur) }, { DNNL_ARG_SRC_1, bind(steps[j].second) }, { DNNL_ARG_DST, bind(dst) } });
        if (last && !fused)
            eltwiseInPlace(dst, ps);
        cur = dst;
    }
}

void PrimitiveBuilder::matmul(const Operand& a, const Operand& b, const std::vector<float>* constantB,
    const Operand& dst, const Activation& act, const std::vector<float>* bias)
{
    // A dense [..., M, K] times a [K, N] matrix is one [rows, K] x [K, N] GEMM: leading dimensions
    // left as a batch would be many skinny GEMMs (ViT's [197, 1, 768] projections: 197 GEMVs).
    if (b.dims.size() == 2 && a.dims.size() > 2 && a.strides.empty() && dst.strides.empty()) {
        const std::int64_t rows = product(a.dims) / a.dims.back();
        matmul(a.reshaped({ rows, a.dims.back() }), b, constantB, dst.reshaped({ rows, b.dims.back() }), act, bias);
        return;
    }
    auto [ad, bd] = promoteMatMulOperands(a.dims, b.dims);
    const std::size_t rank = ad.size();
    std::vector<std::int64_t> dd(rank);
    for (std::size_t i = 0; i + 2 < rank; ++i)
        dd[i] = std::max(ad[i], bd[i]);
    dd[rank - 2] = ad[rank - 2];
    dd[rank - 1] = bd[rank - 1];
    if (product(dd) != product(dst.dims) || ad[rank - 1] != bd[rank - 2])
        throw Error("matmul operand shapes do not give the output shape");
    const Operand src = a.reshaped(ad), out = dst.reshaped(dd);
    const Operand weights = b.reshaped(bd);
    // A constant right operand goes into the layout oneDNN prefers, once.
    const memory::desc user = describe(weights);
    const memory::desc wanted
        = constantB ? memory::desc(memory::dims(bd.begin(), bd.end()), memory::data_type::f32, tag::any) : user;
    const auto ps = pieces(act);
    // A bias of N values broadcast over every other dimension.
    memory::dims biasDims(rank, 1);
    biasDims[rank - 1] = dd[rank - 1];
    const memory::desc biasDesc(biasDims, memory::data_type::f32, denseStrides(biasDims));
    if (bias && static_cast<std::int64_t>(bias->size()) != dd[rank - 1])
        throw Error("matmul bias has " + std::to_string(bias->size()) + " values for " + std::to_string(dd[rank - 1])
            + " columns");
    bool fused = false;
    auto build = [&](const memory::desc& weightsDesc) {
        const auto d = bias ? dnnl::matmul::desc(describe(src), weightsDesc, biasDesc, describe(out))
                            : dnnl::matmul::desc(describe(src), weightsDesc, describe(out));
        return withPostOps<dnnl::matmul::primitive_desc>(
            d, engine_, !ps.empty(), [&](bool f) { return attr(f ? ps : std::vector<Piece> {}); }, fused);
    };
    auto pd = build(wanted);
    if (constantB && rank == 2 && pd.weights_desc() == user && (bd[1] * sizeof(float)) % kAliasingStride == 0) {
        // oneDNN's gemm:jit (the AVX2 and SSE4.1 matmul; AVX-512 picks a blocked layout) reads an
        // aligned row-major B in place, and rows a multiple of 4 KiB apart fall into the same
        // cache sets: GPT-2's 768x8192 LM head took 35 ms on one AVX2 core, 17.6 ms with each row
        // 16 floats longer (a standalone oneDNN program, same shapes).
        const memory::dims padded { bd[1] + kRowPadding, 1 };
        pd = build(memory::desc(memory::dims(bd.begin(), bd.end()), memory::data_type::f32, padded));
    }
    std::unordered_map<int, dnnl::memory> args { { DNNL_ARG_SRC, bind(src) }, { DNNL_ARG_DST, bind(out) } };
    args[DNNL_ARG_WEIGHTS] = constantB ? constant(user, *constantB, pd.weights_desc()) : bind(weights);
    if (bias)
        args[DNNL_ARG_BIAS] = constant(biasDesc, *bias, pd.bias_desc());
    push(pd, dnnl::matmul(pd), std::move(args));
    if (!fused)
        eltwiseInPlace(out, ps);
}

void PrimitiveBuilder::reduce(ReduceKind kind, const Operand& src, const Operand& dst, const Activation& act)
{
    if (src.dims.size() != dst.dims.size())
        throw Error("reduction output must keep the input's rank");
    // Reducing axes of extent 1 changes nothing (oneDNN refuses equal shapes).
    if (src.dims == dst.dims) {
        eltwise(src, dst, { act });
        return;
    }
    const auto ps = pieces(act);
    // The norms' p: (sum |x|^p)^(1/p) for L1 and L2, sum |x|^p for SumSquare.
    const float p = kind == ReduceKind::L1                          ? 1.0F
        : (kind == ReduceKind::L2 || kind == ReduceKind::SumSquare) ? 2.0F
                                                                    : 0.0F;
    dnnl::reduction::desc d(reductionAlgorithm(kind), describe(src), describe(dst), p, 0.0F);
    bool fused = false;
    auto pd = withPostOps<dnnl::reduction::primitive_desc>(
        d, engine_, !ps.empty(), [&](bool f) { return attr(f ? ps : std::vector<Piece> {}); }, fused);
    if (avoidReference_ && isReferenceImplementation(pd.impl_info_str())) {
        // oneDNN 2.6 reduces over channels, or over the last axis of a small tensor, only in its
        // reference loop: host code over the operands' own strides instead, threaded.
        const auto inStrides = src.strides.empty() ? denseStrides(src.dims) : memory::dims(src.strides);
        const auto outStrides = dst.strides.empty() ? denseStrides(dst.dims) : memory::dims(dst.strides);
        hostStep([kind, in = src.data, inDims = src.dims, inStrides, out = dst.data, outDims = dst.dims, outStrides] {
            cpu::reduceAxes(kind, in, inDims, inStrides, out, outDims, outStrides);
        });
        activate(dst, act);
        return;
    }
    push(pd, dnnl::reduction(pd), { { DNNL_ARG_SRC, bind(src) }, { DNNL_ARG_DST, bind(dst) } });
    if (!fused)
        eltwiseInPlace(dst, ps);
}

void PrimitiveBuilder::batchNorm(const Operand& src, const Operand& dst, const std::vector<float>& scale,
    const std::vector<float>& shift, const std::vector<float>& mean, const std::vector<float>& variance, float epsilon,
    const Activation& act)
{
    if (src.dims.size() < 2)
        throw Error("batch normalisation needs a channel dimension");
    // oneDNN normalises 3-D to 5-D tensors; other ranks fold their spatial axes into one (the
    // statistics are per channel either way).
    // Dense operands of another rank than 4 and 5 run as [N, C, rest, 1]: oneDNN 2.6 has JIT
    // kernels for 4-D and 5-D plain layouts only (3-D runs bnorm_ref, 40 times slower).
    std::vector<std::int64_t> dims = src.dims;
    const bool dense = src.strides.empty() && dst.strides.empty();
    if (dense && dims.size() != 4 && dims.size() != 5)
        dims = { dims[0], dims[1], product(dims) / (dims[0] * dims[1]), 1 };
    else if (dims.size() == 2)
        dims.push_back(1);
    else if (dims.size() > 5)
        dims = { dims[0], dims[1], product(dims) / (dims[0] * dims[1]) };
    const Operand in = src.reshaped(dims), out = dst.reshaped(dims);
    const std::int64_t channels = dims[1];
    const memory::desc perChannel({ channels }, memory::data_type::f32, tag::x);
    const auto ps = pieces(act);
    const auto flags = dnnl::normalization_flags::use_global_stats | dnnl::normalization_flags::use_scale
        | dnnl::normalization_flags::use_shift;
    dnnl::batch_normalization_forward::desc d(prop_kind::forward_inference, describe(in), epsilon, flags);
    bool fused = false;
    auto pd = withPostOps<dnnl::batch_normalization_forward::primitive_desc>(
        d, engine_, !ps.empty(), [&](bool f) { return attr(f ? ps : std::vector<Piece> {}); }, fused);
    if (pd.dst_desc() != describe(out))
        throw Error("oneDNN's batch normalisation wants another output layout");
    push(pd, dnnl::batch_normalization_forward(pd),
        { { DNNL_ARG_SRC, bind(in) }, { DNNL_ARG_DST, bind(out) },
            { DNNL_ARG_SCALE, constant(perChannel, scale, perChannel) },
            { DNNL_ARG_SHIFT, constant(perChannel, shift, perChannel) },
            { DNNL_ARG_MEAN, constant(perChannel, mean, perChannel) },
            { DNNL_ARG_VARIANCE, constant(perChannel, variance, perChannel) } });
    if (!fused)
        eltwiseInPlace(out, ps);
}

void PrimitiveBuilder::gather(const float* base, const StridedView& view, const Operand& dst, const Activation& act)
{
    if (product(view.dims) != product(dst.dims))
        throw Error("a view and its destination differ in size");
    if (view.hasNegativeStride() || view.dims.empty()) {
        StridedView v = view;
        float* out = dst.data;
        hostStep([base, v, out] { copyView(base, v, out); });
    } else {
        // A reorder from the view (strides in the descriptor) into dense dst of the view's dims.
        const Operand src { const_cast<float*>(base) + view.offset, view.dims, view.strides };
        copy(src, dst.reshaped(view.dims));
    }
    activate(dst, act);
}

void PrimitiveBuilder::pad(const Pad& p, const Operand& src, const Operand& dst, const Activation& act)
{
    const std::size_t rank = src.dims.size();
    if (p.pads.size() != 2 * rank || dst.dims.size() != rank)
        throw Error("pad needs 2 x rank pads");
    if (p.mode == PadMode::Constant) {
        // Fill, then one reorder of the part of src that lands inside dst (pads may be negative).
        const auto dstStrides = rowMajorStrides(dst.dims), srcStrides = rowMajorStrides(src.dims);
        std::int64_t srcOffset = 0, dstOffset = 0;
        std::vector<std::int64_t> dims(rank);
        bool grows = false;
        for (std::size_t d = 0; d < rank; ++d) {
            const std::int64_t before = p.pads[d], after = p.pads[d + rank];
            grows = grows || before > 0 || after > 0;
            srcOffset += std::max<std::int64_t>(0, -before) * srcStrides[d];
            dstOffset += std::max<std::int64_t>(0, before) * dstStrides[d];
            dims[d] = src.dims[d] + std::min<std::int64_t>(0, before) + std::min<std::int64_t>(0, after);
        }
        if (grows)
            fill(dst, p.value);
        if (product(dims) > 0)
            copy(Operand { src.data + srcOffset, dims, { srcStrides.begin(), srcStrides.end() } },
                Operand { dst.data + dstOffset, dims, { dstStrides.begin(), dstStrides.end() } });
        activate(dst, act);
        return;
    }
    std::vector<std::vector<std::int64_t>> indices;
    for (std::size_t d = 0; d < rank; ++d)
        indices.push_back(padSourceIndices(src.dims[d], p.pads[d], dst.dims[d], p.mode));
    const float* in = src.data;
    float* out = dst.data;
    hostStep([in, inDims = src.dims, out, outDims = dst.dims, indices, value = p.value] {
        padGather(in, inDims, out, outDims, indices, value);
    });
    activate(dst, act);
}

} // namespace opsched::cpu
