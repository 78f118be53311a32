// Ops on constants that build or rearrange tensors by index: Range, Expand, Tile, ScatterND,
// GatherElements, GatherND, NonZero, Trilu and OneHot. Exporters emit them for attention masks,
// window shifts and relative position tables; negative indices count from the end as ONNX allows.
#include "import/import_error.h"
#include "import/onnx_attributes.h"
#include "import/onnx_constant_folding.h"
#include "import/onnx_folding_support.h"

#include <algorithm>
#include <cmath>

namespace opsched::onnx_import::folding {
namespace {

// start, start + delta, ... up to (excluding) limit: ceil((limit - start) / delta) values, or
// none when that is negative.
ConstPtr range(const ConstTensor& start, const ConstTensor& limit, const ConstTensor& delta)
{
    const auto tooMany
        = [] { return NodeError("Range has more than " + std::to_string(kMaxConstantElements) + " values"); };
    if (start.integer && limit.integer && delta.integer) {
        const std::int64_t s = scalarInt(start, "Range start"), l = scalarInt(limit, "Range limit");
        const std::int64_t d = scalarInt(delta, "Range delta");
        if (d == 0)
            throw NodeError("Range delta is zero");
        // The distance and step as unsigned magnitudes: exact even across the whole int64 range.
        std::uint64_t distance = 0, step = 0;
        if (d > 0 && l > s) {
            distance = static_cast<std::uint64_t>(l) - static_cast<std::uint64_t>(s);
            step = static_cast<std::uint64_t>(d);
        } else if (d < 0 && s > l) {
            distance = static_cast<std::uint64_t>(s) - static_cast<std::uint64_t>(l);
            step = 0 - static_cast<std::uint64_t>(d);
        }
        const std::uint64_t n = step == 0 ? 0 : distance / step + (distance % step != 0);
        if (n > static_cast<std::uint64_t>(kMaxConstantElements))
            throw tooMany();
        std::vector<std::int64_t> values(static_cast<std::size_t>(n));
        for (std::size_t i = 0; i < values.size(); ++i)
            // Unsigned, as i * delta may overflow int64 while the sum lies between start and limit.
            values[i] = static_cast<std::int64_t>(static_cast<std::uint64_t>(s) + i * static_cast<std::uint64_t>(d));
        return std::make_shared<ConstTensor>(ConstTensor::ofInts({ static_cast<std::int64_t>(n) }, std::move(values)));
    }
    const double s = scalarReal(start, "Range start"), l = scalarReal(limit, "Range limit");
    const double d = scalarReal(delta, "Range delta");
    if (d == 0.0)
        throw NodeError("Range delta is zero");
    const double count = std::ceil((l - s) / d);
    if (std::isnan(count) || count > static_cast<double>(kMaxConstantElements))
        throw tooMany();
    const auto n = static_cast<std::size_t>(std::max(count, 0.0));
    std::vector<float> values(n);
    for (std::size_t i = 0; i < n; ++i)
        values[i] = static_cast<float>(s + static_cast<double>(i) * d);
    return std::make_shared<ConstTensor>(ConstTensor::ofFloats({ static_cast<std::int64_t>(n) }, std::move(values)));
}

// The data broadcast with a shape in both directions (a 1 in the shape keeps the data's dimension).
ConstPtr expand(const ConstTensor& data, const ConstTensor& shape)
{
    if (shape.rank() != 1)
        throw NodeError("Expand needs a 1-D shape, not " + dimsToString(shape.dims));
    const auto target = shape.toInts();
    for (auto d : target)
        if (d < 0)
            throw NodeError("Expand shape " + dimsToString(target) + " has a negative dimension");
    const auto dims = broadcastDims(data.dims, target);
    const auto strides = broadcastStrides(data.dims, dims);
    std::vector<std::size_t> index;
    index.reserve(elementsOf(dims));
    forEachIndex(dims, [&](std::size_t, const Dims& c) { index.push_back(offsetOf(c, strides)); });
    return pick(data, dims, index);
}

ConstPtr tile(const ConstTensor& data, const ConstTensor& repeats)
{
    const auto reps = repeats.toInts();
    if (repeats.rank() != 1 || reps.size() != data.dims.size())
        throw NodeError("Tile needs one repeat per dimension: " + dimsToString(repeats.dims) + " repeats for rank "
            + std::to_string(data.rank()));
    Dims dims(data.dims.size());
    for (std::size_t d = 0; d < dims.size(); ++d) {
        if (reps[d] < 0)
            throw NodeError("Tile repeat " + std::to_string(reps[d]) + " is negative");
        if (data.dims[d] != 0 && reps[d] > kMaxConstantElements / data.dims[d])
            throw NodeError("Tile result is too large");
        dims[d] = data.dims[d] * reps[d];
    }
    const auto strides = stridesOf(data.dims);
    std::vector<std::size_t> index;
    index.reserve(elementsOf(dims));
    forEachIndex(dims, [&](std::size_t, const Dims& c) {
        std::int64_t flat = 0;
        for (std::size_t d = 0; d < c.size(); ++d)
            flat += (c[d] % data.dims[d]) * strides[d];
        index.push_back(static_cast<std::size_t>(flat));
    });
    return pick(data, dims, index);
}

// Offset into `data` of the index tuple `tuple` (k values) over data's dimensions from `first` on.
std::size_t tupleOffset(const ConstTensor& data, const Dims& strides, const std::int64_t* tuple, std::size_t k,
    std::size_t first, const char* what)
{
    std::int64_t flat = 0;
    for (std::size_t i = 0; i < k; ++i)
        flat += indexInDim(tuple[i], data.dims[first + i], what) * strides[first + i];
    return static_cast<std::size_t>(flat);
}

// A copy of the data with slices replaced (or combined, with a reduction) by the updates at the
// index tuples of the last indices dimension.
ConstPtr scatterND(
    const ConstTensor& data, const ConstTensor& indices, const ConstTensor& updates, const std::string& reduction)
{
    if (indices.rank() == 0)
        throw NodeError("ScatterND indices must have rank 1 or more");
    const auto k = static_cast<std::size_t>(indices.dims.back());
    if (k > data.dims.size())
        throw NodeError("ScatterND index tuples of length " + std::to_string(k) + " exceed the data's rank "
            + std::to_string(data.rank()));
    Dims expected(indices.dims.begin(), indices.dims.end() - 1);
    expected.insert(expected.end(), data.dims.begin() + static_cast<std::ptrdiff_t>(k), data.dims.end());
    if (updates.dims != expected)
        throw NodeError("ScatterND updates are " + dimsToString(updates.dims) + ", expected " + dimsToString(expected));
    if (reduction != "none" && reduction != "add" && reduction != "mul" && reduction != "max" && reduction != "min")
        throw NodeError("ScatterND reduction '" + reduction + "' is not supported");
    auto out = std::make_shared<ConstTensor>(data);
    const auto idx = indices.toInts();
    const auto updateInts = out->integer ? updates.toInts() : std::vector<std::int64_t> {};
    const auto strides = stridesOf(data.dims);
    const auto block
        = static_cast<std::size_t>(product(data.dims.begin() + static_cast<std::ptrdiff_t>(k), data.dims.end()));
    const auto tuples = static_cast<std::size_t>(product(indices.dims.begin(), indices.dims.end() - 1));
    for (std::size_t t = 0; t < tuples; ++t) {
        const std::size_t base = tupleOffset(data, strides, idx.data() + t * k, k, 0, "ScatterND");
        for (std::size_t j = 0; j < block; ++j) {
            const std::size_t to = base + j, from = t * block + j;
            if (reduction == "none") {
                copyElement(*out, to, updates, from);
            } else if (out->integer) { // add and mul wrap instead of overflowing
                const auto x = static_cast<std::uint64_t>(out->ints[to]),
                           u = static_cast<std::uint64_t>(updateInts[from]);
                out->ints[to] = reduction == "add" ? static_cast<std::int64_t>(x + u)
                    : reduction == "mul"           ? static_cast<std::int64_t>(x * u)
                    : reduction == "max"           ? std::max(out->ints[to], updateInts[from])
                                                   : std::min(out->ints[to], updateInts[from]);
            } else {
                const double x = out->floats[to], u = updates.at(from);
                out->floats[to] = static_cast<float>(reduction == "add" ? x + u
                        : reduction == "mul"                            ? x * u
                        : reduction == "max"                            ? std::max(x, u)
                                                                        : std::min(x, u));
            }
        }
    }
    return out;
}

// out[c] = data[c with c[axis] replaced by indices[c]].
ConstPtr gatherElements(const ConstTensor& data, const ConstTensor& indices, std::int64_t axisAttr)
{
    if (data.rank() == 0 || indices.rank() != data.rank())
        throw NodeError("GatherElements needs indices " + dimsToString(indices.dims) + " of the data's rank ("
            + dimsToString(data.dims) + ")");
    const auto axis = static_cast<std::size_t>(normalizeAxis(axisAttr, data.rank()));
    for (std::size_t d = 0; d < data.dims.size(); ++d)
        if (d != axis && indices.dims[d] > data.dims[d])
            throw NodeError("GatherElements indices " + dimsToString(indices.dims) + " exceed the data "
                + dimsToString(data.dims) + " outside the axis");
    const auto idx = indices.toInts();
    const auto strides = stridesOf(data.dims);
    std::vector<std::size_t> index;
    index.reserve(idx.size());
    forEachIndex(indices.dims, [&](std::size_t k, const Dims& c) {
        const std::int64_t i = indexInDim(idx[k], data.dims[axis], "GatherElements");
        index.push_back(offsetOf(c, strides) + static_cast<std::size_t>((i - c[axis]) * strides[axis]));
    });
    return pick(data, indices.dims, index);
}

// Slices of data at the index tuples of the last indices dimension; the first batch_dims
// dimensions of data and indices are matched one to one.
ConstPtr gatherND(const ConstTensor& data, const ConstTensor& indices, std::int64_t batchDims)
{
    const auto q = indices.dims.size();
    if (q == 0)
        throw NodeError("GatherND indices must have rank 1 or more");
    if (batchDims < 0 || static_cast<std::size_t>(batchDims) >= q
        || static_cast<std::size_t>(batchDims) > data.dims.size())
        throw NodeError("GatherND batch_dims " + std::to_string(batchDims) + " is out of range");
    const auto b = static_cast<std::size_t>(batchDims);
    const auto k = static_cast<std::size_t>(indices.dims.back());
    if (b + k > data.dims.size())
        throw NodeError("GatherND index tuples of length " + std::to_string(k) + " exceed the data's rank "
            + std::to_string(data.rank()));
    for (std::size_t d = 0; d < b; ++d)
        if (indices.dims[d] != data.dims[d])
            throw NodeError(
                "GatherND batch dimensions differ: " + dimsToString(indices.dims) + " vs " + dimsToString(data.dims));
    Dims dims(indices.dims.begin(), indices.dims.end() - 1);
    dims.insert(dims.end(), data.dims.begin() + static_cast<std::ptrdiff_t>(b + k), data.dims.end());
    const auto idx = indices.toInts();
    const auto strides = stridesOf(data.dims);
    const auto block
        = static_cast<std::size_t>(product(data.dims.begin() + static_cast<std::ptrdiff_t>(b + k), data.dims.end()));
    // Index tuples per batch, and the data elements per batch.
    const auto perBatch = static_cast<std::size_t>(
        product(indices.dims.begin() + static_cast<std::ptrdiff_t>(b), indices.dims.end() - 1));
    const auto batchSize
        = static_cast<std::size_t>(product(data.dims.begin() + static_cast<std::ptrdiff_t>(b), data.dims.end()));
    const std::size_t tuples = static_cast<std::size_t>(product(indices.dims.begin(), indices.dims.end() - 1));
    std::vector<std::size_t> index;
    index.reserve(elementsOf(dims));
    for (std::size_t t = 0; t < tuples; ++t) {
        const std::size_t base = (t / std::max<std::size_t>(perBatch, 1)) * batchSize
            + tupleOffset(data, strides, idx.data() + t * k, k, b, "GatherND");
        for (std::size_t j = 0; j < block; ++j)
            index.push_back(base + j);
    }
    return pick(data, dims, index);
}

// Coordinates of the non-zero elements, one row per dimension (a scalar counts as 1-D).
ConstPtr nonZero(const ConstTensor& x)
{
    const Dims dims = x.rank() == 0 ? Dims { 1 } : x.dims;
    std::size_t n = 0;
    for (std::size_t k = 0; k < x.size(); ++k)
        n += x.at(k) != 0.0;
    std::vector<std::int64_t> values(dims.size() * n);
    std::size_t i = 0;
    forEachIndex(dims, [&](std::size_t k, const Dims& c) {
        if (x.at(k) == 0.0)
            return;
        for (std::size_t d = 0; d < dims.size(); ++d)
            values[d * n + i] = c[d];
        ++i;
    });
    return std::make_shared<ConstTensor>(ConstTensor::ofInts(
        { static_cast<std::int64_t>(dims.size()), static_cast<std::int64_t>(n) }, std::move(values)));
}

// Keeps the upper (j - i >= k) or lower (j - i <= k) triangle of the last two dimensions.
ConstPtr trilu(const ConstTensor& x, std::int64_t k, bool upper)
{
    if (x.rank() < 2)
        throw NodeError("Trilu needs rank 2 or more, not " + dimsToString(x.dims));
    auto out = emptyLike(x, x.dims);
    const auto r = x.dims.size();
    forEachIndex(x.dims, [&](std::size_t e, const Dims& c) {
        const std::int64_t diagonal = c[r - 1] - c[r - 2];
        if (upper ? diagonal >= k : diagonal <= k)
            copyElement(*out, e, x, e);
    });
    return out;
}

// A new dimension of `depth` at `axis` holding values[1] where it equals the index, else values[0].
ConstPtr oneHot(
    const ConstTensor& indices, const ConstTensor& depthIn, const ConstTensor& values, std::int64_t axisAttr)
{
    const std::int64_t depth = scalarInt(depthIn, "OneHot depth");
    if (depth < 0)
        throw NodeError("OneHot depth " + std::to_string(depth) + " is negative");
    if (values.size() != 2)
        throw NodeError("OneHot values must hold [off, on], not " + dimsToString(values.dims));
    const auto axis = static_cast<std::size_t>(normalizeAxis(axisAttr, indices.rank() + 1));
    Dims dims = indices.dims;
    dims.insert(dims.begin() + static_cast<std::ptrdiff_t>(axis), depth);
    const auto idx = indices.toInts();
    const auto inner = static_cast<std::size_t>(
        product(indices.dims.begin() + static_cast<std::ptrdiff_t>(axis), indices.dims.end()));
    auto out = emptyLike(values, dims);
    forEachIndex(dims, [&](std::size_t e, const Dims& c) {
        // The indices element: c without the new axis, as outer * inner + rest.
        std::size_t outer = 0;
        for (std::size_t d = 0; d < axis; ++d)
            outer = outer * static_cast<std::size_t>(dims[d]) + static_cast<std::size_t>(c[d]);
        std::size_t rest = 0;
        for (std::size_t d = axis + 1; d < dims.size(); ++d)
            rest = rest * static_cast<std::size_t>(dims[d]) + static_cast<std::size_t>(c[d]);
        std::int64_t i = idx[outer * inner + rest];
        if (i < 0)
            i += depth; // still out of range (all off) when below -depth
        copyElement(*out, e, values, i == c[axis] ? 1 : 0);
    });
    return out;
}

} // namespace

void addIndexingFolders(FolderTable& t)
{
    t["Range"] = [](const auto&, const auto& in, int) {
        return one(range(input(in, 0, "start"), input(in, 1, "limit"), input(in, 2, "delta")));
    };
    t["Expand"]
        = [](const auto&, const auto& in, int) { return one(expand(input(in, 0, "data"), input(in, 1, "shape"))); };
    t["Tile"]
        = [](const auto&, const auto& in, int) { return one(tile(input(in, 0, "data"), input(in, 1, "repeats"))); };
    t["ScatterND"] = [](const auto& node, const auto& in, int) {
        return one(scatterND(input(in, 0, "data"), input(in, 1, "indices"), input(in, 2, "updates"),
            Attributes(node).getString("reduction", "none")));
    };
    t["GatherElements"] = [](const auto& node, const auto& in, int) {
        return one(gatherElements(input(in, 0, "data"), input(in, 1, "indices"), Attributes(node).getInt("axis", 0)));
    };
    t["GatherND"] = [](const auto& node, const auto& in, int) {
        return one(gatherND(input(in, 0, "data"), input(in, 1, "indices"), Attributes(node).getInt("batch_dims", 0)));
    };
    t["NonZero"] = [](const auto&, const auto& in, int) { return one(nonZero(input(in, 0, "data"))); };
    t["Trilu"] = [](const auto& node, const auto& in, int) {
        const auto* k = optionalInput(in, 1);
        return one(
            trilu(input(in, 0, "data"), k ? scalarInt(*k, "Trilu k") : 0, Attributes(node).getInt("upper", 1) != 0));
    };
    t["OneHot"] = [](const auto& node, const auto& in, int) {
        return one(oneHot(input(in, 0, "indices"), input(in, 1, "depth"), input(in, 2, "values"),
            Attributes(node).getInt("axis", -1)));
    };
}

} // namespace opsched::onnx_import::folding
