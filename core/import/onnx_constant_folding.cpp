#include "import/onnx_constant_folding.h"

#include "import/import_error.h"
#include "import/onnx_attributes.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

namespace opsched::onnx_import {
namespace {

const std::unordered_set<std::string>& foldOnlyTypes()
{
    static const std::unordered_set<std::string> types{"Constant", "Shape", "Size", "Gather", "Cast", "ConstantOfShape"};
    return types;
}

const std::unordered_set<std::string>& foldableTypes()
{
    static const std::unordered_set<std::string> types{
        "Constant", "Shape",   "Size",    "Gather",  "Cast",      "ConstantOfShape", "Unsqueeze", "Squeeze",
        "Concat",   "Reshape", "Flatten", "Slice",   "Add",       "Sub",             "Mul",       "Div",
        "Identity", "Dropout", "Transpose"};
    return types;
}

std::vector<std::int64_t> stridesOf(const std::vector<std::int64_t>& dims)
{
    std::vector<std::int64_t> s(dims.size(), 1);
    for (std::size_t i = dims.size(); i-- > 1;)
        s[i - 1] = s[i] * dims[i];
    return s;
}

std::size_t elementsOf(const std::vector<std::int64_t>& dims)
{
    return static_cast<std::size_t>(checkedElements(dims, kMaxConstantElements, "a folded constant " + dimsToString(dims)));
}

// Calls f(k, coordinates) for each element of `dims`, k in row-major order.
template <typename F>
void forEachIndex(const std::vector<std::int64_t>& dims, F f)
{
    const std::size_t total = elementsOf(dims);
    std::vector<std::int64_t> coord(dims.size(), 0);
    for (std::size_t k = 0; k < total; ++k) {
        f(k, coord);
        for (std::size_t d = dims.size(); d-- > 0;) {
            if (++coord[d] < dims[d])
                break;
            coord[d] = 0;
        }
    }
}

// A tensor of `dims` whose element k is src's element index[k].
ConstPtr pick(const ConstTensor& src, std::vector<std::int64_t> dims, const std::vector<std::size_t>& index)
{
    auto out = std::make_shared<ConstTensor>();
    out->dims = std::move(dims);
    out->integer = src.integer;
    if (src.integer) {
        out->ints.reserve(index.size());
        for (auto i : index)
            out->ints.push_back(src.ints[i]);
    } else {
        out->floats.reserve(index.size());
        for (auto i : index)
            out->floats.push_back(src.floats[i]);
    }
    return out;
}

ConstPtr withDims(const ConstTensor& src, std::vector<std::int64_t> dims)
{
    auto out = std::make_shared<ConstTensor>(src);
    out->dims = std::move(dims);
    return out;
}

const ConstTensor& input(const std::vector<ConstPtr>& inputs, std::size_t i, const char* what)
{
    if (i >= inputs.size() || !inputs[i])
        throw NodeError(std::string("needs its ") + what + " input");
    return *inputs[i];
}

// Axes from the attribute (older opsets) or the optional input `inputIndex`.
std::vector<std::int64_t> axesOf(const onnx::NodeProto& node, const std::vector<ConstPtr>& inputs, std::size_t inputIndex,
                                 bool fromInput)
{
    if (!fromInput)
        return Attributes(node).getInts("axes");
    if (inputIndex < inputs.size() && inputs[inputIndex])
        return inputs[inputIndex]->toInts();
    return {};
}

ConstPtr gather(const ConstTensor& data, const ConstTensor& indices, std::int64_t axisAttr)
{
    if (data.rank() == 0)
        throw NodeError("cannot gather from a scalar");
    const auto axis = static_cast<std::size_t>(normalizeAxis(axisAttr, data.rank()));
    const auto idx = indices.toInts();
    std::vector<std::int64_t> dims(data.dims.begin(), data.dims.begin() + static_cast<std::ptrdiff_t>(axis));
    dims.insert(dims.end(), indices.dims.begin(), indices.dims.end());
    dims.insert(dims.end(), data.dims.begin() + static_cast<std::ptrdiff_t>(axis) + 1, data.dims.end());
    const auto strides = stridesOf(data.dims);
    std::vector<std::size_t> index;
    index.reserve(elementsOf(dims));
    const std::size_t idxRank = indices.dims.size();
    forEachIndex(dims, [&](std::size_t, const std::vector<std::int64_t>& c) {
        std::size_t flat = 0, ic = 0;
        for (std::size_t d = 0; d < idxRank; ++d)
            ic = ic * static_cast<std::size_t>(indices.dims[d]) + static_cast<std::size_t>(c[axis + d]);
        std::int64_t i = idx[ic];
        if (i < -data.dims[axis] || i >= data.dims[axis])
            throw NodeError("gather index " + std::to_string(i) + " is out of range for dimension " +
                            std::to_string(data.dims[axis]));
        if (i < 0)
            i += data.dims[axis];
        for (std::size_t d = 0; d < axis; ++d)
            flat += static_cast<std::size_t>(c[d] * strides[d]);
        flat += static_cast<std::size_t>(i * strides[axis]);
        for (std::size_t d = axis + 1; d < data.dims.size(); ++d)
            flat += static_cast<std::size_t>(c[d + idxRank - 1] * strides[d]);
        index.push_back(flat);
    });
    return pick(data, dims, index);
}

ConstPtr concat(const std::vector<ConstPtr>& inputs, std::int64_t axisAttr)
{
    if (inputs.empty() || !inputs.front())
        throw NodeError("concat has no inputs");
    const auto& first = *inputs.front();
    const auto axis = static_cast<std::size_t>(normalizeAxis(axisAttr, first.rank()));
    bool integer = true;
    std::vector<std::int64_t> dims = first.dims;
    dims[axis] = 0;
    for (const auto& in : inputs) {
        if (!in || in->rank() != first.rank())
            throw NodeError("concat inputs differ in rank");
        for (std::size_t d = 0; d < dims.size(); ++d)
            if (d != axis && in->dims[d] != first.dims[d])
                throw NodeError("concat inputs differ outside the axis: " + dimsToString(first.dims) + " vs " +
                                dimsToString(in->dims));
        dims[axis] += in->dims[axis];
        integer = integer && in->integer;
    }
    auto out = std::make_shared<ConstTensor>();
    out->dims = dims;
    out->integer = integer;
    elementsOf(dims);
    // Row-major: for each outer index, append each input's block along the axis.
    std::int64_t outer = 1;
    for (std::size_t d = 0; d < axis; ++d)
        outer *= dims[d];
    for (std::int64_t o = 0; o < outer; ++o)
        for (const auto& in : inputs) {
            const auto block = static_cast<std::size_t>(in->size() / static_cast<std::size_t>(std::max<std::int64_t>(outer, 1)));
            for (std::size_t k = 0; k < block; ++k) {
                const std::size_t src = static_cast<std::size_t>(o) * block + k;
                if (integer)
                    out->ints.push_back(in->ints[src]);
                else
                    out->floats.push_back(static_cast<float>(in->at(src)));
            }
        }
    return out;
}

ConstPtr slice(const ConstTensor& data, std::vector<std::int64_t> starts, std::vector<std::int64_t> ends,
               std::vector<std::int64_t> axes, std::vector<std::int64_t> steps)
{
    if (axes.empty())
        for (std::size_t i = 0; i < starts.size(); ++i)
            axes.push_back(static_cast<std::int64_t>(i));
    if (steps.empty())
        steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
        throw NodeError("slice needs as many starts, ends, axes and steps");
    std::vector<std::int64_t> begin(data.dims.size(), 0), step(data.dims.size(), 1), dims = data.dims;
    for (std::size_t i = 0; i < axes.size(); ++i) {
        const auto a = static_cast<std::size_t>(normalizeAxis(axes[i], data.rank()));
        const std::int64_t d = data.dims[a], s = steps[i];
        if (s == 0 || s > kMaxConstantElements || s < -kMaxConstantElements)
            throw NodeError("slice step " + std::to_string(s) + " is out of range");
        std::int64_t b = starts[i] < 0 ? starts[i] + d : starts[i];
        std::int64_t e = ends[i] < 0 ? ends[i] + d : ends[i];
        if (s > 0) {
            b = std::clamp<std::int64_t>(b, 0, d);
            e = std::clamp<std::int64_t>(e, 0, d);
            dims[a] = e > b ? (e - b + s - 1) / s : 0;
        } else {
            b = std::clamp<std::int64_t>(b, -1, d - 1);
            e = std::clamp<std::int64_t>(e, -1, d - 1);
            dims[a] = b > e ? (b - e - s - 1) / -s : 0;
        }
        begin[a] = b;
        step[a] = s;
    }
    const auto strides = stridesOf(data.dims);
    std::vector<std::size_t> index;
    forEachIndex(dims, [&](std::size_t, const std::vector<std::int64_t>& c) {
        std::int64_t flat = 0;
        for (std::size_t d = 0; d < c.size(); ++d)
            flat += (begin[d] + c[d] * step[d]) * strides[d];
        index.push_back(static_cast<std::size_t>(flat));
    });
    return pick(data, dims, index);
}

ConstPtr transpose(const ConstTensor& data, std::vector<std::int64_t> perm)
{
    const auto rank = data.dims.size();
    if (perm.empty())
        for (std::size_t i = rank; i-- > 0;)
            perm.push_back(static_cast<std::int64_t>(i));
    std::vector<bool> seen(rank, false);
    if (perm.size() != rank)
        throw NodeError("transpose permutation does not match the rank");
    std::vector<std::int64_t> dims(rank);
    for (std::size_t i = 0; i < rank; ++i) {
        if (perm[i] < 0 || perm[i] >= static_cast<std::int64_t>(rank) || seen[static_cast<std::size_t>(perm[i])])
            throw NodeError("transpose perm is not a permutation");
        seen[static_cast<std::size_t>(perm[i])] = true;
        dims[i] = data.dims[static_cast<std::size_t>(perm[i])];
    }
    const auto strides = stridesOf(data.dims);
    std::vector<std::size_t> index;
    forEachIndex(dims, [&](std::size_t, const std::vector<std::int64_t>& c) {
        std::int64_t flat = 0;
        for (std::size_t d = 0; d < rank; ++d)
            flat += c[d] * strides[static_cast<std::size_t>(perm[d])];
        index.push_back(static_cast<std::size_t>(flat));
    });
    return pick(data, dims, index);
}

ConstPtr arithmetic(const std::string& op, const ConstTensor& a, const ConstTensor& b)
{
    const auto rank = std::max(a.dims.size(), b.dims.size());
    std::vector<std::int64_t> dims(rank), sa(rank, 0), sb(rank, 0);
    const auto strideA = stridesOf(a.dims), strideB = stridesOf(b.dims);
    for (std::size_t i = 0; i < rank; ++i) {
        const auto ia = static_cast<std::ptrdiff_t>(i) - static_cast<std::ptrdiff_t>(rank - a.dims.size());
        const auto ib = static_cast<std::ptrdiff_t>(i) - static_cast<std::ptrdiff_t>(rank - b.dims.size());
        const std::int64_t da = ia >= 0 ? a.dims[static_cast<std::size_t>(ia)] : 1;
        const std::int64_t db = ib >= 0 ? b.dims[static_cast<std::size_t>(ib)] : 1;
        if (da != db && da != 1 && db != 1)
            throw NodeError("cannot broadcast " + dimsToString(a.dims) + " with " + dimsToString(b.dims));
        dims[i] = da == 1 ? db : da;
        sa[i] = (ia >= 0 && da != 1) ? strideA[static_cast<std::size_t>(ia)] : 0;
        sb[i] = (ib >= 0 && db != 1) ? strideB[static_cast<std::size_t>(ib)] : 0;
    }
    auto out = std::make_shared<ConstTensor>();
    out->dims = dims;
    out->integer = a.integer && b.integer;
    forEachIndex(dims, [&](std::size_t, const std::vector<std::int64_t>& c) {
        std::size_t ia = 0, ib = 0;
        for (std::size_t d = 0; d < rank; ++d) {
            ia += static_cast<std::size_t>(c[d] * sa[d]);
            ib += static_cast<std::size_t>(c[d] * sb[d]);
        }
        if (out->integer) {
            // Wrapping (unsigned) arithmetic: absurd shape values must not be undefined behaviour.
            const std::int64_t x = a.ints[ia], y = b.ints[ib];
            const auto ux = static_cast<std::uint64_t>(x), uy = static_cast<std::uint64_t>(y);
            if (op == "Div" && (y == 0 || (y == -1 && x == std::numeric_limits<std::int64_t>::min())))
                throw NodeError("integer division by zero or overflow");
            out->ints.push_back(op == "Add"   ? static_cast<std::int64_t>(ux + uy)
                                : op == "Sub" ? static_cast<std::int64_t>(ux - uy)
                                : op == "Mul" ? static_cast<std::int64_t>(ux * uy)
                                              : x / y);
        } else {
            const double x = a.at(ia), y = b.at(ib);
            out->floats.push_back(static_cast<float>(op == "Add" ? x + y : op == "Sub" ? x - y : op == "Mul" ? x * y : x / y));
        }
    });
    return out;
}

ConstPtr cast(const ConstTensor& data, std::int64_t to)
{
    using T = onnx::TensorProto;
    auto out = std::make_shared<ConstTensor>();
    out->dims = data.dims;
    if (to == T::FLOAT || to == T::DOUBLE || to == T::FLOAT16 || to == T::BFLOAT16) {
        out->floats = data.toFloats();
    } else if (to == T::BOOL) {
        out->integer = true;
        for (std::size_t i = 0; i < data.size(); ++i)
            out->ints.push_back(data.at(i) != 0.0 ? 1 : 0);
    } else if (to == T::STRING || to == T::UNDEFINED || to == T::COMPLEX64 || to == T::COMPLEX128) {
        throw NodeError(std::string("cannot cast constants to ") + dataTypeName(static_cast<int>(to)));
    } else {
        out->integer = true;
        out->ints = data.toInts();
    }
    return out;
}

ConstPtr constantNode(const onnx::NodeProto& node)
{
    const Attributes attrs(node);
    if (const auto* t = attrs.getTensor("value"))
        return std::make_shared<ConstTensor>(decodeTensor(*t, "the value of Constant '" + node.output(0) + "'"));
    if (attrs.has("value_float"))
        return std::make_shared<ConstTensor>(ConstTensor::ofFloats({}, {attrs.getFloat("value_float", 0)}));
    if (attrs.has("value_floats")) {
        auto v = attrs.getFloats("value_floats");
        return std::make_shared<ConstTensor>(ConstTensor::ofFloats({static_cast<std::int64_t>(v.size())}, v));
    }
    if (attrs.has("value_int"))
        return std::make_shared<ConstTensor>(ConstTensor::ofInts({}, {attrs.getInt("value_int", 0)}));
    if (attrs.has("value_ints")) {
        auto v = attrs.getInts("value_ints");
        return std::make_shared<ConstTensor>(ConstTensor::ofInts({static_cast<std::int64_t>(v.size())}, v));
    }
    throw NodeError("only tensor, float and int constants are supported (not sparse or string ones)");
}

} // namespace

bool isFoldableOpType(const std::string& opType) { return foldableTypes().count(opType) > 0; }
bool isFoldOnlyOpType(const std::string& opType) { return foldOnlyTypes().count(opType) > 0; }

std::int64_t normalizeAxis(std::int64_t axis, std::int64_t rank)
{
    if (axis < -rank || axis >= rank)
        throw NodeError("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank));
    return axis < 0 ? axis + rank : axis;
}

std::vector<std::int64_t> squeezeDims(const std::vector<std::int64_t>& dims, std::vector<std::int64_t> axes)
{
    const auto rank = static_cast<std::int64_t>(dims.size());
    std::vector<bool> drop(dims.size(), false);
    for (auto& a : axes) {
        a = normalizeAxis(a, rank);
        if (dims[static_cast<std::size_t>(a)] != 1)
            throw NodeError("cannot squeeze axis " + std::to_string(a) + " of size " +
                            std::to_string(dims[static_cast<std::size_t>(a)]));
        drop[static_cast<std::size_t>(a)] = true;
    }
    std::vector<std::int64_t> out;
    for (std::size_t i = 0; i < dims.size(); ++i)
        if (!(axes.empty() ? dims[i] == 1 : drop[i]))
            out.push_back(dims[i]);
    return out;
}

std::vector<std::int64_t> unsqueezeDims(const std::vector<std::int64_t>& dims, std::vector<std::int64_t> axes)
{
    const auto rank = static_cast<std::int64_t>(dims.size() + axes.size());
    std::vector<bool> inserted(static_cast<std::size_t>(rank), false);
    for (auto& a : axes) {
        a = normalizeAxis(a, rank);
        if (inserted[static_cast<std::size_t>(a)])
            throw NodeError("unsqueeze axis " + std::to_string(a) + " appears twice");
        inserted[static_cast<std::size_t>(a)] = true;
    }
    std::vector<std::int64_t> out;
    std::size_t next = 0;
    for (std::size_t i = 0; i < inserted.size(); ++i)
        out.push_back(inserted[i] ? 1 : dims[next++]);
    return out;
}

std::vector<std::int64_t> reshapeDims(const std::vector<std::int64_t>& dims, const std::vector<std::int64_t>& target,
                                      bool allowZero)
{
    std::int64_t total = 1;
    for (auto d : dims)
        total *= d;
    std::vector<std::int64_t> out = target;
    std::int64_t known = 1;
    int inferred = -1;
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (out[i] == 0 && !allowZero) {
            if (i >= dims.size())
                throw NodeError("reshape copies dimension " + std::to_string(i) + ", which the input does not have");
            out[i] = dims[i];
        }
        if (out[i] == -1) {
            if (inferred >= 0)
                throw NodeError("reshape target has more than one -1");
            inferred = static_cast<int>(i);
        } else if (out[i] < 0) {
            throw NodeError("reshape target has dimension " + std::to_string(out[i]));
        } else {
            known *= out[i];
        }
    }
    if (inferred >= 0) {
        if (known == 0 || total % known != 0)
            throw NodeError("cannot reshape " + dimsToString(dims) + " to " + dimsToString(target));
        out[static_cast<std::size_t>(inferred)] = total / known;
    } else if (known != total) {
        throw NodeError("cannot reshape " + dimsToString(dims) + " to " + dimsToString(target));
    }
    return out;
}

ConstTensor shapeConstant(const onnx::NodeProto& node, const std::vector<std::int64_t>& dims)
{
    const Attributes attrs(node);
    const auto rank = static_cast<std::int64_t>(dims.size());
    std::int64_t start = attrs.getInt("start", 0), end = attrs.getInt("end", rank);
    start = std::clamp<std::int64_t>(start < 0 ? start + rank : start, 0, rank);
    end = std::clamp<std::int64_t>(end < 0 ? end + rank : end, 0, rank);
    std::vector<std::int64_t> values;
    for (auto i = start; i < end; ++i)
        values.push_back(dims[static_cast<std::size_t>(i)]);
    return ConstTensor::ofInts({static_cast<std::int64_t>(values.size())}, values);
}

std::vector<ConstPtr> foldNode(const onnx::NodeProto& node, const std::vector<ConstPtr>& inputs, int opset)
{
    const std::string& op = node.op_type();
    const Attributes attrs(node);
    if (op == "Constant")
        return {constantNode(node)};
    if (op == "Identity")
        return {withDims(input(inputs, 0, "data"), input(inputs, 0, "data").dims)};
    if (op == "Dropout") {
        const auto& x = input(inputs, 0, "data");
        std::vector<ConstPtr> out{withDims(x, x.dims)};
        out.push_back(std::make_shared<ConstTensor>(ConstTensor::ofInts(x.dims, std::vector<std::int64_t>(x.size(), 1))));
        return out;
    }
    if (op == "Shape")
        return {std::make_shared<ConstTensor>(shapeConstant(node, input(inputs, 0, "data").dims))};
    if (op == "Size")
        return {std::make_shared<ConstTensor>(
            ConstTensor::ofInts({}, {static_cast<std::int64_t>(input(inputs, 0, "data").size())}))};
    if (op == "Gather")
        return {gather(input(inputs, 0, "data"), input(inputs, 1, "indices"), attrs.getInt("axis", 0))};
    if (op == "Cast")
        return {cast(input(inputs, 0, "data"), attrs.getInt("to", onnx::TensorProto::FLOAT))};
    if (op == "ConstantOfShape") {
        const auto dims = input(inputs, 0, "shape").toInts();
        const auto n = elementsOf(dims);
        if (const auto* v = attrs.getTensor("value")) {
            const auto value = decodeTensor(*v, "the value of ConstantOfShape");
            if (value.size() != 1)
                throw NodeError("ConstantOfShape value must have one element");
            if (value.integer)
                return {std::make_shared<ConstTensor>(ConstTensor::ofInts(dims, std::vector<std::int64_t>(n, value.ints[0])))};
            return {std::make_shared<ConstTensor>(ConstTensor::ofFloats(dims, std::vector<float>(n, value.floats[0])))};
        }
        return {std::make_shared<ConstTensor>(ConstTensor::ofFloats(dims, std::vector<float>(n, 0.0F)))};
    }
    if (op == "Unsqueeze" || op == "Squeeze") {
        const auto& x = input(inputs, 0, "data");
        const auto axes = axesOf(node, inputs, 1, opset >= 13);
        return {withDims(x, op == "Squeeze" ? squeezeDims(x.dims, axes) : unsqueezeDims(x.dims, axes))};
    }
    if (op == "Concat")
        return {concat(inputs, attrs.getInt("axis", 1))};
    if (op == "Reshape") {
        const auto& x = input(inputs, 0, "data");
        return {withDims(x, reshapeDims(x.dims, input(inputs, 1, "shape").toInts(), attrs.getInt("allowzero", 0) != 0))};
    }
    if (op == "Flatten") {
        const auto& x = input(inputs, 0, "data");
        const auto axis = attrs.getInt("axis", 1);
        const auto a = axis < 0 ? axis + x.rank() : axis;
        if (a < 0 || a > x.rank())
            throw NodeError("flatten axis " + std::to_string(axis) + " is out of range");
        std::int64_t outer = 1, inner = 1;
        for (int i = 0; i < x.rank(); ++i)
            (i < a ? outer : inner) *= x.dims[static_cast<std::size_t>(i)];
        return {withDims(x, {outer, inner})};
    }
    if (op == "Slice") {
        const auto& x = input(inputs, 0, "data");
        if (opset < 10)
            return {slice(x, attrs.getInts("starts"), attrs.getInts("ends"), attrs.getInts("axes"), {})};
        auto optional = [&](std::size_t i) { return i < inputs.size() && inputs[i] ? inputs[i]->toInts() : std::vector<std::int64_t>{}; };
        return {slice(x, input(inputs, 1, "starts").toInts(), input(inputs, 2, "ends").toInts(), optional(3), optional(4))};
    }
    if (op == "Transpose")
        return {transpose(input(inputs, 0, "data"), attrs.getInts("perm"))};
    if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div")
        return {arithmetic(op, input(inputs, 0, "first"), input(inputs, 1, "second"))};
    throw NodeError("cannot be evaluated on constants");
}

} // namespace opsched::onnx_import
