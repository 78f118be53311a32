#include "graph/shape_inference.h"

#include "util/error.h"

#include <algorithm>
#include <cmath>

namespace opsched {

std::int64_t windowOutputSize(std::int64_t in, std::int64_t padA, std::int64_t padB, std::int64_t kernel,
    std::int64_t stride, std::int64_t dilation, bool ceilMode)
{
    const std::int64_t span = dilation * (kernel - 1) + 1;
    const std::int64_t room = in + padA + padB - span;
    if (room < 0)
        return 0;
    std::int64_t out = (ceilMode ? (room + stride - 1) / stride : room / stride) + 1;
    // Ceil mode never adds a window that starts in the right padding (PyTorch and ONNX).
    if (ceilMode && (out - 1) * stride >= in + padA)
        --out;
    return out;
}

namespace {

// No single activation may exceed this many elements (16 GiB of float32): a guard against
// absurd dimensions before anything is allocated.
constexpr std::int64_t kMaxElements = std::int64_t { 1 } << 32;

[[noreturn]] void fail(const std::string& opName, const std::string& what)
{
    throw GraphError("op '" + opName + "': " + what);
}

Shape broadcast(const std::string& opName, const Shape& a, const Shape& b)
{
    const int rank = std::max(a.rank(), b.rank());
    std::vector<std::int64_t> dims(static_cast<std::size_t>(rank));
    for (int i = 0; i < rank; ++i) {
        const int ia = i - (rank - a.rank());
        const int ib = i - (rank - b.rank());
        const std::int64_t da = ia >= 0 ? a[ia] : 1;
        const std::int64_t db = ib >= 0 ? b[ib] : 1;
        if (da != db && da != 1 && db != 1)
            fail(opName, "cannot broadcast " + a.toString() + " with " + b.toString());
        dims[static_cast<std::size_t>(i)] = std::max(da, db);
    }
    return Shape(std::move(dims));
}

void checkShape(const std::string& opName, const Shape& s, const char* what)
{
    for (auto d : s.dims)
        if (d <= 0)
            fail(opName, std::string(what) + " shape " + s.toString() + " has a non-positive dimension");
    if (s.elements() > kMaxElements)
        fail(opName, std::string(what) + " shape " + s.toString() + " is too large");
}

} // namespace

std::vector<Shape> operandShapes(const std::string& opName, const std::vector<std::vector<Shape>>& termShapes,
    const std::vector<Shape>& weightShapes)
{
    std::vector<Shape> out;
    for (const auto& term : termShapes) {
        if (term.size() != 1)
            fail(opName, "an operand must be a single tensor, not a sum");
        out.push_back(term.front());
    }
    out.insert(out.end(), weightShapes.begin(), weightShapes.end());
    return out;
}

Shape combinedInputShape(
    const std::string& opName, const Layer& first, const std::vector<std::vector<Shape>>& termShapes)
{
    if (termShapes.empty())
        fail(opName, "has no inputs");
    if (first.takesOperands()) {
        if (termShapes.front().size() != 1)
            fail(opName, "an operand must be a single tensor, not a sum");
        return termShapes.front().front();
    }
    if (std::holds_alternative<Multiply>(first.params)) {
        Shape out = termShapes.front().front();
        for (const auto& term : termShapes) {
            if (term.size() != 1)
                fail(opName, "Multiply takes one tensor per operand");
            out = broadcast(opName, out, term.front());
        }
        return out;
    }
    std::vector<Shape> sums;
    for (const auto& term : termShapes) {
        if (term.empty())
            fail(opName, "has an empty input term");
        for (const auto& s : term)
            if (s != term.front())
                fail(opName, "summed inputs differ in shape: " + term.front().toString() + " vs " + s.toString());
        sums.push_back(term.front());
    }
    Shape out = sums.front();
    if (sums.size() == 1)
        return out;
    if (out.rank() < 2)
        fail(opName, "cannot concatenate tensors of rank " + std::to_string(out.rank()));
    out.dims[1] = 0;
    for (const auto& s : sums) {
        Shape a = s, b = sums.front();
        a.dims[1] = b.dims[1] = 0;
        if (a.rank() != b.rank() || a != b)
            fail(opName,
                "concatenated inputs differ outside the channel axis: " + sums.front().toString() + " vs "
                    + s.toString());
        out.dims[1] += s.dims[1];
    }
    return out;
}

namespace {

std::int64_t normaliseAxis(const std::string& opName, std::int64_t axis, int rank)
{
    if (axis < -rank || axis >= rank)
        fail(opName, "axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    return axis < 0 ? axis + rank : axis;
}

Shape matmulShape(const std::string& opName, Shape a, Shape b)
{
    if (a.rank() == 0 || b.rank() == 0)
        fail(opName, "matmul operands must have at least one dimension");
    const bool aVector = a.rank() == 1, bVector = b.rank() == 1;
    if (aVector)
        a.dims.insert(a.dims.begin(), 1);
    if (bVector)
        b.dims.push_back(1);
    const auto k = a.dims.back();
    if (k != b.dims[b.dims.size() - 2])
        fail(opName, "matmul inner dimensions differ: " + a.toString() + " x " + b.toString());
    Shape batchA(std::vector<std::int64_t>(a.dims.begin(), a.dims.end() - 2));
    Shape batchB(std::vector<std::int64_t>(b.dims.begin(), b.dims.end() - 2));
    Shape out = broadcast(opName, batchA, batchB);
    if (!aVector)
        out.dims.push_back(a.dims[a.dims.size() - 2]);
    if (!bVector)
        out.dims.push_back(b.dims.back());
    return out;
}

// One helper per family of layer kinds; inferLayerShape only dispatches. Each helper returns the
// layer's output shape or fails with a message naming the op.

// --- Windowed layers (NCHW): the output's spatial size follows from kernel, stride, padding.

Shape convShape(const std::string& opName, const Conv2d& c, const Shape& in)
{
    if (in.rank() != 4 && in.rank() != 5)
        fail(opName, "conv expects an NCHW or NCDHW input, got " + in.toString());
    if (c.groups < 1 || in.channels() % c.groups != 0 || c.outChannels % c.groups != 0)
        fail(opName,
            "conv groups " + std::to_string(c.groups) + " do not divide channels " + std::to_string(in.channels())
                + " -> " + std::to_string(c.outChannels));
    if (c.kernelH < 1 || c.kernelW < 1 || c.strideH < 1 || c.strideW < 1 || c.dilationH < 1 || c.dilationW < 1
        || c.kernelD < 1 || c.strideD < 1 || c.dilationD < 1)
        fail(opName, "conv kernel, stride and dilation must be positive");
    if (in.rank() == 5) {
        const auto& d = in.dims;
        return Shape { d[0], c.outChannels,
            windowOutputSize(d[2], c.padFront, c.padBack, c.kernelD, c.strideD, c.dilationD, false),
            windowOutputSize(d[3], c.padTop, c.padBottom, c.kernelH, c.strideH, c.dilationH, false),
            windowOutputSize(d[4], c.padLeft, c.padRight, c.kernelW, c.strideW, c.dilationW, false) };
    }
    if (c.kernelD != 1 || c.strideD != 1 || c.padFront != 0 || c.padBack != 0 || c.dilationD != 1)
        fail(opName, "a conv over NCHW has no depth window");
    const auto h = windowOutputSize(in.height(), c.padTop, c.padBottom, c.kernelH, c.strideH, c.dilationH, false);
    const auto w = windowOutputSize(in.width(), c.padLeft, c.padRight, c.kernelW, c.strideW, c.dilationW, false);
    return Shape { in.batch(), c.outChannels, h, w };
}

Shape convTransposeShape(const std::string& opName, const ConvTranspose2d& c, const Shape& in)
{
    if (in.rank() != 4 && in.rank() != 5)
        fail(opName, "transposed conv expects an NCHW or NCDHW input, got " + in.toString());
    if (c.groups < 1 || in.channels() % c.groups != 0 || c.outChannels % c.groups != 0)
        fail(opName,
            "transposed conv groups " + std::to_string(c.groups) + " do not divide channels "
                + std::to_string(in.channels()) + " -> " + std::to_string(c.outChannels));
    if (c.kernelH < 1 || c.kernelW < 1 || c.strideH < 1 || c.strideW < 1 || c.dilationH < 1 || c.dilationW < 1
        || c.kernelD < 1 || c.strideD < 1 || c.dilationD < 1)
        fail(opName, "transposed conv kernel, stride and dilation must be positive");
    if (c.outputPaddingH < 0 || c.outputPaddingW < 0 || c.outputPaddingD < 0)
        fail(opName, "transposed conv output padding must not be negative");
    auto size = [](std::int64_t n, std::int64_t stride, std::int64_t kernel, std::int64_t dilation,
                    std::int64_t padBegin, std::int64_t padEnd, std::int64_t extra) {
        return (n - 1) * stride + (kernel - 1) * dilation + 1 - padBegin - padEnd + extra;
    };
    const int h = in.rank() - 2, w = in.rank() - 1;
    Shape out { in.batch(), c.outChannels };
    if (in.rank() == 5)
        out.dims.push_back(size(in[2], c.strideD, c.kernelD, c.dilationD, c.padFront, c.padBack, c.outputPaddingD));
    else if (c.kernelD != 1 || c.strideD != 1 || c.padFront != 0 || c.padBack != 0 || c.dilationD != 1
        || c.outputPaddingD != 0)
        fail(opName, "a transposed conv over NCHW has no depth window");
    out.dims.push_back(size(in[h], c.strideH, c.kernelH, c.dilationH, c.padTop, c.padBottom, c.outputPaddingH));
    out.dims.push_back(size(in[w], c.strideW, c.kernelW, c.dilationW, c.padLeft, c.padRight, c.outputPaddingW));
    return out;
}

Shape resizeShape(const std::string& opName, const Resize& r, const Shape& in)
{
    if (r.sizes.size() != static_cast<std::size_t>(in.rank()) || r.scales.size() != r.sizes.size())
        fail(opName,
            "resize gives " + std::to_string(r.sizes.size()) + " sizes and " + std::to_string(r.scales.size())
                + " scales for input " + in.toString());
    Shape out = in;
    for (std::size_t d = 0; d < r.sizes.size(); ++d) {
        if (r.sizes[d] < 0 || !(r.scales[d] > 0.0F))
            fail(opName, "resize to a negative size or by a non-positive scale on axis " + std::to_string(d));
        if (r.sizes[d] > 0)
            out.dims[d] = r.sizes[d];
    }
    return out;
}

Shape poolShape(const std::string& opName, const Pool2d& p, const Shape& in)
{
    if (in.rank() != 4)
        fail(opName, "pooling expects an NCHW input, got " + in.toString());
    if (p.kind == PoolKind::GlobalAverage || p.kind == PoolKind::GlobalMax)
        return Shape { in.batch(), in.channels(), 1, 1 };
    if (p.kernelH < 1 || p.kernelW < 1 || p.strideH < 1 || p.strideW < 1)
        fail(opName, "pool kernel and stride must be positive");
    const auto h = windowOutputSize(in.height(), p.padTop, p.padBottom, p.kernelH, p.strideH, 1, p.ceilMode);
    const auto w = windowOutputSize(in.width(), p.padLeft, p.padRight, p.kernelW, p.strideW, 1, p.ceilMode);
    return Shape { in.batch(), in.channels(), h, w };
}

// --- Layers over several operands: their shape comes from the operands, not from the input.

Shape binaryShape(const std::string& opName, const std::vector<Shape>& operands)
{
    if (operands.size() < 2)
        fail(opName, "an element-wise operation needs two operands");
    Shape out = operands.front();
    for (std::size_t i = 1; i < operands.size(); ++i)
        out = broadcast(opName, out, operands[i]);
    return out;
}

Shape matmulLayerShape(const std::string& opName, const MatMul& m, const std::vector<Shape>& operands)
{
    if (operands.size() != (m.bias ? 3U : 2U))
        fail(opName, m.bias ? "matmul with bias needs two operands and a bias" : "matmul needs exactly two operands");
    Shape out = matmulShape(opName, operands[0], operands[1]);
    if (m.bias && (operands[2].elements() != out.dims.back() || out.rank() < 1))
        fail(opName,
            "matmul bias " + operands[2].toString() + " does not match " + std::to_string(out.dims.back())
                + " output columns");
    return out;
}

Shape concatShape(const std::string& opName, const Concat& c, const std::vector<Shape>& operands)
{
    if (operands.empty())
        fail(opName, "concat has no operands");
    if (!c.order.empty()) {
        std::vector<bool> seen(operands.size(), false);
        for (auto k : c.order)
            if (k < 0 || static_cast<std::size_t>(k) >= operands.size() || seen[static_cast<std::size_t>(k)])
                fail(opName,
                    "concat order is not a permutation of its " + std::to_string(operands.size()) + " operands");
            else
                seen[static_cast<std::size_t>(k)] = true;
        if (c.order.size() != operands.size())
            fail(opName, "concat order is not a permutation of its " + std::to_string(operands.size()) + " operands");
    }
    Shape out = operands.front();
    const auto axis = static_cast<std::size_t>(normaliseAxis(opName, c.axis, out.rank()));
    out.dims[axis] = 0;
    for (const auto& s : operands) {
        if (s.rank() != out.rank())
            fail(opName, "concat operands differ in rank");
        for (std::size_t d = 0; d < s.dims.size(); ++d)
            if (d != axis && s.dims[d] != operands.front().dims[d])
                fail(opName,
                    "concat operands differ outside axis " + std::to_string(c.axis) + ": " + operands.front().toString()
                        + " vs " + s.toString());
        out.dims[axis] += s.dims[axis];
    }
    return out;
}

Shape whereShape(const std::string& opName, const Where& w, const std::vector<Shape>& operands)
{
    for (auto k : w.operand)
        if (k < 0 || static_cast<std::size_t>(k) >= operands.size())
            fail(opName, "where names operand " + std::to_string(k) + " of " + std::to_string(operands.size()));
    const auto at = [&](int i) -> const Shape& {
        return operands[static_cast<std::size_t>(w.operand[static_cast<std::size_t>(i)])];
    };
    return broadcast(opName, broadcast(opName, at(0), at(1)), at(2));
}

// Checks every operand of a recurrent layer against the projection's [T, B, gates x H].
Shape recurrentShape(const std::string& opName, const Recurrent& r, const std::vector<Shape>& operands)
{
    const RecurrentOperands at = recurrentOperands(r);
    if (operands.size() != static_cast<std::size_t>(at.count))
        fail(opName,
            "a recurrent layer needs " + std::to_string(at.count) + " operands, got "
                + std::to_string(operands.size()));
    const Shape& x = operands.front();
    const std::int64_t h = r.hidden, gh = r.gates() * r.hidden;
    if (h < 1 || x.rank() != 3 || x.dims[2] != gh)
        fail(opName,
            "a recurrent layer of hidden size " + std::to_string(h) + " needs a projection [T, B, " + std::to_string(gh)
                + "], got " + x.toString());
    if (r.cellStates && r.cell != RecurrentCell::Lstm)
        fail(opName, "only an LSTM has cell states to output");
    const std::int64_t batch = r.batchFirst ? x.dims[0] : x.dims[1];
    const auto expect = [&](int index, std::int64_t elements, const std::string& what) {
        if (index >= 0 && operands[static_cast<std::size_t>(index)].elements() != elements)
            fail(opName,
                what + " of a recurrent layer needs " + std::to_string(elements) + " values, got "
                    + operands[static_cast<std::size_t>(index)].toString());
    };
    expect(at.initialH, batch * h, "the initial h");
    expect(at.initialC, batch * h, "the initial c");
    expect(at.recurrence, h * gh, "R");
    expect(at.hiddenBias, h, "R's hidden-gate bias");
    expect(at.peepholes, 3 * h, "the peepholes");
    Shape out = x;
    out.dims[2] = h;
    return out;
}

// --- Data movement: the elements are selected or rearranged, none is computed.

Shape sliceShape(const std::string& opName, const Slice& sl, const Shape& in)
{
    Shape out = in;
    if (sl.starts.size() != sl.axes.size() || sl.ends.size() != sl.axes.size() || sl.steps.size() != sl.axes.size())
        fail(opName, "slice needs as many starts, ends and steps as axes");
    for (std::size_t i = 0; i < sl.axes.size(); ++i) {
        const auto axis = static_cast<std::size_t>(normaliseAxis(opName, sl.axes[i], in.rank()));
        const std::int64_t d = in.dims[axis], step = sl.steps[i];
        if (step == 0)
            fail(opName, "slice step is 0");
        std::int64_t start = sl.starts[i] < 0 ? sl.starts[i] + d : sl.starts[i];
        std::int64_t end = sl.ends[i] < 0 ? sl.ends[i] + d : sl.ends[i];
        if (step > 0) {
            start = std::clamp<std::int64_t>(start, 0, d);
            end = std::clamp<std::int64_t>(end, 0, d);
            out.dims[axis] = end > start ? (end - start + step - 1) / step : 0;
        } else {
            start = std::clamp<std::int64_t>(start, -1, d - 1);
            end = std::clamp<std::int64_t>(end, -1, d - 1);
            out.dims[axis] = start > end ? (start - end - step - 1) / -step : 0;
        }
    }
    return out;
}

Shape transposeShape(const std::string& opName, const Transpose& t, const Shape& in)
{
    if (static_cast<int>(t.perm.size()) != in.rank())
        fail(opName,
            "transpose permutation has " + std::to_string(t.perm.size()) + " axes for rank "
                + std::to_string(in.rank()));
    Shape out = in;
    std::vector<bool> seen(t.perm.size(), false);
    for (std::size_t i = 0; i < t.perm.size(); ++i) {
        const auto p = t.perm[i];
        if (p < 0 || p >= in.rank() || seen[static_cast<std::size_t>(p)])
            fail(opName, "transpose permutation is not a permutation");
        seen[static_cast<std::size_t>(p)] = true;
        out.dims[i] = in.dims[static_cast<std::size_t>(p)];
    }
    return out;
}

Shape padShape(const std::string& opName, const Pad& p, const Shape& in)
{
    if (static_cast<int>(p.pads.size()) != 2 * in.rank())
        fail(opName, "pad needs 2 x rank pads");
    Shape out = in;
    for (int i = 0; i < in.rank(); ++i)
        out.dims[static_cast<std::size_t>(i)]
            += p.pads[static_cast<std::size_t>(i)] + p.pads[static_cast<std::size_t>(i + in.rank())];
    return out;
}

Shape gatherShape(const std::string& opName, const Gather& g, const Shape& in, const std::vector<Shape>& operands)
{
    if (g.dataIsWeight) {
        if (operands.size() != 2)
            fail(opName, "an embedding needs the indices and one table");
        const Shape& table = operands[1];
        const auto axis = static_cast<std::size_t>(normaliseAxis(opName, g.axis, table.rank()));
        std::vector<std::int64_t> dims(table.dims.begin(), table.dims.begin() + static_cast<std::ptrdiff_t>(axis));
        dims.insert(dims.end(), operands[0].dims.begin(), operands[0].dims.end());
        dims.insert(dims.end(), table.dims.begin() + static_cast<std::ptrdiff_t>(axis) + 1, table.dims.end());
        return Shape(std::move(dims));
    }
    if (operands.size() != 1 && operands.size() != 2)
        fail(opName, "a gather takes the data and, when computed, the indices");
    const auto axis = static_cast<std::size_t>(normaliseAxis(opName, g.axis, in.rank()));
    const std::vector<std::int64_t>& indexDims = operands.size() == 2 ? operands[1].dims : g.indicesDims;
    if (g.elements) { // GatherElements: the indices' shape, each axis but `axis` no longer than the data's
        if (indexDims.size() != in.dims.size())
            fail(opName,
                "gather-elements indices " + Shape(indexDims).toString() + " differ in rank from the data "
                    + in.toString());
        for (std::size_t d = 0; d < indexDims.size(); ++d)
            if (d != axis && indexDims[d] > in.dims[d])
                fail(opName,
                    "gather-elements indices " + Shape(indexDims).toString() + " exceed the data " + in.toString()
                        + " on axis " + std::to_string(d));
    }
    if (operands.size() == 2) { // computed indices, checked when they arrive
        if (g.elements)
            return Shape(indexDims);
        std::vector<std::int64_t> dims(in.dims.begin(), in.dims.begin() + static_cast<std::ptrdiff_t>(axis));
        dims.insert(dims.end(), indexDims.begin(), indexDims.end());
        dims.insert(dims.end(), in.dims.begin() + static_cast<std::ptrdiff_t>(axis) + 1, in.dims.end());
        return Shape(std::move(dims));
    }
    std::int64_t count = 1;
    for (auto d : g.indicesDims)
        count *= d;
    if (count != static_cast<std::int64_t>(g.indices.size()))
        fail(opName,
            "gather has " + std::to_string(g.indices.size()) + " indices for shape " + Shape(g.indicesDims).toString());
    for (auto i : g.indices)
        if (i < -in.dims[axis] || i >= in.dims[axis])
            fail(opName,
                "gather index " + std::to_string(i) + " is out of range for dimension "
                    + std::to_string(in.dims[axis]));
    if (g.elements)
        return Shape(g.indicesDims);
    std::vector<std::int64_t> dims(in.dims.begin(), in.dims.begin() + static_cast<std::ptrdiff_t>(axis));
    dims.insert(dims.end(), g.indicesDims.begin(), g.indicesDims.end());
    dims.insert(dims.end(), in.dims.begin() + static_cast<std::ptrdiff_t>(axis) + 1, in.dims.end());
    return Shape(std::move(dims));
}

// --- Reductions and normalisations over axes of the input.

Shape reduceShape(const std::string& opName, const Reduce& r, const Shape& in)
{
    if (r.kind == ReduceKind::TopK) {
        if (r.axes.size() != 1)
            fail(opName, "top-k takes one axis");
        const auto axis = static_cast<std::size_t>(normaliseAxis(opName, r.axes.front(), in.rank()));
        if (r.k < 1 || r.k > in.dims[axis])
            fail(opName,
                "top-k of " + std::to_string(r.k) + " along an axis of " + std::to_string(in.dims[axis]) + " elements");
        std::vector<std::int64_t> dims = in.dims;
        dims[axis] = r.k;
        return Shape(std::move(dims));
    }
    std::vector<bool> reduced(static_cast<std::size_t>(in.rank()), r.axes.empty());
    for (auto a : r.axes)
        reduced[static_cast<std::size_t>(normaliseAxis(opName, a, in.rank()))] = true;
    std::vector<std::int64_t> dims;
    for (int i = 0; i < in.rank(); ++i) {
        if (!reduced[static_cast<std::size_t>(i)])
            dims.push_back(in[i]);
        else if (r.keepDims)
            dims.push_back(1);
    }
    return Shape(std::move(dims));
}

Shape batchNormShape(const std::string& opName, const Shape& in)
{
    if (in.rank() < 2)
        fail(opName, "batch normalisation needs a channel dimension");
    return in;
}

Shape layerNormShape(const std::string& opName, const LayerNorm& l, const Shape& in)
{
    if (in.rank() < 1)
        fail(opName, "layer normalisation needs at least one dimension");
    normaliseAxis(opName, l.axis, in.rank());
    return in;
}

Shape softmaxShape(const std::string& opName, const Softmax& s, const Shape& in)
{
    if (s.axis < 0 || s.axis >= in.rank())
        fail(opName, "softmax axis " + std::to_string(s.axis) + " out of range for " + in.toString());
    return in;
}

// --- Dense layers and views that fold the input into a new shape.

Shape gemmShape(const std::string& opName, const Gemm& g, const Shape& in)
{
    if (g.outFeatures < 1)
        fail(opName, "gemm needs a positive number of output features");
    return Shape { in.batch(), g.outFeatures };
}

Shape flattenShape(const std::string& opName, const Flatten& f, const Shape& in)
{
    if (f.axis < 0 || f.axis > in.rank())
        fail(opName, "flatten axis out of range for " + in.toString());
    std::int64_t outer = 1, inner = 1;
    for (int i = 0; i < in.rank(); ++i)
        (i < f.axis ? outer : inner) *= in[i];
    return Shape { outer, inner };
}

Shape reshapeShape(const std::string& opName, const Reshape& r, const Shape& in)
{
    std::vector<std::int64_t> dims;
    std::int64_t known = 1;
    int inferred = -1;
    for (std::size_t i = 0; i < r.target.size(); ++i) {
        std::int64_t d = r.target[i];
        if (d == 0) {
            if (static_cast<int>(i) >= in.rank())
                fail(opName, "reshape copies a dimension the input does not have");
            d = in[static_cast<int>(i)];
        }
        if (d == -1) {
            if (inferred >= 0)
                fail(opName, "reshape has more than one -1");
            inferred = static_cast<int>(i);
        } else if (d < 1) {
            fail(opName, "reshape target has dimension " + std::to_string(d));
        } else {
            known *= d;
        }
        dims.push_back(d);
    }
    if (inferred >= 0) {
        if (in.elements() % known != 0)
            fail(opName, "cannot reshape " + in.toString());
        dims[static_cast<std::size_t>(inferred)] = in.elements() / known;
    }
    Shape out(std::move(dims));
    if (out.elements() != in.elements())
        fail(opName, "cannot reshape " + in.toString() + " to " + out.toString());
    return out;
}

// Dispatches each layer kind to its helper above.
struct OutputShape {
    const std::string& opName;
    const Shape& in;
    const std::vector<Shape>& operands;

    Shape operator()(const Conv2d& c) const { return convShape(opName, c, in); }
    Shape operator()(const Pool2d& p) const { return poolShape(opName, p, in); }
    Shape operator()(const Eltwise&) const { return in; }
    Shape operator()(const Multiply&) const { return in; }
    Shape operator()(const Identity&) const { return in; }
    Shape operator()(const Binary&) const { return binaryShape(opName, operands); }
    Shape operator()(const MatMul& m) const { return matmulLayerShape(opName, m, operands); }
    Shape operator()(const Concat& c) const { return concatShape(opName, c, operands); }
    Shape operator()(const Slice& sl) const { return sliceShape(opName, sl, in); }
    Shape operator()(const Transpose& t) const { return transposeShape(opName, t, in); }
    Shape operator()(const Pad& p) const { return padShape(opName, p, in); }
    Shape operator()(const Reduce& r) const { return reduceShape(opName, r, in); }
    Shape operator()(const BatchNorm&) const { return batchNormShape(opName, in); }
    Shape operator()(const LayerNorm& l) const { return layerNormShape(opName, l, in); }
    Shape operator()(const Gather& g) const { return gatherShape(opName, g, in, operands); }
    Shape operator()(const Where& w) const { return whereShape(opName, w, operands); }
    Shape operator()(const Expand& e) const { return broadcast(opName, in, Shape(e.shape)); }
    Shape operator()(const ConvTranspose2d& c) const { return convTransposeShape(opName, c, in); }
    Shape operator()(const Resize& r) const { return resizeShape(opName, r, in); }
    Shape operator()(const Lrn& l) const
    {
        if (in.rank() < 3 || l.size < 1)
            fail(opName,
                "LRN needs a size of at least 1 and an input with channels and spatial axes, got " + in.toString());
        return in;
    }
    Shape operator()(const Recurrent& r) const { return recurrentShape(opName, r, operands); }
    Shape operator()(const Gemm& g) const { return gemmShape(opName, g, in); }
    Shape operator()(const Softmax& s) const { return softmaxShape(opName, s, in); }
    Shape operator()(const Flatten& f) const { return flattenShape(opName, f, in); }
    Shape operator()(const Reshape& r) const { return reshapeShape(opName, r, in); }
};

} // namespace

void inferLayerShape(const std::string& opName, Layer& layer, const Shape& in, const std::vector<Shape>& operands)
{
    checkShape(opName, in, "input");
    layer.output = std::visit(OutputShape { opName, in, operands }, layer.params);
    checkShape(opName, layer.output, "output");
}

std::vector<Shape> weightShapes(const Layer& layer, const Shape& in)
{
    std::vector<Shape> out;
    if (const auto* c = std::get_if<Conv2d>(&layer.params)) {
        out.push_back(in.rank() == 5
                ? Shape { c->outChannels, in.channels() / c->groups, c->kernelD, c->kernelH, c->kernelW }
                : Shape { c->outChannels, in.channels() / c->groups, c->kernelH, c->kernelW });
        if (c->bias)
            out.push_back(Shape { c->outChannels });
    } else if (const auto* t = std::get_if<ConvTranspose2d>(&layer.params)) {
        out.push_back(in.rank() == 5
                ? Shape { in.channels(), t->outChannels / t->groups, t->kernelD, t->kernelH, t->kernelW }
                : Shape { in.channels(), t->outChannels / t->groups, t->kernelH, t->kernelW });
        if (t->bias)
            out.push_back(Shape { t->outChannels });
    } else if (const auto* g = std::get_if<Gemm>(&layer.params)) {
        out.push_back(Shape { g->outFeatures, in.elements() / in.batch() });
        if (g->bias)
            out.push_back(Shape { g->outFeatures });
    } else if (std::holds_alternative<BatchNorm>(layer.params)) {
        out.assign(4, Shape { in.channels() });
    } else if (const auto* l = std::get_if<LayerNorm>(&layer.params)) {
        const int axis = l->axis < 0 ? l->axis + in.rank() : l->axis;
        const Shape normalised(
            std::vector<std::int64_t>(in.dims.begin() + std::clamp(axis, 0, in.rank()), in.dims.end()));
        out.assign(l->bias ? 2 : 1, normalised);
    }
    return out;
}

namespace {

bool isView(const Layer& l)
{
    return std::holds_alternative<Flatten>(l.params) || std::holds_alternative<Reshape>(l.params);
}

double layerFlops(const Layer& layer, const Shape& in, std::size_t operands)
{
    const double outElems = static_cast<double>(layer.output.elements());
    const double inElems = static_cast<double>(in.elements());
    double flops = layer.activation.kind == ActivationKind::None ? 0.0 : outElems;
    if (const auto* c = std::get_if<Conv2d>(&layer.params)) {
        const double macs
            = outElems * static_cast<double>(in.channels() / c->groups * c->kernelD * c->kernelH * c->kernelW);
        flops += 2.0 * macs + (c->bias ? outElems : 0.0);
    } else if (const auto* t = std::get_if<ConvTranspose2d>(&layer.params)) {
        // Every input element meets every tap of its group's weights once.
        const double macs
            = inElems * static_cast<double>(t->outChannels / t->groups * t->kernelD * t->kernelH * t->kernelW);
        flops += 2.0 * macs + (t->bias ? outElems : 0.0);
    } else if (const auto* r = std::get_if<Resize>(&layer.params)) {
        // Taps per output element: 1 (nearest), 2 or 4 per resized axis (linear, cubic).
        double taps = 1.0;
        for (std::size_t d = 0; d < r->sizes.size(); ++d)
            if (r->sizes[d] > 0 && r->mode != ResizeMode::Nearest)
                taps *= r->mode == ResizeMode::Linear ? 2.0 : 4.0;
        flops += r->mode == ResizeMode::Nearest ? 0.0 : 2.0 * taps * outElems;
    } else if (const auto* p = std::get_if<Pool2d>(&layer.params)) {
        const bool global = p->kind == PoolKind::GlobalAverage || p->kind == PoolKind::GlobalMax;
        flops += global ? inElems : outElems * static_cast<double>(p->kernelH * p->kernelW);
    } else if (std::holds_alternative<Eltwise>(layer.params)) {
        flops += inElems;
    } else if (std::holds_alternative<Multiply>(layer.params)) {
        flops += outElems * static_cast<double>(operands > 1 ? operands - 1 : 1);
    } else if (const auto* g = std::get_if<Gemm>(&layer.params)) {
        flops += 2.0 * outElems * (inElems / static_cast<double>(in.batch())) + (g->bias ? outElems : 0.0);
    } else if (std::holds_alternative<Softmax>(layer.params)) {
        flops += 3.0 * inElems; // exp, sum, divide
    } else if (std::holds_alternative<Binary>(layer.params)) {
        flops += outElems * static_cast<double>(operands > 1 ? operands - 1 : 1);
    } else if (const auto* m = std::get_if<MatMul>(&layer.params)) {
        flops += 2.0 * outElems * static_cast<double>(in.rank() > 0 ? in.dims.back() : 1) + (m->bias ? outElems : 0.0);
    } else if (const auto* red = std::get_if<Reduce>(&layer.params)) {
        // A top-k compares each element with the k kept so far (k small: the heads of models).
        flops += red->kind == ReduceKind::TopK ? inElems * std::log2(static_cast<double>(red->k) + 1.0) : inElems;
    } else if (std::holds_alternative<BatchNorm>(layer.params)) {
        flops += 2.0 * outElems;
    } else if (const auto* l = std::get_if<Lrn>(&layer.params)) {
        flops += outElems * static_cast<double>(2 * l->size + 4); // squares and sums, a power, a divide
    } else if (std::holds_alternative<LayerNorm>(layer.params)) {
        flops += 6.0 * inElems; // mean, variance, normalise, scale, shift
    } else if (std::holds_alternative<Where>(layer.params)) {
        flops += outElems;
    } else if (const auto* rec = std::get_if<Recurrent>(&layer.params)) {
        // Per step and batch row: h times R^T, then a few operations per gate value.
        const double gateValues = outElems * static_cast<double>(rec->gates());
        flops += 2.0 * gateValues * static_cast<double>(rec->hidden) + 6.0 * gateValues;
    }
    return flops;
}

} // namespace

void computeOpCost(Op& op, const std::function<const Tensor&(TensorId)>& tensorOf)
{
    // A lone reshape of one tensor is a view: no kernel, no traffic.
    const bool allViews = std::all_of(op.layers.begin(), op.layers.end(), isView) && op.inputs.size() == 1
        && op.inputs.front().size() == 1;
    for (auto& layer : op.layers)
        layer.cost = Cost {};
    // Traffic in and out belongs to the layers that do work (a 1-D convolution is a 2-D one
    // between views), so that views launch nothing.
    const auto firstWork = std::find_if_not(op.layers.begin(), op.layers.end(), isView);
    const auto lastWork = std::find_if_not(op.layers.rbegin(), op.layers.rend(), isView);
    Cost& first = firstWork == op.layers.end() ? op.layers.front().cost : firstWork->cost;
    Cost& last = lastWork == op.layers.rend() ? op.layers.back().cost : lastWork->cost;

    std::vector<std::vector<Shape>> termShapes;
    for (const auto& term : op.inputs) {
        auto& shapes = termShapes.emplace_back();
        for (auto t : term)
            shapes.push_back(tensorOf(t).shape);
        // Summing k tensors costs k-1 additions per element (the first kernel's prologue).
        if (term.size() > 1 && !op.layers.front().takesOperands()
            && !std::holds_alternative<Multiply>(op.layers.front().params))
            first.flops += static_cast<double>(term.size() - 1) * static_cast<double>(shapes.front().elements());
    }
    if (!allViews)
        for (auto t : op.inputTensors())
            first.bytesRead += static_cast<double>(tensorOf(t).bytes());

    Shape in = combinedInputShape(op.name, op.layers.front(), termShapes);
    for (std::size_t i = 0; i < op.layers.size(); ++i) {
        Layer& layer = op.layers[i];
        layer.cost.flops
            += layerFlops(layer, in, op.inputs.size() + (layer.takesOperands() ? layer.weights.size() : 0));
        // An embedding reads the rows it looks up, not its whole table.
        const auto* gather = std::get_if<Gather>(&layer.params);
        if (gather && gather->dataIsWeight)
            layer.cost.bytesRead += static_cast<double>(layer.output.elements() * byteSize(tensorOf(op.output).dtype));
        else
            for (auto w : layer.weights)
                layer.cost.bytesRead += static_cast<double>(tensorOf(w).bytes());
        // A compound runs as several kernels: each intermediate result goes out to memory and back.
        const auto next
            = std::find_if_not(op.layers.begin() + static_cast<std::ptrdiff_t>(i) + 1, op.layers.end(), isView);
        if (next != op.layers.end() && !isView(layer)) {
            const double b = static_cast<double>(layer.output.elements() * byteSize(tensorOf(op.output).dtype));
            layer.cost.bytesWritten += b;
            next->cost.bytesRead += b;
        }
        in = layer.output;
    }
    if (!allViews)
        last.bytesWritten += static_cast<double>(tensorOf(op.output).bytes());

    op.cost = Cost {};
    for (const auto& layer : op.layers) {
        op.cost.flops += layer.cost.flops;
        op.cost.bytesRead += layer.cost.bytesRead;
        op.cost.bytesWritten += layer.cost.bytesWritten;
    }
}

} // namespace opsched
