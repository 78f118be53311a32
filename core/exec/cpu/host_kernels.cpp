#include "exec/cpu/host_kernels.h"

#include "exec/cpu/tensor_views.h"

#include "util/error.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>

namespace opsched::cpu {
namespace {

std::int64_t product(const Dims& d, std::size_t from = 0, std::size_t to = ~std::size_t { 0 })
{
    std::int64_t n = 1;
    for (std::size_t i = from; i < std::min(to, d.size()); ++i)
        n *= d[i];
    return n;
}

// Element strides of `dims` seen as `outDims` under NumPy broadcasting: 0 where it repeats.
Dims broadcastStrides(const Dims& dims, const Dims& outDims)
{
    const std::size_t rank = outDims.size();
    if (dims.size() > rank)
        throw Error("internal: an operand of rank " + std::to_string(dims.size()) + " broadcast to rank "
            + std::to_string(rank));
    Dims strides(rank, 0);
    std::int64_t s = 1;
    for (std::size_t k = 0; k < dims.size(); ++k) {
        const std::size_t i = dims.size() - 1 - k, o = rank - 1 - k;
        if (dims[i] != 1 && dims[i] != outDims[o])
            throw Error("internal: cannot broadcast an operand to the output shape");
        strides[o] = dims[i] == 1 ? 0 : s;
        s *= dims[i];
    }
    return strides;
}

// Loops of fewer elements run on the calling thread: an OpenMP team costs a few microseconds.
constexpr std::int64_t kParallelElements = 1 << 15;

// Calls f(k, offsets) for every output element k, one offset per operand. Rows of the last
// dimension are shared among the OpenMP threads (the caller's team size: --threads, or a
// partition's cores); each row finds its operands' offsets from its own coordinates.
template <std::size_t N, typename F> void forEachBroadcast(const Dims& outDims, const std::array<Dims, N>& strides, F f)
{
    const std::size_t rank = outDims.size();
    const std::int64_t total = product(outDims);
    if (total == 0)
        return;
    if (rank == 0) {
        f(0, std::array<std::int64_t, N> {});
        return;
    }
    const std::int64_t inner = outDims[rank - 1], rows = total / inner;
#pragma omp parallel for schedule(static) if (total >= kParallelElements)
    for (std::int64_t r = 0; r < rows; ++r) {
        std::array<std::int64_t, N> offset {};
        std::int64_t rest = r;
        for (std::size_t d = rank - 1; d-- > 0;) {
            const std::int64_t c = rest % outDims[d];
            rest /= outDims[d];
            for (std::size_t j = 0; j < N; ++j)
                offset[j] += c * strides[j][d];
        }
        for (std::int64_t i = 0; i < inner; ++i) {
            f(r * inner + i, offset);
            for (std::size_t j = 0; j < N; ++j)
                offset[j] += strides[j][rank - 1];
        }
    }
}

float erfOf(float x)
{
    return std::erf(x);
}

} // namespace

void embeddingLookup(
    const float* table, const Dims& tableDims, int axis, const float* ids, std::int64_t idCount, float* out)
{
    const auto a = static_cast<std::size_t>(axis);
    const std::int64_t outer = product(tableDims, 0, a), rows = tableDims.at(a), inner = product(tableDims, a + 1);
    // Ids checked first, on this thread: an exception cannot leave an OpenMP loop.
    std::vector<std::int64_t> row(static_cast<std::size_t>(idCount));
    for (std::int64_t i = 0; i < idCount; ++i) {
        const float id = ids[i];
        const bool inRange = std::isfinite(id) && id >= static_cast<float>(-rows) && id < static_cast<float>(rows);
        auto r = inRange ? static_cast<std::int64_t>(id) : std::int64_t { 0 };
        if (!inRange || static_cast<float>(r) != id)
            throw Error("index " + std::to_string(id) + " (position " + std::to_string(i) + ") is not an integer in ["
                + std::to_string(-rows) + ", " + std::to_string(rows) + ") for a table of " + std::to_string(rows)
                + " rows");
        row[static_cast<std::size_t>(i)] = r < 0 ? r + rows : r;
    }
    const std::int64_t copies = outer * idCount;
#pragma omp parallel for schedule(static) if (copies * inner >= kParallelElements)
    for (std::int64_t k = 0; k < copies; ++k) {
        const std::int64_t o = k / idCount, i = k % idCount;
        std::memcpy(out + k * inner, table + (o * rows + row[static_cast<std::size_t>(i)]) * inner,
            static_cast<std::size_t>(inner) * sizeof(float));
    }
}

void gatherElements(const float* src, const Dims& srcDims, int axis, const float* ids, const Dims& idDims, float* out)
{
    const auto a = static_cast<std::size_t>(axis);
    const std::int64_t rows = srcDims.at(a);
    const std::int64_t count = product(idDims, 0, idDims.size());
    // Per output element: its coordinates in the indices' shape, the axis' one replaced by the index.
    const auto srcStrides = [&] {
        Dims st(srcDims.size(), 1);
        for (std::size_t d = srcDims.size(); d-- > 1;)
            st[d - 1] = st[d] * srcDims[d];
        return st;
    }();
    std::vector<std::int64_t> at(static_cast<std::size_t>(count));
    std::vector<std::int64_t> coord(idDims.size(), 0);
    for (std::int64_t i = 0; i < count; ++i) { // checked here: an exception cannot leave an OpenMP loop
        const float id = ids[i];
        const bool inRange = std::isfinite(id) && id >= static_cast<float>(-rows) && id < static_cast<float>(rows);
        auto r = inRange ? static_cast<std::int64_t>(id) : std::int64_t { 0 };
        if (!inRange || static_cast<float>(r) != id)
            throw Error("index " + std::to_string(id) + " (position " + std::to_string(i) + ") is not an integer in ["
                + std::to_string(-rows) + ", " + std::to_string(rows) + ") for axis " + std::to_string(axis) + " of "
                + std::to_string(rows) + " elements");
        std::int64_t offset = 0;
        for (std::size_t d = 0; d < idDims.size(); ++d)
            offset += (d == a ? (r < 0 ? r + rows : r) : coord[d]) * srcStrides[d];
        at[static_cast<std::size_t>(i)] = offset;
        for (std::size_t d = idDims.size(); d-- > 0;)
            if (++coord[d] < idDims[d])
                break;
            else
                coord[d] = 0;
    }
#pragma omp parallel for schedule(static) if (count >= kParallelElements)
    for (std::int64_t i = 0; i < count; ++i)
        out[i] = src[at[static_cast<std::size_t>(i)]];
}

void gatherConstant(
    const float* src, const Dims& srcDims, int axis, const std::vector<std::int64_t>& indices, float* out)
{
    const auto a = static_cast<std::size_t>(axis);
    const std::int64_t outer = product(srcDims, 0, a), rows = srcDims.at(a), inner = product(srcDims, a + 1);
    const auto n = static_cast<std::int64_t>(indices.size());
#pragma omp parallel for schedule(static) if (outer * n * inner >= kParallelElements)
    for (std::int64_t k = 0; k < outer * n; ++k) {
        const std::int64_t o = k / n, i = k % n;
        const std::int64_t index = indices[static_cast<std::size_t>(i)];
        const std::int64_t row = index < 0 ? index + rows : index;
        std::memcpy(out + k * inner, src + (o * rows + row) * inner, static_cast<std::size_t>(inner) * sizeof(float));
    }
}

namespace {

template <typename F>
void binaryLoop(
    const float* a, const Dims& aDims, const float* b, const Dims& bDims, float* out, const Dims& outDims, F f)
{
    const std::array<Dims, 2> strides { broadcastStrides(aDims, outDims), broadcastStrides(bDims, outDims) };
    forEachBroadcast<2>(outDims, strides,
        [&](std::int64_t k, const std::array<std::int64_t, 2>& off) { out[k] = f(a[off[0]], b[off[1]]); });
}

} // namespace

void broadcastBinary(BinaryKind kind, const float* a, const Dims& aDims, const float* b, const Dims& bDims, float* out,
    const Dims& outDims)
{
    auto run = [&](auto f) { binaryLoop(a, aDims, b, bDims, out, outDims, f); };
    switch (kind) {
    case BinaryKind::Add:
        return run([](float x, float y) { return x + y; });
    case BinaryKind::Sub:
        return run([](float x, float y) { return x - y; });
    case BinaryKind::Mul:
        return run([](float x, float y) { return x * y; });
    case BinaryKind::Div:
        return run([](float x, float y) { return x / y; });
    case BinaryKind::Pow:
        return run([](float x, float y) { return std::pow(x, y); });
    case BinaryKind::Min:
        return run([](float x, float y) { return std::min(x, y); });
    case BinaryKind::Max:
        return run([](float x, float y) { return std::max(x, y); });
    case BinaryKind::Equal:
        return run([](float x, float y) { return x == y ? 1.0F : 0.0F; });
    case BinaryKind::Less:
        return run([](float x, float y) { return x < y ? 1.0F : 0.0F; });
    case BinaryKind::Greater:
        return run([](float x, float y) { return x > y ? 1.0F : 0.0F; });
    case BinaryKind::PRelu:
        return run([](float x, float slope) { return x < 0.0F ? slope * x : x; });
    }
}

void where(const float* cond, const Dims& condDims, const float* x, const Dims& xDims, const float* y,
    const Dims& yDims, float* out, const Dims& outDims)
{
    const std::array<Dims, 3> strides { broadcastStrides(condDims, outDims), broadcastStrides(xDims, outDims),
        broadcastStrides(yDims, outDims) };
    forEachBroadcast<3>(outDims, strides, [&](std::int64_t k, const std::array<std::int64_t, 3>& off) {
        out[k] = cond[off[0]] != 0.0F ? x[off[1]] : y[off[2]];
    });
}

void expand(const float* src, const Dims& srcDims, float* out, const Dims& outDims)
{
    const std::array<Dims, 1> strides { broadcastStrides(srcDims, outDims) };
    forEachBroadcast<1>(
        outDims, strides, [&](std::int64_t k, const std::array<std::int64_t, 1>& off) { out[k] = src[off[0]]; });
}

bool isHostActivation(ActivationKind kind)
{
    return kind == ActivationKind::Erf || kind == ActivationKind::Not || kind == ActivationKind::NonZero
        || kind == ActivationKind::Truncate || kind == ActivationKind::Softsign
        || kind == ActivationKind::ThresholdedRelu;
}

namespace {

template <typename F> void eachValue(float* data, std::int64_t count, F f)
{
#pragma omp parallel for schedule(static) if (count >= kParallelElements)
    for (std::int64_t i = 0; i < count; ++i)
        data[i] = f(data[i]);
}

} // namespace

void applyHostActivation(const Activation& act, float* data, std::int64_t count)
{
    switch (act.kind) {
    case ActivationKind::Erf:
        return eachValue(data, count, [](float v) { return erfOf(v); });
    case ActivationKind::Not:
        return eachValue(data, count, [](float v) { return v == 0.0F ? 1.0F : 0.0F; });
    case ActivationKind::NonZero:
        return eachValue(data, count, [](float v) { return v != 0.0F ? 1.0F : 0.0F; });
    case ActivationKind::Truncate:
        return eachValue(data, count, [](float v) { return std::trunc(v); });
    case ActivationKind::Floor:
        return eachValue(data, count, [](float v) { return std::floor(v); });
    case ActivationKind::Ceil:
        return eachValue(data, count, [](float v) { return std::ceil(v); });
    case ActivationKind::Round: // the default rounding mode: halves to even, as ONNX's Round
        return eachValue(data, count, [](float v) { return std::nearbyint(v); });
    case ActivationKind::Sign:
        return eachValue(data, count, [](float v) { return v > 0.0F ? 1.0F : v < 0.0F ? -1.0F : 0.0F; });
    case ActivationKind::Sin:
        return eachValue(data, count, [](float v) { return std::sin(v); });
    case ActivationKind::Cos:
        return eachValue(data, count, [](float v) { return std::cos(v); });
    case ActivationKind::Softsign:
        return eachValue(data, count, [](float v) { return v / (1.0F + std::abs(v)); });
    case ActivationKind::ThresholdedRelu:
        return eachValue(data, count, [alpha = act.alpha](float v) { return v > alpha ? v : 0.0F; });
    default:
        break;
    }
    throw Error(std::string("internal: activation '") + toString(act.kind) + "' has no host kernel");
}

void argExtreme(const float* in, const Dims& inDims, int axis, bool largest, bool selectLast, float* out)
{
    const auto a = static_cast<std::size_t>(axis);
    const std::int64_t outer = product(inDims, 0, a), len = inDims.at(a), inner = product(inDims, a + 1);
#pragma omp parallel for schedule(static) if (outer * inner * len >= kParallelElements)
    for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < inner; ++i) {
            const float* row = in + o * len * inner + i;
            std::int64_t best = 0;
            for (std::int64_t k = 1; k < len; ++k) {
                const float v = row[k * inner], b = row[best * inner];
                const bool better = largest ? (v > b || (selectLast && v == b)) : (v < b || (selectLast && v == b));
                if (better)
                    best = k;
            }
            out[o * inner + i] = static_cast<float>(best);
        }
}

void topK(const float* in, const Dims& inDims, int axis, std::int64_t k, bool largest, bool indices, float* out)
{
    const auto a = static_cast<std::size_t>(axis);
    const std::int64_t outer = product(inDims, 0, a), len = inDims.at(a), inner = product(inDims, a + 1);
    if (k < 1 || k > len)
        throw Error("internal: top-k of " + std::to_string(k) + " along " + std::to_string(len) + " elements");
#pragma omp parallel for schedule(static) if (outer * inner * len >= kParallelElements)
    for (std::int64_t o = 0; o < outer; ++o) {
        std::vector<std::int64_t> order(static_cast<std::size_t>(len));
        for (std::int64_t i = 0; i < inner; ++i) {
            const float* row = in + o * len * inner + i;
            std::iota(order.begin(), order.end(), std::int64_t { 0 });
            // Better value first; among equal values the lower index (a stable order).
            const auto before = [&](std::int64_t x, std::int64_t y) {
                const float vx = row[x * inner], vy = row[y * inner];
                if (vx != vy)
                    return largest ? vx > vy : vx < vy;
                return x < y;
            };
            std::partial_sort(order.begin(), order.begin() + k, order.end(), before);
            float* dst = out + o * k * inner + i;
            for (std::int64_t j = 0; j < k; ++j) {
                const std::int64_t at = order[static_cast<std::size_t>(j)];
                dst[j * inner] = indices ? static_cast<float>(at) : row[at * inner];
            }
        }
    }
}

void resizeGather(const float* in, const Dims& inDims, const Dims& inStrides, float* out, const Dims& outDims,
    const std::vector<AxisTaps>& taps)
{
    const std::size_t rank = outDims.size();
    if (rank == 0 || taps.size() != rank || inDims.size() != rank || inStrides.size() != rank)
        throw Error("internal: resize tables do not match the rank");
    const std::int64_t last = outDims.back();
    std::int64_t rows = 1;
    for (std::size_t d = 0; d + 1 < rank; ++d)
        rows *= outDims[d];
    const AxisTaps& lastTaps = taps.back();
    const std::int64_t lastStride = inStrides.back();
    // Per output row: the (offset, weight) pairs of every tap combination of the leading axes,
    // then the last axis' taps per element.
#pragma omp parallel if (rows * last >= kParallelElements)
    {
        std::vector<std::pair<std::int64_t, float>> combos, next;
#pragma omp for schedule(static)
        for (std::int64_t row = 0; row < rows; ++row) {
            combos.assign(1, { 0, 1.0F });
            std::int64_t rest = row;
            for (std::size_t d = rank - 1; d-- > 0;) {
                const std::int64_t x = rest % outDims[d];
                rest /= outDims[d];
                const AxisTaps& t = taps[d];
                next.clear();
                for (const auto& [offset, weight] : combos)
                    for (std::int64_t k = 0; k < t.taps; ++k) {
                        const auto at = static_cast<std::size_t>(x * t.taps + k);
                        if (t.weight[at] != 0.0F)
                            next.emplace_back(offset + t.index[at] * inStrides[d], weight * t.weight[at]);
                    }
                combos.swap(next);
            }
            float* o = out + row * last;
            for (std::int64_t x = 0; x < last; ++x) {
                float acc = 0.0F;
                for (std::int64_t k = 0; k < lastTaps.taps; ++k) {
                    const auto at = static_cast<std::size_t>(x * lastTaps.taps + k);
                    const float w = lastTaps.weight[at];
                    const std::int64_t offset = lastTaps.index[at] * lastStride;
                    for (const auto& [base, weight] : combos)
                        acc += weight * w * in[base + offset];
                }
                o[x] = acc;
            }
        }
    }
}

void normaliseRows(const float* x, float* y, std::int64_t rows, std::int64_t inner, float epsilon, const float* scale,
    const float* bias, bool center)
{
#pragma omp parallel for schedule(static) if (rows * inner >= kParallelElements)
    for (std::int64_t r = 0; r < rows; ++r) {
        const float* in = x + r * inner;
        float* o = y + r * inner;
        // Two passes in double: exact enough that float32 rounding of x dominates the error.
        double mean = 0.0;
        if (center) {
            for (std::int64_t i = 0; i < inner; ++i)
                mean += in[i];
            mean /= static_cast<double>(inner);
        }
        double squares = 0.0;
        for (std::int64_t i = 0; i < inner; ++i) {
            const double d = in[i] - mean;
            squares += d * d;
        }
        const double inv = 1.0 / std::sqrt(squares / static_cast<double>(inner) + epsilon);
        for (std::int64_t i = 0; i < inner; ++i) {
            const double v = (in[i] - mean) * inv * scale[i];
            o[i] = static_cast<float>(bias ? v + bias[i] : v);
        }
    }
}

void reduceAxes(ReduceKind kind, const float* in, const Dims& inDims, const Dims& inStrides, float* out,
    const Dims& outDims, const Dims& outStrides)
{
    if (kind == ReduceKind::ArgMax || kind == ReduceKind::ArgMin || kind == ReduceKind::TopK)
        throw Error("internal: argmax, argmin and top-k are not host reductions");
    const std::size_t rank = inDims.size();
    if (outDims.size() != rank || inStrides.size() != rank || outStrides.size() != rank)
        throw Error("internal: a host reduction's operands differ in rank");
    // The reduced axes' offsets in `in`, once; each output element then reads them from its base.
    std::vector<std::int64_t> reduced { 0 };
    Dims keptDims;
    std::vector<std::int64_t> keptIn, keptOut;
    for (std::size_t a = 0; a < rank; ++a) {
        if (outDims[a] == inDims[a]) {
            keptDims.push_back(inDims[a]);
            keptIn.push_back(inStrides[a]);
            keptOut.push_back(outStrides[a]);
            continue;
        }
        if (outDims[a] != 1)
            throw Error("internal: a host reduction's output keeps neither the axis nor 1");
        std::vector<std::int64_t> next;
        next.reserve(reduced.size() * static_cast<std::size_t>(inDims[a]));
        for (std::int64_t i = 0; i < inDims[a]; ++i)
            for (std::int64_t r : reduced)
                next.push_back(r + i * inStrides[a]);
        reduced = std::move(next);
    }
    std::int64_t outputs = 1;
    for (std::int64_t d : keptDims)
        outputs *= d;
    const auto n = static_cast<std::int64_t>(reduced.size());
    const std::int64_t* offsets = reduced.data();
#pragma omp parallel for schedule(static) if (outputs * n >= kParallelElements)
    for (std::int64_t o = 0; o < outputs; ++o) {
        std::int64_t rest = o, inBase = 0, outAt = 0;
        for (std::size_t k = keptDims.size(); k-- > 0;) {
            const std::int64_t i = rest % keptDims[k];
            rest /= keptDims[k];
            inBase += i * keptIn[k];
            outAt += i * keptOut[k];
        }
        const float* x = in + inBase;
        double acc = kind == ReduceKind::Max ? -std::numeric_limits<double>::infinity()
            : kind == ReduceKind::Min        ? std::numeric_limits<double>::infinity()
            : kind == ReduceKind::Prod       ? 1.0
                                             : 0.0;
        for (std::int64_t r = 0; r < n; ++r) {
            const double v = x[offsets[r]];
            switch (kind) {
            case ReduceKind::Max:
                acc = v > acc || std::isnan(v) ? v : acc;
                break;
            case ReduceKind::Min:
                acc = v < acc || std::isnan(v) ? v : acc;
                break;
            case ReduceKind::Prod:
                acc *= v;
                break;
            case ReduceKind::L1:
                acc += std::abs(v);
                break;
            case ReduceKind::L2:
            case ReduceKind::SumSquare:
                acc += v * v;
                break;
            default:
                acc += v;
                break;
            }
        }
        if (kind == ReduceKind::Mean)
            acc /= static_cast<double>(n);
        else if (kind == ReduceKind::L2)
            acc = std::sqrt(acc);
        out[outAt] = static_cast<float>(acc);
    }
}

} // namespace opsched::cpu
