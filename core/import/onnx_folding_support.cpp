#include "import/onnx_folding_support.h"

#include "import/import_error.h"

#include <algorithm>
#include <cmath>

namespace opsched::onnx_import::folding {

Dims stridesOf(const Dims& dims)
{
    Dims s(dims.size(), 1);
    for (std::size_t i = dims.size(); i-- > 1;)
        s[i - 1] = s[i] * dims[i];
    return s;
}

std::size_t elementsOf(const Dims& dims)
{
    return static_cast<std::size_t>(
        checkedElements(dims, kMaxConstantElements, "a folded constant " + dimsToString(dims)));
}

Dims broadcastDims(const Dims& a, const Dims& b)
{
    const auto rank = std::max(a.size(), b.size());
    Dims out(rank);
    for (std::size_t i = 0; i < rank; ++i) {
        // Align from the last dimension; missing leading dimensions act as 1.
        const std::int64_t da = i + a.size() >= rank ? a[i + a.size() - rank] : 1;
        const std::int64_t db = i + b.size() >= rank ? b[i + b.size() - rank] : 1;
        if (da != db && da != 1 && db != 1)
            throw NodeError("cannot broadcast " + dimsToString(a) + " with " + dimsToString(b));
        out[i] = da == 1 ? db : da;
    }
    return out;
}

Dims broadcastStrides(const Dims& dims, const Dims& out)
{
    const auto own = stridesOf(dims);
    Dims s(out.size(), 0);
    for (std::size_t i = 0; i < dims.size(); ++i) {
        const std::size_t o = i + out.size() - dims.size();
        s[o] = dims[i] == out[o] ? own[i] : 0;
    }
    return s;
}

const ConstTensor& input(const std::vector<ConstPtr>& inputs, std::size_t i, const char* what)
{
    if (i >= inputs.size() || !inputs[i])
        throw NodeError(std::string("needs its ") + what + " input");
    return *inputs[i];
}

const ConstTensor* optionalInput(const std::vector<ConstPtr>& inputs, std::size_t i)
{
    return i < inputs.size() ? inputs[i].get() : nullptr;
}

std::int64_t scalarInt(const ConstTensor& t, const char* what)
{
    if (t.size() != 1)
        throw NodeError(std::string(what) + " must be a scalar, not " + dimsToString(t.dims));
    return t.integer ? t.ints[0] : truncToInt(t.floats[0]);
}

double scalarReal(const ConstTensor& t, const char* what)
{
    if (t.size() != 1)
        throw NodeError(std::string(what) + " must be a scalar, not " + dimsToString(t.dims));
    return t.at(0);
}

std::int64_t truncToInt(double v)
{
    constexpr double limit = 9.2e18;
    return std::isnan(v) ? 0 : static_cast<std::int64_t>(std::clamp(v, -limit, limit));
}

std::int64_t indexInDim(std::int64_t index, std::int64_t dim, const char* what)
{
    if (index < -dim || index >= dim)
        throw NodeError(std::string(what) + " index " + std::to_string(index) + " is out of range for dimension "
            + std::to_string(dim));
    return index < 0 ? index + dim : index;
}

std::shared_ptr<ConstTensor> emptyLike(const ConstTensor& src, Dims dims)
{
    auto out = std::make_shared<ConstTensor>();
    const auto n = elementsOf(dims);
    out->dims = std::move(dims);
    out->integer = src.integer;
    if (src.integer)
        out->ints.assign(n, 0);
    else
        out->floats.assign(n, 0.0F);
    return out;
}

void copyElement(ConstTensor& dst, std::size_t to, const ConstTensor& src, std::size_t from)
{
    if (!dst.integer)
        dst.floats[to] = src.integer ? static_cast<float>(src.ints[from]) : src.floats[from];
    else
        dst.ints[to] = src.integer ? src.ints[from] : truncToInt(src.floats[from]);
}

ConstPtr pick(const ConstTensor& src, Dims dims, const std::vector<std::size_t>& index)
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

ConstPtr withDims(const ConstTensor& src, Dims dims)
{
    auto out = std::make_shared<ConstTensor>(src);
    out->dims = std::move(dims);
    return out;
}

} // namespace opsched::onnx_import::folding
