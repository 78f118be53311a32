#include "exec/cuda/tensor_op_geometry.h"

#include "exec/cpu/resize_taps.h"
#include "exec/cpu/tensor_views.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <string>

namespace opsched::gpu {
namespace {

std::string dimsText(const std::vector<std::int64_t>& dims)
{
    std::string s = "[";
    for (std::size_t i = 0; i < dims.size(); ++i)
        s += (i ? ", " : "") + std::to_string(dims[i]);
    return s + "]";
}

void checkRank(std::size_t rank, const char* what)
{
    if (rank > static_cast<std::size_t>(kernels::kTensorMaxRank))
        throw Error(std::string(what) + " needs " + std::to_string(rank)
            + " axes after merging contiguous ones; the CUDA kernels take " + std::to_string(kernels::kTensorMaxRank));
}

template <std::size_t N> void fill(std::int64_t (&dst)[N], const std::vector<std::int64_t>& src)
{
    std::copy(src.begin(), src.end(), dst);
}

// The kernels switch on plain ints; they must mean what graph/layer.h's enums mean.
constexpr bool sameCode(ActivationKind k, kernels::ActivationCode c)
{
    return static_cast<int>(k) == static_cast<int>(c);
}
constexpr bool sameCode(BinaryKind k, kernels::ElementwiseCode c)
{
    return static_cast<int>(k) == static_cast<int>(c);
}
static_assert(sameCode(ActivationKind::Tanh, kernels::kActTanh) && sameCode(ActivationKind::Gelu, kernels::kActGelu)
    && sameCode(ActivationKind::GeluTanh, kernels::kActGeluTanh) && sameCode(ActivationKind::Erf, kernels::kActErf)
    && sameCode(ActivationKind::Sqrt, kernels::kActSqrt) && sameCode(ActivationKind::Exp, kernels::kActExp)
    && sameCode(ActivationKind::Log, kernels::kActLog) && sameCode(ActivationKind::Abs, kernels::kActAbs)
    && sameCode(ActivationKind::Neg, kernels::kActNeg) && sameCode(ActivationKind::Reciprocal, kernels::kActReciprocal)
    && sameCode(ActivationKind::Pow, kernels::kActPow) && sameCode(ActivationKind::Not, kernels::kActNot)
    && sameCode(ActivationKind::NonZero, kernels::kActNonZero)
    && sameCode(ActivationKind::Truncate, kernels::kActTruncate)
    && sameCode(ActivationKind::LeakyRelu, kernels::kActLeakyRelu) && sameCode(ActivationKind::Elu, kernels::kActElu)
    && sameCode(ActivationKind::Selu, kernels::kActSelu) && sameCode(ActivationKind::Celu, kernels::kActCelu)
    && sameCode(ActivationKind::Softplus, kernels::kActSoftplus)
    && sameCode(ActivationKind::Softsign, kernels::kActSoftsign) && sameCode(ActivationKind::Mish, kernels::kActMish)
    && sameCode(ActivationKind::ThresholdedRelu, kernels::kActThresholdedRelu)
    && sameCode(ActivationKind::Floor, kernels::kActFloor) && sameCode(ActivationKind::Ceil, kernels::kActCeil)
    && sameCode(ActivationKind::Round, kernels::kActRound) && sameCode(ActivationKind::Sign, kernels::kActSign)
    && sameCode(ActivationKind::Sin, kernels::kActSin) && sameCode(ActivationKind::Cos, kernels::kActCos));
static_assert(sameCode(BinaryKind::Add, kernels::kAdd) && sameCode(BinaryKind::Sub, kernels::kSub)
    && sameCode(BinaryKind::Mul, kernels::kMul) && sameCode(BinaryKind::Div, kernels::kDiv)
    && sameCode(BinaryKind::Pow, kernels::kPow) && sameCode(BinaryKind::Min, kernels::kMin)
    && sameCode(BinaryKind::Max, kernels::kMax) && sameCode(BinaryKind::Equal, kernels::kEqual)
    && sameCode(BinaryKind::Less, kernels::kLess) && sameCode(BinaryKind::Greater, kernels::kGreater)
    && sameCode(BinaryKind::PRelu, kernels::kPRelu));

// One element-wise launch over the dense output, each operand walked with its strides.
kernels::Elementwise elementwiseLaunch(
    int code, std::vector<std::vector<std::int64_t>> strides, const std::vector<std::int64_t>& outDims)
{
    auto dims = outDims;
    auto out = cpu::rowMajorStrides(outDims);
    std::vector<std::vector<std::int64_t>*> sets { &out };
    for (auto& s : strides)
        sets.push_back(&s);
    collapseDims(dims, sets);
    checkRank(dims.size(), "an element-wise operation");
    kernels::Elementwise e;
    e.kind = code;
    e.rank = static_cast<int>(dims.size());
    fill(e.dims, dims);
    e.count = static_cast<int>(strides.size());
    for (std::size_t k = 0; k < strides.size(); ++k)
        fill(e.strides[k], strides[k]);
    return e;
}

} // namespace

std::vector<std::int64_t> broadcastStrides(
    const std::vector<std::int64_t>& operandDims, const std::vector<std::int64_t>& outDims)
{
    if (operandDims.size() > outDims.size())
        throw Error(
            "an operand of shape " + dimsText(operandDims) + " has more axes than the result " + dimsText(outDims));
    const std::size_t shift = outDims.size() - operandDims.size();
    const auto dense = cpu::rowMajorStrides(operandDims);
    std::vector<std::int64_t> strides(outDims.size(), 0);
    for (std::size_t d = 0; d < operandDims.size(); ++d) {
        const std::int64_t extent = operandDims[d], out = outDims[d + shift];
        if (extent != out && extent != 1)
            throw Error("an operand of shape " + dimsText(operandDims) + " does not broadcast to " + dimsText(outDims));
        strides[d + shift] = extent == 1 ? 0 : dense[d];
    }
    return strides;
}

void collapseDims(std::vector<std::int64_t>& dims, std::vector<std::vector<std::int64_t>*> strideSets)
{
    // Extent-1 axes are never walked: drop them.
    for (std::size_t d = dims.size(); d-- > 0;)
        if (dims[d] == 1) {
            dims.erase(dims.begin() + static_cast<std::ptrdiff_t>(d));
            for (auto* s : strideSets)
                s->erase(s->begin() + static_cast<std::ptrdiff_t>(d));
        }
    // Axis d folds into d + 1 when every set steps over d + 1's whole extent in one step of d.
    for (std::size_t d = dims.size(); d-- > 1;) {
        const std::size_t outer = d - 1;
        const bool contiguous = std::all_of(
            strideSets.begin(), strideSets.end(), [&](const auto* s) { return (*s)[outer] == (*s)[d] * dims[d]; });
        if (!contiguous)
            continue;
        dims[d] *= dims[outer];
        dims.erase(dims.begin() + static_cast<std::ptrdiff_t>(outer));
        for (auto* s : strideSets)
            s->erase(s->begin() + static_cast<std::ptrdiff_t>(outer));
    }
}

kernels::StridedCopy stridedCopy(
    const cpu::StridedView& view, std::vector<std::int64_t> dstStrides, std::int64_t dstOffset)
{
    if (dstStrides.size() != view.dims.size())
        throw Error("a strided copy's source and destination differ in rank");
    auto dims = view.dims;
    auto srcStrides = view.strides;
    collapseDims(dims, { &srcStrides, &dstStrides });
    checkRank(dims.size(), "a strided copy");
    kernels::StridedCopy c;
    c.rank = static_cast<int>(dims.size());
    fill(c.dims, dims);
    fill(c.srcStrides, srcStrides);
    fill(c.dstStrides, dstStrides);
    c.srcOffset = view.offset;
    c.dstOffset = dstOffset;
    return c;
}

kernels::StridedCopy denseCopy(const cpu::StridedView& view)
{
    return stridedCopy(view, cpu::rowMajorStrides(view.dims), 0);
}

std::vector<kernels::StridedCopy> concatCopies(
    const std::vector<std::vector<std::int64_t>>& operandDims, const std::vector<std::int64_t>& outDims, int axis)
{
    const auto rank = outDims.size();
    if (axis < 0 || static_cast<std::size_t>(axis) >= rank)
        throw Error("concat axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    const auto a = static_cast<std::size_t>(axis);
    const auto outStrides = cpu::rowMajorStrides(outDims);
    std::vector<kernels::StridedCopy> copies;
    std::int64_t at = 0;
    for (const auto& dims : operandDims) {
        for (std::size_t d = 0; d < rank; ++d)
            if (dims.size() != rank || (d != a && dims[d] != outDims[d]))
                throw Error("concat operand " + dimsText(dims) + " does not fit the result " + dimsText(outDims)
                    + " along axis " + std::to_string(axis));
        const cpu::StridedView src { 0, dims, cpu::rowMajorStrides(dims) };
        copies.push_back(stridedCopy(src, outStrides, at * outStrides[a]));
        at += dims[a];
    }
    if (at != outDims[a])
        throw Error("concat operands add up to " + std::to_string(at) + " along axis " + std::to_string(axis)
            + ", the result has " + std::to_string(outDims[a]));
    return copies;
}

BinaryLaunches binaryLaunches(BinaryKind kind, const std::vector<std::vector<std::int64_t>>& operandDims,
    const std::vector<std::int64_t>& outDims)
{
    if (operandDims.size() < 2)
        throw Error("an element-wise operation needs two operands");
    BinaryLaunches result;
    const auto dense = cpu::rowMajorStrides(outDims);
    std::size_t next = 0;
    while (next < operandDims.size()) {
        std::vector<int> slots;
        if (next > 0)
            slots.push_back(-1); // what the previous launch wrote
        while (slots.size() < static_cast<std::size_t>(kernels::kMaxOperands) && next < operandDims.size())
            slots.push_back(static_cast<int>(next++));
        std::vector<std::vector<std::int64_t>> strides;
        for (int slot : slots)
            strides.push_back(
                slot < 0 ? dense : broadcastStrides(operandDims[static_cast<std::size_t>(slot)], outDims));
        const kernels::Elementwise e = elementwiseLaunch(static_cast<int>(kind), std::move(strides), outDims);
        result.launches.push_back(e);
        result.operandOf.push_back(std::move(slots));
    }
    return result;
}

std::vector<std::size_t> binaryOperandOrder(const Binary& binary, std::size_t terms, std::size_t weights)
{
    std::vector<std::size_t> order(terms + weights);
    for (std::size_t k = 0; k < order.size(); ++k)
        order[k] = k;
    if (binary.constantFirst) {
        if (weights != 1)
            throw Error(
                "an element-wise operation with its constant first needs one constant, not " + std::to_string(weights));
        std::rotate(order.begin(), order.end() - 1, order.end());
    }
    return order;
}

kernels::Elementwise whereGeometry(const std::vector<std::int64_t>& conditionDims,
    const std::vector<std::int64_t>& xDims, const std::vector<std::int64_t>& yDims,
    const std::vector<std::int64_t>& outDims)
{
    return elementwiseLaunch(kernels::kSelect,
        { broadcastStrides(conditionDims, outDims), broadcastStrides(xDims, outDims),
            broadcastStrides(yDims, outDims) },
        outDims);
}

kernels::StridedCopy expandCopy(const std::vector<std::int64_t>& inDims, const std::vector<std::int64_t>& outDims)
{
    return denseCopy(cpu::StridedView { 0, outDims, broadcastStrides(inDims, outDims) });
}

kernels::RowNorm rowNormGeometry(const LayerNorm& norm, const std::vector<std::int64_t>& inDims,
    const std::vector<std::int64_t>& scaleDims, const std::vector<std::int64_t>* biasDims)
{
    const auto rank = static_cast<int>(inDims.size());
    const int axis = norm.axis < 0 ? norm.axis + rank : norm.axis;
    if (rank < 1 || axis < 0 || axis >= rank)
        throw Error(
            "layer normalisation axis " + std::to_string(norm.axis) + " is out of range for " + dimsText(inDims));
    const std::vector<std::int64_t> normalised(inDims.begin() + axis, inDims.end());
    // How many elements a per-row parameter covers: the whole row (whatever its dims say, as the
    // graph builder checks only the count), or a trailing part of it.
    auto cycle = [&](const std::vector<std::int64_t>& dims, const char* what) {
        if (cpu::elementCount(dims) == cpu::elementCount(normalised))
            return cpu::elementCount(normalised);
        auto first = std::find_if(dims.begin(), dims.end(), [](std::int64_t d) { return d != 1; });
        const std::vector<std::int64_t> trimmed(first, dims.end());
        if (trimmed.size() > normalised.size()
            || !std::equal(
                trimmed.begin(), trimmed.end(), normalised.end() - static_cast<std::ptrdiff_t>(trimmed.size())))
            throw Error(std::string("layer normalisation ") + what + " " + dimsText(dims)
                + " does not fit the normalised axes " + dimsText(normalised));
        return cpu::elementCount(trimmed);
    };
    kernels::RowNorm p;
    p.cols = cpu::elementCount(normalised);
    p.rows = p.cols > 0 ? cpu::elementCount(inDims) / p.cols : 0;
    p.scaleCount = cycle(scaleDims, "scale");
    p.biasCount = biasDims ? cycle(*biasDims, "bias") : 0;
    p.epsilon = norm.epsilon;
    p.rms = norm.rms;
    // About four elements per thread, in whole warps, within a block's limit.
    const std::int64_t warps = std::clamp<std::int64_t>((p.cols / 4 + 31) / 32, 1, 32);
    p.threads = static_cast<int>(warps * 32);
    return p;
}

kernels::GatherRows gatherGeometry(const std::vector<std::int64_t>& dataDims, int axis, std::int64_t indexCount,
    const std::vector<std::int64_t>& outDims)
{
    const auto rank = static_cast<int>(dataDims.size());
    const int a = axis < 0 ? axis + rank : axis;
    if (a < 0 || a >= rank)
        throw Error("gather axis " + std::to_string(axis) + " is out of range for " + dimsText(dataDims));
    const auto at = static_cast<std::size_t>(a);
    kernels::GatherRows g;
    g.outer = cpu::elementCount({ dataDims.begin(), dataDims.begin() + a });
    g.axisLen = dataDims[at];
    g.count = indexCount;
    g.inner = cpu::elementCount({ dataDims.begin() + a + 1, dataDims.end() });
    if (g.outer * g.count * g.inner != cpu::elementCount(outDims))
        throw Error("gather of " + std::to_string(indexCount) + " indices from " + dimsText(dataDims) + " along axis "
            + std::to_string(axis) + " does not give " + dimsText(outDims));
    return g;
}

kernels::GatherElements gatherElementsGeometry(
    const std::vector<std::int64_t>& dataDims, int axis, const std::vector<std::int64_t>& indexDims)
{
    const auto rank = static_cast<int>(dataDims.size());
    const int a = axis < 0 ? axis + rank : axis;
    if (a < 0 || a >= rank || indexDims.size() != dataDims.size() || rank > kernels::kTensorMaxRank)
        throw Error("gather-elements of " + dimsText(indexDims) + " indices from " + dimsText(dataDims) + " along axis "
            + std::to_string(axis) + " does not fit (same rank, at most " + std::to_string(kernels::kTensorMaxRank)
            + ")");
    kernels::GatherElements g;
    g.rank = rank;
    g.axis = a;
    g.axisLen = dataDims[static_cast<std::size_t>(a)];
    const auto strides = cpu::rowMajorStrides(dataDims);
    for (std::size_t d = 0; d < dataDims.size(); ++d) {
        if (static_cast<int>(d) != a && indexDims[d] > dataDims[d])
            throw Error("gather-elements indices " + dimsText(indexDims) + " exceed the data " + dimsText(dataDims));
        g.outDims[d] = indexDims[d];
        g.dataStrides[d] = strides[d];
    }
    return g;
}

std::vector<std::int64_t> normalisedGatherIndices(const std::vector<std::int64_t>& indices, std::int64_t axisLen)
{
    std::vector<std::int64_t> out;
    for (auto i : indices) {
        if (i < -axisLen || i >= axisLen)
            throw Error(
                "gather index " + std::to_string(i) + " is out of range for an axis of " + std::to_string(axisLen));
        out.push_back(i < 0 ? i + axisLen : i);
    }
    return out;
}

kernels::BatchedMatMul matMulGeometry(const std::vector<std::int64_t>& aDims, const std::vector<std::int64_t>& bDims,
    const std::vector<std::int64_t>& outDims)
{
    auto [ad, bd] = cpu::promoteMatMulOperands(aDims, bDims);
    const std::size_t rank = ad.size();
    const std::string shapes = dimsText(aDims) + " x " + dimsText(bDims);
    if (ad[rank - 1] != bd[rank - 2])
        throw Error("matmul of " + shapes + ": inner dimensions differ");
    std::vector<std::int64_t> batchDims(rank - 2);
    for (std::size_t i = 0; i + 2 < rank; ++i) {
        if (ad[i] != bd[i] && ad[i] != 1 && bd[i] != 1)
            throw Error("matmul of " + shapes + ": batch dimensions do not broadcast");
        batchDims[i] = std::max(ad[i], bd[i]);
    }
    kernels::BatchedMatMul g;
    g.m = ad[rank - 2];
    g.k = ad[rank - 1];
    g.n = bd[rank - 1];
    g.batch = cpu::elementCount(batchDims);
    if (g.batch * g.m * g.n != cpu::elementCount(outDims))
        throw Error("matmul of " + shapes + " does not give " + dimsText(outDims));
    // Batch strides of each operand's matrices; 0 where that operand is broadcast.
    std::vector<std::int64_t> aStrides(rank - 2), bStrides(rank - 2);
    std::int64_t aStep = g.m * g.k, bStep = g.k * g.n;
    for (std::size_t i = rank - 2; i-- > 0;) {
        aStrides[i] = ad[i] == 1 ? 0 : aStep;
        bStrides[i] = bd[i] == 1 ? 0 : bStep;
        aStep *= ad[i];
        bStep *= bd[i];
    }
    auto outStrides = cpu::rowMajorStrides(batchDims);
    collapseDims(batchDims, { &aStrides, &bStrides, &outStrides });
    checkRank(batchDims.size(), "a matmul's batch");
    g.batchRank = static_cast<int>(batchDims.size());
    fill(g.batchDims, batchDims);
    fill(g.aBatchStrides, aStrides);
    fill(g.bBatchStrides, bStrides);
    return g;
}

kernels::Reduction reductionGeometry(
    ReduceKind kind, const std::vector<std::int64_t>& inDims, const std::vector<std::int64_t>& axes)
{
    const auto rank = static_cast<std::int64_t>(inDims.size());
    std::vector<bool> reduced(inDims.size(), axes.empty());
    for (auto a : axes) {
        if (a < -rank || a >= rank)
            throw Error("reduce axis " + std::to_string(a) + " is out of range for rank " + std::to_string(rank));
        reduced[static_cast<std::size_t>(a < 0 ? a + rank : a)] = true;
    }
    const auto inStrides = cpu::rowMajorStrides(inDims);
    std::vector<std::int64_t> keptDims, keptStrides, reducedDims, reducedStrides;
    for (std::size_t d = 0; d < inDims.size(); ++d) {
        (reduced[d] ? reducedDims : keptDims).push_back(inDims[d]);
        (reduced[d] ? reducedStrides : keptStrides).push_back(inStrides[d]);
    }
    kernels::Reduction r;
    r.kind = static_cast<int>(kind);
    r.reducedCount = cpu::elementCount(reducedDims);
    if (r.reducedCount == 0)
        throw Error("reduce over an empty axis of " + dimsText(inDims));
    auto outStrides = cpu::rowMajorStrides(keptDims);
    collapseDims(keptDims, { &keptStrides, &outStrides });
    collapseDims(reducedDims, { &reducedStrides });
    checkRank(keptDims.size(), "a reduction's kept axes");
    checkRank(reducedDims.size(), "a reduction's reduced axes");
    r.keptRank = static_cast<int>(keptDims.size());
    fill(r.keptDims, keptDims);
    fill(r.keptStrides, keptStrides);
    r.reducedRank = static_cast<int>(reducedDims.size());
    fill(r.reducedDims, reducedDims);
    fill(r.reducedStrides, reducedStrides);
    return r;
}

PadTables padGeometry(const Pad& pad, const std::vector<std::int64_t>& inDims, const std::vector<std::int64_t>& outDims)
{
    const std::size_t rank = inDims.size();
    if (pad.pads.size() != 2 * rank || outDims.size() != rank)
        throw Error("pad needs 2 x rank pads");
    checkRank(rank, "a pad");
    PadTables t;
    t.gather.rank = static_cast<int>(rank);
    t.gather.value = pad.value;
    const auto inStrides = cpu::rowMajorStrides(inDims);
    for (std::size_t d = 0; d < rank; ++d) {
        if (outDims[d] != inDims[d] + pad.pads[d] + pad.pads[d + rank])
            throw Error("pad of " + dimsText(inDims) + " does not give " + dimsText(outDims));
        if (inDims[d] == 0 && pad.mode != PadMode::Constant && outDims[d] > 0)
            throw Error("reflect and edge pads need a non-empty axis");
        t.gather.outDims[d] = outDims[d];
        t.gather.inStrides[d] = inStrides[d];
        t.gather.indexOffsets[d] = static_cast<std::int64_t>(t.indices.size());
        const auto axis = cpu::padSourceIndices(inDims[d], pad.pads[d], outDims[d], pad.mode);
        t.indices.insert(t.indices.end(), axis.begin(), axis.end());
    }
    return t;
}

ResizeTables resizeGeometry(
    const Resize& resize, const std::vector<std::int64_t>& inDims, const std::vector<std::int64_t>& outDims)
{
    const std::size_t rank = inDims.size();
    checkRank(rank, "a resize");
    const auto taps = cpu::resizeTaps(resize, inDims, outDims);
    ResizeTables t;
    t.gather.rank = static_cast<int>(rank);
    const auto inStrides = cpu::rowMajorStrides(inDims);
    for (std::size_t d = 0; d < rank; ++d) {
        t.gather.outDims[d] = outDims[d];
        t.gather.inStrides[d] = inStrides[d];
        t.gather.taps[d] = taps[d].taps;
        t.gather.tableOffsets[d] = static_cast<std::int64_t>(t.indices.size());
        t.indices.insert(t.indices.end(), taps[d].index.begin(), taps[d].index.end());
        t.weights.insert(t.weights.end(), taps[d].weight.begin(), taps[d].weight.end());
    }
    return t;
}

kernels::ConvTransposeShape convTransposeGeometry(
    const ConvTranspose2d& c, const std::vector<std::int64_t>& inDims, const std::vector<std::int64_t>& outDims)
{
    const std::size_t rank = inDims.size();
    if ((rank != 4 && rank != 5) || outDims.size() != rank)
        throw Error("a transposed convolution runs on NCHW or NCDHW tensors, not " + dimsText(inDims) + " -> "
            + dimsText(outDims));
    kernels::ConvTransposeShape s;
    s.batch = inDims[0];
    s.inChannels = inDims[1];
    s.inH = inDims[rank - 2];
    s.inW = inDims[rank - 1];
    s.outChannels = outDims[1];
    s.outH = outDims[rank - 2];
    s.outW = outDims[rank - 1];
    s.kernelH = c.kernelH;
    s.kernelW = c.kernelW;
    s.strideH = c.strideH;
    s.strideW = c.strideW;
    s.padTop = c.padTop;
    s.padLeft = c.padLeft;
    s.dilationH = c.dilationH;
    s.dilationW = c.dilationW;
    s.groups = c.groups;
    if (rank == 5) {
        s.inD = inDims[2];
        s.outD = outDims[2];
        s.kernelD = c.kernelD;
        s.strideD = c.strideD;
        s.padFront = c.padFront;
        s.dilationD = c.dilationD;
    }
    if (c.outChannels != s.outChannels || c.groups < 1 || s.inChannels % c.groups != 0 || s.outChannels % c.groups != 0
        || outDims[0] != s.batch)
        throw Error("transposed convolution of " + dimsText(inDims) + " does not give " + dimsText(outDims));
    return s;
}

kernels::Conv3dShape conv3dGeometry(
    const Conv2d& c, const std::vector<std::int64_t>& inDims, const std::vector<std::int64_t>& outDims)
{
    if (inDims.size() != 5 || outDims.size() != 5 || inDims[0] != outDims[0] || outDims[1] != c.outChannels
        || c.groups < 1 || inDims[1] % c.groups != 0 || c.outChannels % c.groups != 0)
        throw Error("3-D convolution of " + dimsText(inDims) + " does not give " + dimsText(outDims));
    kernels::Conv3dShape s;
    s.batch = inDims[0];
    s.inChannels = inDims[1];
    s.outChannels = outDims[1];
    s.groups = c.groups;
    const std::int64_t kernel[3] { c.kernelD, c.kernelH, c.kernelW }, stride[3] { c.strideD, c.strideH, c.strideW };
    const std::int64_t pad[3] { c.padFront, c.padTop, c.padLeft },
        dilation[3] { c.dilationD, c.dilationH, c.dilationW };
    for (std::size_t d = 0; d < 3; ++d) {
        s.in[d] = inDims[d + 2];
        s.out[d] = outDims[d + 2];
        s.kernel[d] = kernel[d];
        s.stride[d] = stride[d];
        s.padBegin[d] = pad[d];
        s.dilation[d] = dilation[d];
    }
    return s;
}

ScaleShift batchNormScaleShift(const std::vector<float>& gamma, const std::vector<float>& beta,
    const std::vector<float>& mean, const std::vector<float>& variance, float epsilon)
{
    const std::size_t channels = gamma.size();
    if (beta.size() != channels || mean.size() != channels || variance.size() != channels)
        throw Error("batch normalisation needs scale, bias, mean and variance of one length each");
    ScaleShift s;
    for (std::size_t c = 0; c < channels; ++c) {
        // In double: var + eps may be tiny, and this is done once.
        const double scale = gamma[c] / std::sqrt(static_cast<double>(variance[c]) + epsilon);
        s.scale.push_back(static_cast<float>(scale));
        s.shift.push_back(static_cast<float>(beta[c] - mean[c] * scale));
    }
    return s;
}

} // namespace opsched::gpu
