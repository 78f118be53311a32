#include "exec/cpu/host_kernels.h"

#include "util/error.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
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

// Calls f(offsets...) for every output element in row-major order, one offset per operand.
template <std::size_t N, typename F> void forEachBroadcast(const Dims& outDims, const std::array<Dims, N>& strides, F f)
{
    const std::size_t rank = outDims.size();
    const std::int64_t total = product(outDims);
    std::vector<std::int64_t> coord(rank, 0);
    std::array<std::int64_t, N> offset {};
    for (std::int64_t k = 0; k < total; ++k) {
        f(k, offset);
        for (std::size_t d = rank; d-- > 0;) {
            for (std::size_t j = 0; j < N; ++j)
                offset[j] += strides[j][d];
            if (++coord[d] < outDims[d])
                break;
            for (std::size_t j = 0; j < N; ++j)
                offset[j] -= strides[j][d] * outDims[d];
            coord[d] = 0;
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
    for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < idCount; ++i) {
            const float id = ids[i];
            const bool inRange = std::isfinite(id) && id >= static_cast<float>(-rows) && id < static_cast<float>(rows);
            auto row = inRange ? static_cast<std::int64_t>(id) : std::int64_t { 0 };
            if (!inRange || static_cast<float>(row) != id)
                throw Error("index " + std::to_string(id) + " (position " + std::to_string(i)
                    + ") is not an integer in [" + std::to_string(-rows) + ", " + std::to_string(rows)
                    + ") for a table of " + std::to_string(rows) + " rows");
            if (row < 0)
                row += rows;
            std::memcpy(out + (o * idCount + i) * inner, table + (o * rows + row) * inner,
                static_cast<std::size_t>(inner) * sizeof(float));
        }
}

void gatherConstant(
    const float* src, const Dims& srcDims, int axis, const std::vector<std::int64_t>& indices, float* out)
{
    const auto a = static_cast<std::size_t>(axis);
    const std::int64_t outer = product(srcDims, 0, a), rows = srcDims.at(a), inner = product(srcDims, a + 1);
    const auto n = static_cast<std::int64_t>(indices.size());
    for (std::int64_t o = 0; o < outer; ++o)
        for (std::int64_t i = 0; i < n; ++i) {
            const std::int64_t row = indices[static_cast<std::size_t>(i)] < 0
                ? indices[static_cast<std::size_t>(i)] + rows
                : indices[static_cast<std::size_t>(i)];
            std::memcpy(out + (o * n + i) * inner, src + (o * rows + row) * inner,
                static_cast<std::size_t>(inner) * sizeof(float));
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
        || kind == ActivationKind::Truncate;
}

void applyHostActivation(const Activation& act, float* data, std::int64_t count)
{
    switch (act.kind) {
    case ActivationKind::Erf:
        for (std::int64_t i = 0; i < count; ++i)
            data[i] = erfOf(data[i]);
        return;
    case ActivationKind::Not:
        for (std::int64_t i = 0; i < count; ++i)
            data[i] = data[i] == 0.0F ? 1.0F : 0.0F;
        return;
    case ActivationKind::NonZero:
        for (std::int64_t i = 0; i < count; ++i)
            data[i] = data[i] != 0.0F ? 1.0F : 0.0F;
        return;
    case ActivationKind::Truncate:
        for (std::int64_t i = 0; i < count; ++i)
            data[i] = std::trunc(data[i]);
        return;
    default:
        break;
    }
    throw Error(std::string("internal: activation '") + toString(act.kind) + "' has no host kernel");
}

void normaliseRows(const float* x, float* y, std::int64_t rows, std::int64_t inner, float epsilon, const float* scale,
    const float* bias, bool center)
{
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

} // namespace opsched::cpu
