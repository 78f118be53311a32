// Reductions on constants: ReduceSum/Mean/Max/Min/Prod, ArgMax/ArgMin and CumSum. Integer
// tensors reduce exactly (sums and products wrap); float ones accumulate in double, except CumSum,
// whose running sum is rounded to float at each step as a float kernel's would be.
#include "import/import_error.h"
#include "import/onnx_attributes.h"
#include "import/onnx_constant_folding.h"
#include "import/onnx_folding_support.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace opsched::onnx_import::folding {
namespace {

// The tensor viewed as outer x len x inner around `axis`.
struct AxisView {
    std::size_t outer, len, inner;
    std::size_t at(std::size_t o, std::size_t j, std::size_t i) const { return (o * len + j) * inner + i; }
};

AxisView viewAround(const Dims& dims, std::size_t axis)
{
    return { static_cast<std::size_t>(product(dims.begin(), dims.begin() + static_cast<std::ptrdiff_t>(axis))),
        static_cast<std::size_t>(dims[axis]),
        static_cast<std::size_t>(product(dims.begin() + static_cast<std::ptrdiff_t>(axis) + 1, dims.end())) };
}

ConstPtr reduce(const std::string& op, const ConstTensor& x, const Dims& axes, bool keepDims)
{
    const auto rank = x.dims.size();
    std::vector<bool> reduced(rank, axes.empty()); // no axes: all of them
    for (auto a : axes)
        reduced[static_cast<std::size_t>(normalizeAxis(a, x.rank()))] = true;
    // Every input element adds to the output element at its coordinates with reduced ones at 0.
    Dims kept = x.dims, outDims;
    std::int64_t count = 1;
    for (std::size_t d = 0; d < rank; ++d) {
        if (reduced[d]) {
            count *= x.dims[d];
            kept[d] = 1;
        }
        if (!reduced[d] || keepDims)
            outDims.push_back(kept[d]);
    }
    auto strides = stridesOf(kept);
    for (std::size_t d = 0; d < rank; ++d)
        if (reduced[d])
            strides[d] = 0;
    const auto n = elementsOf(kept);
    auto out = std::make_shared<ConstTensor>();
    out->dims = outDims;
    out->integer = x.integer;
    if (x.integer) {
        using L = std::numeric_limits<std::int64_t>;
        const std::int64_t init = op == "ReduceProd" ? 1
            : op == "ReduceMax"                      ? L::min()
            : op == "ReduceMin"                      ? L::max()
                                                     : 0;
        std::vector<std::int64_t> acc(n, init);
        forEachIndex(x.dims, [&](std::size_t k, const Dims& c) {
            auto& a = acc[offsetOf(c, strides)];
            const std::int64_t v = x.ints[k];
            const auto ua = static_cast<std::uint64_t>(a), uv = static_cast<std::uint64_t>(v);
            a = op == "ReduceMax"    ? std::max(a, v)
                : op == "ReduceMin"  ? std::min(a, v)
                : op == "ReduceProd" ? static_cast<std::int64_t>(ua * uv)
                                     : static_cast<std::int64_t>(ua + uv);
        });
        if (op == "ReduceMean") {
            if (count == 0)
                throw NodeError("ReduceMean of integers over no elements");
            for (auto& a : acc)
                a /= count; // truncates, as for an integer division
        }
        out->ints = std::move(acc);
        return out;
    }
    const double inf = std::numeric_limits<double>::infinity();
    const double init = op == "ReduceProd" ? 1.0 : op == "ReduceMax" ? -inf : op == "ReduceMin" ? inf : 0.0;
    std::vector<double> acc(n, init);
    forEachIndex(x.dims, [&](std::size_t k, const Dims& c) {
        auto& a = acc[offsetOf(c, strides)];
        const double v = x.floats[k];
        if (op == "ReduceMax" || op == "ReduceMin") // NaN wins, as with numpy
            a = std::isnan(a) || std::isnan(v) ? std::nan("") : op == "ReduceMax" ? std::max(a, v) : std::min(a, v);
        else
            a = op == "ReduceProd" ? a * v : a + v;
    });
    out->floats.reserve(n);
    for (double a : acc)
        out->floats.push_back(static_cast<float>(op == "ReduceMean" ? a / static_cast<double>(count) : a));
    return out;
}

std::vector<ConstPtr> reduceNode(const onnx::NodeProto& node, const std::vector<ConstPtr>& inputs, int opset)
{
    const Attributes attrs(node);
    const auto& op = node.op_type();
    const auto& x = input(inputs, 0, "data");
    // axes became an input in opset 13 for ReduceSum, in opset 18 for the others.
    const bool axesInput = op == "ReduceSum" ? opset >= 13 : opset >= 18;
    Dims axes;
    if (!axesInput)
        axes = attrs.getInts("axes");
    else if (const auto* a = optionalInput(inputs, 1))
        axes = a->toInts();
    if (axes.empty() && attrs.getInt("noop_with_empty_axes", 0) != 0)
        return { withDims(x, x.dims) };
    return { reduce(op, x, axes, attrs.getInt("keepdims", 1) != 0) };
}

// Index of the first (or with selectLast the last) maximum or minimum along the axis; NaN counts
// as the extreme, as with numpy.
ConstPtr argExtreme(bool max, const ConstTensor& x, std::int64_t axisAttr, bool keepDims, bool selectLast)
{
    if (x.rank() == 0)
        throw NodeError("cannot take the arg-extreme of a scalar");
    const auto axis = static_cast<std::size_t>(normalizeAxis(axisAttr, x.rank()));
    if (x.dims[axis] == 0)
        throw NodeError("cannot take the arg-extreme over an empty axis");
    const auto view = viewAround(x.dims, axis);
    auto better = [&](std::size_t candidate, std::size_t best) {
        if (x.integer) {
            const std::int64_t v = x.ints[candidate], b = x.ints[best];
            return (max ? v > b : v < b) || (selectLast && v == b);
        }
        const double v = x.floats[candidate], b = x.floats[best];
        if (std::isnan(b))
            return selectLast && std::isnan(v);
        return std::isnan(v) || (max ? v > b : v < b) || (selectLast && v == b);
    };
    Dims dims = x.dims;
    if (keepDims)
        dims[axis] = 1;
    else
        dims.erase(dims.begin() + static_cast<std::ptrdiff_t>(axis));
    std::vector<std::int64_t> values;
    values.reserve(view.outer * view.inner);
    for (std::size_t o = 0; o < view.outer; ++o)
        for (std::size_t i = 0; i < view.inner; ++i) {
            std::size_t best = 0;
            for (std::size_t j = 1; j < view.len; ++j)
                if (better(view.at(o, j, i), view.at(o, best, i)))
                    best = j;
            values.push_back(static_cast<std::int64_t>(best));
        }
    return std::make_shared<ConstTensor>(ConstTensor::ofInts(std::move(dims), std::move(values)));
}

ConstPtr cumSum(const ConstTensor& x, std::int64_t axisValue, bool exclusive, bool reverse)
{
    if (x.rank() == 0)
        throw NodeError("CumSum needs rank 1 or more");
    const auto axis = static_cast<std::size_t>(normalizeAxis(axisValue, x.rank()));
    const auto view = viewAround(x.dims, axis);
    auto out = emptyLike(x, x.dims);
    for (std::size_t o = 0; o < view.outer; ++o)
        for (std::size_t i = 0; i < view.inner; ++i) {
            std::uint64_t intSum = 0; // wraps instead of overflowing
            float realSum = 0.0F;
            for (std::size_t s = 0; s < view.len; ++s) {
                const std::size_t e = view.at(o, reverse ? view.len - 1 - s : s, i);
                if (x.integer) {
                    if (!exclusive)
                        intSum += static_cast<std::uint64_t>(x.ints[e]);
                    out->ints[e] = static_cast<std::int64_t>(intSum);
                    if (exclusive)
                        intSum += static_cast<std::uint64_t>(x.ints[e]);
                } else {
                    if (!exclusive)
                        realSum += x.floats[e];
                    out->floats[e] = realSum;
                    if (exclusive)
                        realSum += x.floats[e];
                }
            }
        }
    return out;
}

} // namespace

void addReductionFolders(FolderTable& t)
{
    for (const char* op : { "ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd" })
        t[op] = reduceNode;
    for (const char* op : { "ArgMax", "ArgMin" })
        t[op] = [](const auto& node, const auto& in, int) {
            const Attributes attrs(node);
            return std::vector<ConstPtr> { argExtreme(node.op_type() == "ArgMax", input(in, 0, "data"),
                attrs.getInt("axis", 0), attrs.getInt("keepdims", 1) != 0, attrs.getInt("select_last_index", 0) != 0) };
        };
    t["CumSum"] = [](const auto& node, const auto& in, int) {
        const Attributes attrs(node);
        return std::vector<ConstPtr> { cumSum(input(in, 0, "data"), scalarInt(input(in, 1, "axis"), "CumSum axis"),
            attrs.getInt("exclusive", 0) != 0, attrs.getInt("reverse", 0) != 0) };
    };
}

} // namespace opsched::onnx_import::folding
