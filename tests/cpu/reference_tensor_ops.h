// Naive references for the layers imported models bring (Binary, MatMul, Concat, Slice, Transpose,
// Pad, Reduce, BatchNorm): one multi-index loop per output element, written from the ONNX / NumPy
// definitions and sharing nothing with the executor's index code.
#pragma once

#include "graph/layer.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace opsched::test {

struct HostTensor {
    std::vector<std::int64_t> dims;
    std::vector<float> data;
};

inline std::int64_t product(const std::vector<std::int64_t>& dims, std::size_t from = 0)
{
    std::int64_t n = 1;
    for (std::size_t i = from; i < dims.size(); ++i)
        n *= dims[i];
    return n;
}

inline std::vector<std::int64_t> unravel(std::int64_t flat, const std::vector<std::int64_t>& dims)
{
    std::vector<std::int64_t> idx(dims.size());
    for (std::size_t d = dims.size(); d-- > 0;) {
        idx[d] = flat % dims[d];
        flat /= dims[d];
    }
    return idx;
}

inline std::int64_t ravel(const std::vector<std::int64_t>& idx, const std::vector<std::int64_t>& dims)
{
    std::int64_t flat = 0;
    for (std::size_t d = 0; d < dims.size(); ++d)
        flat = flat * dims[d] + idx[d];
    return flat;
}

// Element of `t` at output index `idx` under NumPy broadcasting (t right-aligned, size-1 axes
// repeated).
inline float broadcastAt(const HostTensor& t, const std::vector<std::int64_t>& idx)
{
    const std::size_t shift = idx.size() - t.dims.size();
    std::vector<std::int64_t> own(t.dims.size());
    for (std::size_t d = 0; d < t.dims.size(); ++d)
        own[d] = t.dims[d] == 1 ? 0 : idx[d + shift];
    return t.data[static_cast<std::size_t>(ravel(own, t.dims))];
}

inline std::vector<std::int64_t> broadcastDims(const std::vector<HostTensor>& ts)
{
    std::size_t rank = 0;
    for (const auto& t : ts)
        rank = std::max(rank, t.dims.size());
    std::vector<std::int64_t> out(rank, 1);
    for (const auto& t : ts)
        for (std::size_t d = 0; d < t.dims.size(); ++d) {
            auto& o = out[d + rank - t.dims.size()];
            o = std::max(o, t.dims[d]);
        }
    return out;
}

inline HostTensor referenceBinary(BinaryKind kind, const std::vector<HostTensor>& ops)
{
    HostTensor o { broadcastDims(ops), {} };
    o.data.resize(static_cast<std::size_t>(product(o.dims)));
    for (std::int64_t i = 0; i < product(o.dims); ++i) {
        const auto idx = unravel(i, o.dims);
        float acc = broadcastAt(ops[0], idx);
        for (std::size_t k = 1; k < ops.size(); ++k) {
            const float v = broadcastAt(ops[k], idx);
            switch (kind) {
            case BinaryKind::Add:
                acc += v;
                break;
            case BinaryKind::Sub:
                acc -= v;
                break;
            case BinaryKind::Mul:
                acc *= v;
                break;
            case BinaryKind::Div:
                acc /= v;
                break;
            case BinaryKind::Pow:
                acc = std::pow(acc, v);
                break;
            case BinaryKind::Min:
                acc = std::min(acc, v);
                break;
            case BinaryKind::Max:
                acc = std::max(acc, v);
                break;
            case BinaryKind::Equal:
                acc = acc == v ? 1.0F : 0.0F;
                break;
            case BinaryKind::Less:
                acc = acc < v ? 1.0F : 0.0F;
                break;
            case BinaryKind::Greater:
                acc = acc > v ? 1.0F : 0.0F;
                break;
            case BinaryKind::PRelu:
                acc = acc < 0.0F ? v * acc : acc;
                break;
            }
        }
        o.data[static_cast<std::size_t>(i)] = acc;
    }
    return o;
}

inline HostTensor referenceMatMul(HostTensor a, HostTensor b, const std::vector<std::int64_t>& outDims)
{
    if (a.dims.size() == 1)
        a.dims.insert(a.dims.begin(), 1);
    if (b.dims.size() == 1)
        b.dims.push_back(1);
    const std::int64_t m = a.dims[a.dims.size() - 2], k = a.dims.back(), n = b.dims.back();
    HostTensor batchA { { a.dims.begin(), a.dims.end() - 2 }, {} }, batchB { { b.dims.begin(), b.dims.end() - 2 }, {} };
    const auto batch = broadcastDims({ batchA, batchB });
    HostTensor o { outDims, std::vector<float>(static_cast<std::size_t>(product(batch) * m * n)) };
    for (std::int64_t bi = 0; bi < product(batch); ++bi) {
        const auto idx = unravel(bi, batch);
        // The operand's own batch index: right-aligned, size-1 batch axes broadcast.
        auto batchOffset = [&](const std::vector<std::int64_t>& full) {
            const std::size_t shift = idx.size() - (full.size() - 2);
            std::vector<std::int64_t> own(full.size() - 2);
            for (std::size_t d = 0; d < own.size(); ++d)
                own[d] = full[d] == 1 ? 0 : idx[d + shift];
            return ravel(own, { full.begin(), full.end() - 2 });
        };
        const std::int64_t oa = batchOffset(a.dims) * m * k, ob = batchOffset(b.dims) * k * n;
        for (std::int64_t i = 0; i < m; ++i)
            for (std::int64_t j = 0; j < n; ++j) {
                double acc = 0;
                for (std::int64_t p = 0; p < k; ++p)
                    acc += static_cast<double>(a.data[static_cast<std::size_t>(oa + i * k + p)])
                        * b.data[static_cast<std::size_t>(ob + p * n + j)];
                o.data[static_cast<std::size_t>((bi * m + i) * n + j)] = static_cast<float>(acc);
            }
    }
    return o;
}

inline HostTensor referenceConcat(const std::vector<HostTensor>& ops, int axis)
{
    const auto rank = static_cast<int>(ops.front().dims.size());
    const auto a = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
    HostTensor o { ops.front().dims, {} };
    o.dims[a] = 0;
    for (const auto& t : ops)
        o.dims[a] += t.dims[a];
    o.data.resize(static_cast<std::size_t>(product(o.dims)));
    for (std::int64_t i = 0; i < product(o.dims); ++i) {
        auto idx = unravel(i, o.dims);
        std::size_t k = 0;
        while (idx[a] >= ops[k].dims[a])
            idx[a] -= ops[k++].dims[a];
        o.data[static_cast<std::size_t>(i)] = ops[k].data[static_cast<std::size_t>(ravel(idx, ops[k].dims))];
    }
    return o;
}

// ONNX Slice, element by element: the listed positions along each axis, walked with a loop.
inline HostTensor referenceSlice(const HostTensor& in, const Slice& s)
{
    const auto rank = static_cast<std::int64_t>(in.dims.size());
    std::vector<std::vector<std::int64_t>> picks(in.dims.size());
    for (std::size_t d = 0; d < in.dims.size(); ++d)
        for (std::int64_t i = 0; i < in.dims[d]; ++i)
            picks[d].push_back(i);
    for (std::size_t k = 0; k < s.axes.size(); ++k) {
        const auto a = static_cast<std::size_t>(s.axes[k] < 0 ? s.axes[k] + rank : s.axes[k]);
        const std::int64_t d = in.dims[a], step = s.steps[k];
        std::int64_t start = s.starts[k] < 0 ? s.starts[k] + d : s.starts[k];
        std::int64_t end = s.ends[k] < 0 ? s.ends[k] + d : s.ends[k];
        picks[a].clear();
        if (step > 0) {
            start = std::clamp<std::int64_t>(start, 0, d);
            end = std::clamp<std::int64_t>(end, 0, d);
            for (std::int64_t i = start; i < end; i += step)
                picks[a].push_back(i);
        } else {
            start = std::clamp<std::int64_t>(start, -1, d - 1);
            end = std::clamp<std::int64_t>(end, -1, d - 1);
            for (std::int64_t i = start; i > end; i += step)
                picks[a].push_back(i);
        }
    }
    HostTensor o { {}, {} };
    for (const auto& p : picks)
        o.dims.push_back(static_cast<std::int64_t>(p.size()));
    for (std::int64_t i = 0; i < product(o.dims); ++i) {
        auto idx = unravel(i, o.dims);
        for (std::size_t d = 0; d < idx.size(); ++d)
            idx[d] = picks[d][static_cast<std::size_t>(idx[d])];
        o.data.push_back(in.data[static_cast<std::size_t>(ravel(idx, in.dims))]);
    }
    return o;
}

inline HostTensor referenceTranspose(const HostTensor& in, const std::vector<std::int64_t>& perm)
{
    HostTensor o { {}, {} };
    for (auto p : perm)
        o.dims.push_back(in.dims[static_cast<std::size_t>(p)]);
    o.data.resize(in.data.size());
    for (std::int64_t i = 0; i < product(o.dims); ++i) {
        const auto idx = unravel(i, o.dims);
        std::vector<std::int64_t> src(idx.size());
        for (std::size_t d = 0; d < perm.size(); ++d)
            src[static_cast<std::size_t>(perm[d])] = idx[d];
        o.data[static_cast<std::size_t>(i)] = in.data[static_cast<std::size_t>(ravel(src, in.dims))];
    }
    return o;
}

// NumPy's pad: reflect mirrors around the border element again and again until inside.
inline HostTensor referencePad(const HostTensor& in, const Pad& p)
{
    const std::size_t rank = in.dims.size();
    HostTensor o { in.dims, {} };
    for (std::size_t d = 0; d < rank; ++d)
        o.dims[d] += p.pads[d] + p.pads[d + rank];
    for (std::int64_t i = 0; i < product(o.dims); ++i) {
        auto idx = unravel(i, o.dims);
        bool constant = false;
        for (std::size_t d = 0; d < rank; ++d) {
            std::int64_t x = idx[d] - p.pads[d];
            const std::int64_t n = in.dims[d];
            if (x < 0 || x >= n) {
                if (p.mode == PadMode::Constant)
                    constant = true;
                else if (p.mode == PadMode::Edge)
                    x = std::clamp<std::int64_t>(x, 0, n - 1);
                else
                    while (n > 1 && (x < 0 || x >= n))
                        x = x < 0 ? -x : 2 * (n - 1) - x;
                if (n == 1)
                    x = 0;
            }
            idx[d] = x;
        }
        o.data.push_back(constant ? p.value : in.data[static_cast<std::size_t>(ravel(idx, in.dims))]);
    }
    return o;
}

inline HostTensor referenceReduce(const HostTensor& in, const Reduce& r, const std::vector<std::int64_t>& outDims)
{
    const auto rank = static_cast<std::int64_t>(in.dims.size());
    std::vector<bool> reduced(in.dims.size(), r.axes.empty());
    for (auto a : r.axes)
        reduced[static_cast<std::size_t>(a < 0 ? a + rank : a)] = true;
    std::vector<std::int64_t> kept = in.dims;
    for (std::size_t d = 0; d < kept.size(); ++d)
        if (reduced[d])
            kept[d] = 1;
    const std::int64_t count = product(in.dims) / product(kept);
    const double start = r.kind == ReduceKind::Max ? -INFINITY
        : r.kind == ReduceKind::Min                ? INFINITY
        : r.kind == ReduceKind::Prod               ? 1.0
                                                   : 0.0;
    std::vector<double> acc(static_cast<std::size_t>(product(kept)), start);
    for (std::int64_t i = 0; i < product(in.dims); ++i) {
        auto idx = unravel(i, in.dims);
        for (std::size_t d = 0; d < idx.size(); ++d)
            if (reduced[d])
                idx[d] = 0;
        auto& a = acc[static_cast<std::size_t>(ravel(idx, kept))];
        const double v = in.data[static_cast<std::size_t>(i)];
        switch (r.kind) {
        case ReduceKind::Max:
            a = std::max(a, v);
            break;
        case ReduceKind::Min:
            a = std::min(a, v);
            break;
        case ReduceKind::Prod:
            a *= v;
            break;
        case ReduceKind::L1:
            a += std::fabs(v);
            break;
        case ReduceKind::L2:
        case ReduceKind::SumSquare:
            a += v * v;
            break;
        default:
            a += v;
            break;
        }
    }
    HostTensor o { outDims, {} };
    for (double a : acc)
        o.data.push_back(static_cast<float>(r.kind == ReduceKind::Mean ? a / static_cast<double>(count)
                : r.kind == ReduceKind::L2                             ? std::sqrt(a)
                                                                       : a));
    return o;
}

inline HostTensor referenceBatchNorm(const HostTensor& in, const std::vector<std::vector<float>>& w, float eps)
{
    HostTensor o = in;
    const std::int64_t c = in.dims[1], inner = product(in.dims, 2);
    for (std::int64_t i = 0; i < product(in.dims); ++i) {
        const auto ch = static_cast<std::size_t>((i / inner) % c);
        const double x = in.data[static_cast<std::size_t>(i)];
        o.data[static_cast<std::size_t>(i)]
            = static_cast<float>(w[0][ch] * (x - w[2][ch]) / std::sqrt(static_cast<double>(w[3][ch]) + eps) + w[1][ch]);
    }
    return o;
}

} // namespace opsched::test

namespace opsched::test {

// Layer norm (or RMS norm) over the dimensions from `axis` on, in double.
inline HostTensor referenceLayerNorm(
    const HostTensor& in, const LayerNorm& l, const std::vector<float>& scale, const std::vector<float>* bias)
{
    const auto rank = static_cast<int>(in.dims.size());
    const auto axis = static_cast<std::size_t>(l.axis < 0 ? l.axis + rank : l.axis);
    const std::int64_t inner = product(in.dims, axis), rows = product(in.dims) / inner;
    HostTensor o { in.dims, std::vector<float>(in.data.size()) };
    for (std::int64_t r = 0; r < rows; ++r) {
        double mean = 0, var = 0;
        for (std::int64_t i = 0; i < inner; ++i)
            mean += in.data[static_cast<std::size_t>(r * inner + i)];
        mean = l.rms ? 0.0 : mean / static_cast<double>(inner);
        for (std::int64_t i = 0; i < inner; ++i) {
            const double d = in.data[static_cast<std::size_t>(r * inner + i)] - mean;
            var += d * d;
        }
        var /= static_cast<double>(inner);
        for (std::int64_t i = 0; i < inner; ++i) {
            const auto k = static_cast<std::size_t>(i);
            const double y
                = (in.data[static_cast<std::size_t>(r * inner + i)] - mean) / std::sqrt(var + l.epsilon) * scale[k];
            o.data[static_cast<std::size_t>(r * inner + i)] = static_cast<float>(bias ? y + (*bias)[k] : y);
        }
    }
    return o;
}

// ONNX Gather: data[..., indices[j...], ...] along `axis`.
inline HostTensor referenceGather(const HostTensor& data, const HostTensor& indices, int axis)
{
    const auto rank = static_cast<int>(data.dims.size());
    const auto a = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
    std::vector<std::int64_t> dims(data.dims.begin(), data.dims.begin() + static_cast<std::ptrdiff_t>(a));
    dims.insert(dims.end(), indices.dims.begin(), indices.dims.end());
    dims.insert(dims.end(), data.dims.begin() + static_cast<std::ptrdiff_t>(a) + 1, data.dims.end());
    HostTensor o { dims, std::vector<float>(static_cast<std::size_t>(product(dims))) };
    for (std::int64_t i = 0; i < product(dims); ++i) {
        const auto idx = unravel(i, dims);
        std::vector<std::int64_t> at(idx.begin(), idx.begin() + static_cast<std::ptrdiff_t>(a));
        const std::vector<std::int64_t> which(idx.begin() + static_cast<std::ptrdiff_t>(a),
            idx.begin() + static_cast<std::ptrdiff_t>(a + indices.dims.size()));
        auto row = static_cast<std::int64_t>(indices.data[static_cast<std::size_t>(ravel(which, indices.dims))]);
        if (row < 0)
            row += data.dims[a];
        at.push_back(row);
        at.insert(at.end(), idx.begin() + static_cast<std::ptrdiff_t>(a + indices.dims.size()), idx.end());
        o.data[static_cast<std::size_t>(i)] = data.data[static_cast<std::size_t>(ravel(at, data.dims))];
    }
    return o;
}

// ONNX GatherElements: out[p] = data[p with its `axis` coordinate replaced by indices[p]].
inline HostTensor referenceGatherElements(const HostTensor& data, const HostTensor& indices, int axis)
{
    const auto rank = static_cast<int>(data.dims.size());
    const auto a = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
    HostTensor o { indices.dims, std::vector<float>(indices.data.size()) };
    for (std::int64_t i = 0; i < product(indices.dims); ++i) {
        auto at = unravel(i, indices.dims);
        auto row = static_cast<std::int64_t>(indices.data[static_cast<std::size_t>(i)]);
        at[a] = row < 0 ? row + data.dims[a] : row;
        o.data[static_cast<std::size_t>(i)] = data.data[static_cast<std::size_t>(ravel(at, data.dims))];
    }
    return o;
}

inline HostTensor referenceWhere(const HostTensor& c, const HostTensor& x, const HostTensor& y)
{
    HostTensor o { broadcastDims({ c, x, y }), {} };
    o.data.resize(static_cast<std::size_t>(product(o.dims)));
    for (std::int64_t i = 0; i < product(o.dims); ++i) {
        const auto idx = unravel(i, o.dims);
        o.data[static_cast<std::size_t>(i)] = broadcastAt(c, idx) != 0.0F ? broadcastAt(x, idx) : broadcastAt(y, idx);
    }
    return o;
}

inline HostTensor referenceExpand(const HostTensor& in, const std::vector<std::int64_t>& outDims)
{
    HostTensor o { outDims, std::vector<float>(static_cast<std::size_t>(product(outDims))) };
    for (std::int64_t i = 0; i < product(outDims); ++i)
        o.data[static_cast<std::size_t>(i)] = broadcastAt(in, unravel(i, outDims));
    return o;
}

} // namespace opsched::test
