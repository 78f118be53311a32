#include "import/onnx_constant_folding.h"

#include "import/import_error.h"
#include "import/onnx_attributes.h"
#include "import/onnx_folding_support.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

namespace opsched::onnx_import {
namespace {

using namespace folding;

// Foldable ops that opsched has no IR op for: on an activation the importer says they are only
// supported in shape computations. The element-wise ops that can also run on activations are
// left out, so that their mapping (or its absence) speaks for itself.
const std::unordered_set<std::string>& foldOnlyTypes()
{
    static const std::unordered_set<std::string> types { "Constant", "Shape", "Size", "ConstantOfShape", "Range",
        "NonZero" };
    return types;
}

const FolderTable& folders()
{
    static const FolderTable table = [] {
        FolderTable t;
        addStructuralFolders(t);
        addElementwiseFolders(t);
        addIndexingFolders(t);
        addReductionFolders(t);
        addQuantizeFolders(t);
        return t;
    }();
    return table;
}

// Axes from the attribute (older opsets) or the optional input `inputIndex`.
Dims axesOf(const onnx::NodeProto& node, const std::vector<ConstPtr>& inputs, std::size_t inputIndex, bool fromInput)
{
    if (!fromInput)
        return Attributes(node).getInts("axes");
    const auto* axes = optionalInput(inputs, inputIndex);
    return axes ? axes->toInts() : Dims {};
}

ConstPtr gather(const ConstTensor& data, const ConstTensor& indices, std::int64_t axisAttr)
{
    if (data.rank() == 0)
        throw NodeError("cannot gather from a scalar");
    const auto axis = static_cast<std::size_t>(normalizeAxis(axisAttr, data.rank()));
    const auto idx = indices.toInts();
    // Output: data's dimensions with the axis replaced by the indices' dimensions.
    Dims dims(data.dims.begin(), data.dims.begin() + static_cast<std::ptrdiff_t>(axis));
    dims.insert(dims.end(), indices.dims.begin(), indices.dims.end());
    dims.insert(dims.end(), data.dims.begin() + static_cast<std::ptrdiff_t>(axis) + 1, data.dims.end());
    const auto strides = stridesOf(data.dims);
    const std::size_t idxRank = indices.dims.size();
    std::vector<std::size_t> index;
    index.reserve(elementsOf(dims));
    forEachIndex(dims, [&](std::size_t, const Dims& c) {
        std::size_t ic = 0;
        for (std::size_t d = 0; d < idxRank; ++d)
            ic = ic * static_cast<std::size_t>(indices.dims[d]) + static_cast<std::size_t>(c[axis + d]);
        const std::int64_t i = indexInDim(idx[ic], data.dims[axis], "gather");
        std::int64_t flat = i * strides[axis];
        for (std::size_t d = 0; d < axis; ++d)
            flat += c[d] * strides[d];
        for (std::size_t d = axis + 1; d < data.dims.size(); ++d)
            flat += c[d + idxRank - 1] * strides[d];
        index.push_back(static_cast<std::size_t>(flat));
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
    Dims dims = first.dims;
    dims[axis] = 0;
    for (const auto& in : inputs) {
        if (!in || in->rank() != first.rank())
            throw NodeError("concat inputs differ in rank");
        for (std::size_t d = 0; d < dims.size(); ++d)
            if (d != axis && in->dims[d] != first.dims[d])
                throw NodeError("concat inputs differ outside the axis: " + dimsToString(first.dims) + " vs "
                    + dimsToString(in->dims));
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
            const auto block = in->size() / static_cast<std::size_t>(outer);
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

ConstPtr slice(const ConstTensor& data, const Dims& starts, const Dims& ends, Dims axes, Dims steps)
{
    if (axes.empty())
        for (std::size_t i = 0; i < starts.size(); ++i)
            axes.push_back(static_cast<std::int64_t>(i));
    if (steps.empty())
        steps.assign(starts.size(), 1);
    if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
        throw NodeError("slice needs as many starts, ends, axes and steps");
    Dims begin(data.dims.size(), 0), step(data.dims.size(), 1), dims = data.dims;
    for (std::size_t i = 0; i < axes.size(); ++i) {
        const auto a = static_cast<std::size_t>(normalizeAxis(axes[i], data.rank()));
        const std::int64_t d = data.dims[a], s = steps[i];
        if (s == 0 || s > kMaxConstantElements || s < -kMaxConstantElements)
            throw NodeError("slice step " + std::to_string(s) + " is out of range");
        // Negative starts and ends count from the end (adding d cannot overflow: d >= 0).
        std::int64_t b = starts[i] < 0 ? starts[i] + d : starts[i];
        std::int64_t e = ends[i] < 0 ? ends[i] + d : ends[i];
        if (s > 0) {
            b = std::clamp<std::int64_t>(b, 0, d);
            e = std::clamp<std::int64_t>(e, 0, d);
            dims[a] = e > b ? (e - b - 1) / s + 1 : 0;
        } else if (d == 0) {
            b = 0;
            dims[a] = 0;
        } else { // backwards: start in [0, d-1], end in [-1, d-1] (-1 reaches element 0)
            b = std::clamp<std::int64_t>(b, 0, d - 1);
            e = std::clamp<std::int64_t>(e, -1, d - 1);
            dims[a] = b > e ? (b - e - 1) / -s + 1 : 0;
        }
        begin[a] = b;
        step[a] = s;
    }
    const auto strides = stridesOf(data.dims);
    std::vector<std::size_t> index;
    forEachIndex(dims, [&](std::size_t, const Dims& c) {
        std::int64_t flat = 0;
        for (std::size_t d = 0; d < c.size(); ++d)
            flat += (begin[d] + c[d] * step[d]) * strides[d];
        index.push_back(static_cast<std::size_t>(flat));
    });
    return pick(data, dims, index);
}

// Split sizes: the `split` attribute (before opset 13) or input, else num_outputs chunks (opset
// 18, the last one smaller), else equal parts, one per output.
std::vector<ConstPtr> split(const onnx::NodeProto& node, const std::vector<ConstPtr>& inputs, int opset)
{
    const Attributes attrs(node);
    const auto& x = input(inputs, 0, "data");
    if (x.rank() == 0)
        throw NodeError("cannot split a scalar");
    const auto axis = normalizeAxis(attrs.getInt("axis", 0), x.rank());
    const std::int64_t dim = x.dims[static_cast<std::size_t>(axis)];
    const auto parts = static_cast<std::int64_t>(node.output_size());
    Dims sizes;
    if (opset < 13)
        sizes = attrs.getInts("split");
    else if (const auto* s = optionalInput(inputs, 1))
        sizes = s->toInts();
    if (sizes.empty() && opset >= 18 && attrs.has("num_outputs")) {
        const auto n = attrs.getInt("num_outputs", parts);
        if (n <= 0 || n != parts)
            throw NodeError(
                "num_outputs " + std::to_string(n) + " does not match the " + std::to_string(parts) + " outputs");
        const std::int64_t chunk = (dim + n - 1) / n;
        sizes.assign(static_cast<std::size_t>(n), chunk);
        sizes.back() = dim - chunk * (n - 1);
    } else if (sizes.empty()) {
        if (parts <= 0 || dim % parts != 0)
            throw NodeError(
                "cannot split dimension " + std::to_string(dim) + " into " + std::to_string(parts) + " equal parts");
        sizes.assign(static_cast<std::size_t>(parts), dim / parts);
    }
    if (static_cast<std::int64_t>(sizes.size()) != parts)
        throw NodeError(
            "split has " + std::to_string(sizes.size()) + " sizes for " + std::to_string(parts) + " outputs");
    std::int64_t total = 0;
    for (auto s : sizes) {
        if (s < 0 || s > dim)
            throw NodeError("split size " + std::to_string(s) + " is out of range");
        total += s;
    }
    if (total != dim)
        throw NodeError(
            "split sizes add up to " + std::to_string(total) + ", not the dimension " + std::to_string(dim));
    std::vector<ConstPtr> out;
    std::int64_t start = 0;
    for (auto s : sizes) {
        out.push_back(slice(x, { start }, { start + s }, { axis }, { 1 }));
        start += s;
    }
    return out;
}

ConstPtr transpose(const ConstTensor& data, Dims perm)
{
    const auto rank = data.dims.size();
    if (perm.empty())
        for (std::size_t i = rank; i-- > 0;)
            perm.push_back(static_cast<std::int64_t>(i));
    if (perm.size() != rank)
        throw NodeError("transpose permutation does not match the rank");
    std::vector<bool> seen(rank, false);
    Dims dims(rank), strides(rank);
    const auto own = stridesOf(data.dims);
    for (std::size_t i = 0; i < rank; ++i) {
        if (perm[i] < 0 || perm[i] >= static_cast<std::int64_t>(rank) || seen[static_cast<std::size_t>(perm[i])])
            throw NodeError("transpose perm is not a permutation");
        seen[static_cast<std::size_t>(perm[i])] = true;
        dims[i] = data.dims[static_cast<std::size_t>(perm[i])];
        strides[i] = own[static_cast<std::size_t>(perm[i])];
    }
    std::vector<std::size_t> index;
    forEachIndex(dims, [&](std::size_t, const Dims& c) { index.push_back(offsetOf(c, strides)); });
    return pick(data, dims, index);
}

// Integers narrower than 64 bits wrap as the target type would store them.
std::int64_t wrapTo(std::int64_t v, std::int64_t to)
{
    using T = onnx::TensorProto;
    switch (to) {
    case T::INT8:
        return static_cast<std::int8_t>(v);
    case T::UINT8:
        return static_cast<std::uint8_t>(v);
    case T::INT16:
        return static_cast<std::int16_t>(v);
    case T::UINT16:
        return static_cast<std::uint16_t>(v);
    case T::INT32:
        return static_cast<std::int32_t>(v);
    case T::UINT32:
        return static_cast<std::uint32_t>(v);
    default:
        return v;
    }
}

// A float rounded (to nearest, ties to even) to `bits` significant bits with the smallest normal
// exponent `minExponent` (frexp's convention), overflowing to infinity beyond `largest`: float16 and
// bfloat16 values held in a float.
float roundToNarrowFloat(float v, int bits, int minExponent, double largest)
{
    if (!std::isfinite(v) || v == 0.0F)
        return v;
    int e = 0;
    std::frexp(v, &e);
    const double quantum = std::ldexp(1.0, std::max(e, minExponent) - bits); // subnormals share the lowest one
    const double r = std::nearbyint(static_cast<double>(v) / quantum) * quantum;
    if (std::abs(r) > largest)
        return std::copysign(std::numeric_limits<float>::infinity(), v);
    return static_cast<float>(r);
}

ConstPtr cast(const ConstTensor& data, std::int64_t to)
{
    using T = onnx::TensorProto;
    auto out = std::make_shared<ConstTensor>();
    out->dims = data.dims;
    if (to == T::FLOAT || to == T::DOUBLE) {
        out->floats = data.toFloats();
    } else if (to == T::FLOAT16 || to == T::BFLOAT16) {
        out->floats = data.toFloats();
        for (auto& v : out->floats)
            v = to == T::FLOAT16 ? roundToNarrowFloat(v, 11, -13, 65504.0)
                                 : roundToNarrowFloat(v, 8, -125, std::numeric_limits<float>::max());
    } else if (to == T::BOOL) {
        out->integer = true;
        for (std::size_t i = 0; i < data.size(); ++i)
            out->ints.push_back(data.at(i) != 0.0 ? 1 : 0); // NaN is true
    } else if (to == T::STRING || to == T::UNDEFINED || to == T::COMPLEX64 || to == T::COMPLEX128
        || !T::DataType_IsValid(static_cast<int>(to))) {
        throw NodeError(std::string("cannot cast constants to ") + dataTypeName(static_cast<int>(to)));
    } else {
        out->integer = true;
        out->ints = data.toInts();
        for (auto& v : out->ints)
            v = wrapTo(v, to);
    }
    return out;
}

ConstPtr constantNode(const onnx::NodeProto& node)
{
    const Attributes attrs(node);
    if (const auto* t = attrs.getTensor("value"))
        return std::make_shared<ConstTensor>(decodeTensor(*t, "the value of Constant '" + node.output(0) + "'"));
    if (attrs.has("value_float"))
        return std::make_shared<ConstTensor>(ConstTensor::ofFloats({}, { attrs.getFloat("value_float", 0) }));
    if (attrs.has("value_floats")) {
        auto v = attrs.getFloats("value_floats");
        return std::make_shared<ConstTensor>(ConstTensor::ofFloats({ static_cast<std::int64_t>(v.size()) }, v));
    }
    if (attrs.has("value_int"))
        return std::make_shared<ConstTensor>(ConstTensor::ofInts({}, { attrs.getInt("value_int", 0) }));
    if (attrs.has("value_ints")) {
        auto v = attrs.getInts("value_ints");
        return std::make_shared<ConstTensor>(ConstTensor::ofInts({ static_cast<std::int64_t>(v.size()) }, v));
    }
    throw NodeError("only tensor, float and int constants are supported (not sparse or string ones)");
}

ConstPtr constantOfShape(const onnx::NodeProto& node, const ConstTensor& shape)
{
    if (shape.rank() != 1)
        throw NodeError("ConstantOfShape needs a 1-D shape, not " + dimsToString(shape.dims));
    const auto dims = shape.toInts();
    const auto n = elementsOf(dims);
    const auto* v = Attributes(node).getTensor("value");
    if (!v) // float 0 by default
        return std::make_shared<ConstTensor>(ConstTensor::ofFloats(dims, std::vector<float>(n, 0.0F)));
    const auto value = decodeTensor(*v, "the value of ConstantOfShape");
    if (value.size() != 1)
        throw NodeError("ConstantOfShape value must have one element");
    if (value.integer)
        return std::make_shared<ConstTensor>(ConstTensor::ofInts(dims, std::vector<std::int64_t>(n, value.ints[0])));
    return std::make_shared<ConstTensor>(ConstTensor::ofFloats(dims, std::vector<float>(n, value.floats[0])));
}

ConstPtr flatten(const ConstTensor& x, std::int64_t axis)
{
    const auto a = axis < 0 ? axis + x.rank() : axis;
    if (a < 0 || a > x.rank())
        throw NodeError("flatten axis " + std::to_string(axis) + " is out of range");
    std::int64_t outer = 1, inner = 1;
    for (int i = 0; i < x.rank(); ++i)
        (i < a ? outer : inner) *= x.dims[static_cast<std::size_t>(i)];
    return withDims(x, { outer, inner });
}

} // namespace

namespace folding {

// Constants, shape bookkeeping and data movement that keeps values as they are.
void addStructuralFolders(FolderTable& t)
{
    t["Constant"] = [](const auto& node, const auto&, int) { return one(constantNode(node)); };
    t["Identity"] = [](const auto&, const auto& in, int) {
        return one(withDims(input(in, 0, "data"), input(in, 0, "data").dims));
    };
    t["Dropout"] = [](const auto&, const auto& in, int opset) { // inference: the data, and a mask of ones
        const auto& x = input(in, 0, "data");
        // From opset 12 a training_mode input can ask for random dropping (a ratio of 0 drops nothing).
        const auto* ratio = optionalInput(in, 1);
        const auto* training = optionalInput(in, 2);
        if (opset >= 12 && training && scalarInt(*training, "Dropout training_mode") != 0
            && (ratio ? scalarReal(*ratio, "Dropout ratio") : 0.5) != 0.0)
            throw NodeError("training-mode dropout is random, so it cannot be folded");
        return std::vector<ConstPtr> { withDims(x, x.dims),
            std::make_shared<ConstTensor>(ConstTensor::ofInts(x.dims, std::vector<std::int64_t>(x.size(), 1))) };
    };
    t["Shape"] = [](const auto& node, const auto& in, int) {
        return one(std::make_shared<ConstTensor>(shapeConstant(node, input(in, 0, "data").dims)));
    };
    t["Size"] = [](const auto&, const auto& in, int) {
        return one(std::make_shared<ConstTensor>(
            ConstTensor::ofInts({}, { static_cast<std::int64_t>(input(in, 0, "data").size()) })));
    };
    t["Gather"] = [](const auto& node, const auto& in, int) {
        return one(gather(input(in, 0, "data"), input(in, 1, "indices"), Attributes(node).getInt("axis", 0)));
    };
    t["Cast"] = [](const auto& node, const auto& in, int) {
        return one(cast(input(in, 0, "data"), Attributes(node).getInt("to", onnx::TensorProto::FLOAT)));
    };
    t["ConstantOfShape"]
        = [](const auto& node, const auto& in, int) { return one(constantOfShape(node, input(in, 0, "shape"))); };
    t["Unsqueeze"] = [](const auto& node, const auto& in, int opset) {
        const auto& x = input(in, 0, "data");
        return one(withDims(x, unsqueezeDims(x.dims, axesOf(node, in, 1, opset >= 13))));
    };
    t["Squeeze"] = [](const auto& node, const auto& in, int opset) {
        const auto& x = input(in, 0, "data");
        return one(withDims(x, squeezeDims(x.dims, axesOf(node, in, 1, opset >= 13))));
    };
    t["Concat"]
        = [](const auto& node, const auto& in, int) { return one(concat(in, Attributes(node).getInt("axis", 1))); };
    t["Reshape"] = [](const auto& node, const auto& in, int) {
        const auto& x = input(in, 0, "data");
        const bool allowZero = Attributes(node).getInt("allowzero", 0) != 0;
        return one(withDims(x, reshapeDims(x.dims, input(in, 1, "shape").toInts(), allowZero)));
    };
    t["Flatten"] = [](const auto& node, const auto& in, int) {
        return one(flatten(input(in, 0, "data"), Attributes(node).getInt("axis", 1)));
    };
    t["Slice"] = [](const auto& node, const auto& in, int opset) {
        const auto& x = input(in, 0, "data");
        const Attributes attrs(node);
        if (opset < 10) // attributes before opset 10
            return one(slice(x, attrs.getInts("starts"), attrs.getInts("ends"), attrs.getInts("axes"), {}));
        auto optional = [&](std::size_t i) {
            const auto* v = optionalInput(in, i);
            return v ? v->toInts() : Dims {};
        };
        return one(slice(x, input(in, 1, "starts").toInts(), input(in, 2, "ends").toInts(), optional(3), optional(4)));
    };
    t["Split"] = [](const auto& node, const auto& in, int opset) { return split(node, in, opset); };
    t["Transpose"] = [](const auto& node, const auto& in, int) {
        return one(transpose(input(in, 0, "data"), Attributes(node).getInts("perm")));
    };
}

} // namespace folding

bool isFoldableOpType(const std::string& opType)
{
    return folders().count(opType) > 0;
}
bool isFoldOnlyOpType(const std::string& opType)
{
    return foldOnlyTypes().count(opType) > 0;
}

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
            throw NodeError("cannot squeeze axis " + std::to_string(a) + " of size "
                + std::to_string(dims[static_cast<std::size_t>(a)]));
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

std::vector<std::int64_t> reshapeDims(
    const std::vector<std::int64_t>& dims, const std::vector<std::int64_t>& target, bool allowZero)
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
    return ConstTensor::ofInts({ static_cast<std::int64_t>(values.size()) }, values);
}

std::vector<ConstPtr> foldNode(const onnx::NodeProto& node, const std::vector<ConstPtr>& inputs, int opset)
{
    const auto it = folders().find(node.op_type());
    if (it == folders().end())
        throw NodeError("cannot be evaluated on constants");
    return it->second(node, inputs, opset);
}

} // namespace opsched::onnx_import
