// Shared pieces of the constant folder (onnx_constant_folding.cpp and the onnx_folding_*.cpp
// files): element iteration, numpy broadcasting, input access, and the table each op family
// adds its folders to. Internal to the importer.
#pragma once

#include "import/onnx_tensor.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

namespace opsched::onnx_import::folding {

using Dims = std::vector<std::int64_t>;
using Folder = std::function<std::vector<ConstPtr>(const onnx::NodeProto&, const std::vector<ConstPtr>&, int opset)>;
using FolderTable = std::unordered_map<std::string, Folder>;

// Each family registers the op types it evaluates; isFoldableOpType is "is in the table".
void addStructuralFolders(FolderTable& table); // onnx_constant_folding.cpp
void addElementwiseFolders(FolderTable& table); // onnx_folding_math.cpp
void addIndexingFolders(FolderTable& table); // onnx_folding_index.cpp
void addReductionFolders(FolderTable& table); // onnx_folding_reduce.cpp
void addQuantizeFolders(FolderTable& table); // onnx_quantize_ops.cpp

Dims stridesOf(const Dims& dims);
// Element count of `dims`; throws for negative dimensions and beyond kMaxConstantElements.
std::size_t elementsOf(const Dims& dims);

// Calls f(k, coordinates) for each element of `dims`, k in row-major order.
template <typename F> void forEachIndex(const Dims& dims, F f)
{
    const std::size_t total = elementsOf(dims);
    Dims coord(dims.size(), 0);
    for (std::size_t k = 0; k < total; ++k) {
        f(k, coord);
        for (std::size_t d = dims.size(); d-- > 0;) {
            if (++coord[d] < dims[d])
                break;
            coord[d] = 0;
        }
    }
}

// Product of a range of dimensions (1 for none).
inline std::int64_t product(Dims::const_iterator begin, Dims::const_iterator end)
{
    std::int64_t n = 1;
    for (auto it = begin; it != end; ++it)
        n *= *it;
    return n;
}

inline std::size_t offsetOf(const Dims& coord, const Dims& strides)
{
    std::int64_t flat = 0;
    for (std::size_t d = 0; d < coord.size(); ++d)
        flat += coord[d] * strides[d];
    return static_cast<std::size_t>(flat);
}

// Numpy (multidirectional) broadcast of two shapes; NodeError when they are incompatible.
Dims broadcastDims(const Dims& a, const Dims& b);
// Strides reading a tensor of `dims` as if broadcast to `out`: 0 along broadcast dimensions.
Dims broadcastStrides(const Dims& dims, const Dims& out);

// Input i, or NodeError("needs its <what> input") when it is missing.
const ConstTensor& input(const std::vector<ConstPtr>& inputs, std::size_t i, const char* what);
// Input i, or nullptr when the node leaves it out.
const ConstTensor* optionalInput(const std::vector<ConstPtr>& inputs, std::size_t i);
// The single value of a scalar (or one-element) input; NodeError otherwise.
std::int64_t scalarInt(const ConstTensor& t, const char* what);
double scalarReal(const ConstTensor& t, const char* what);

// Float to integer as a Cast does (truncation), saturating instead of undefined for NaN and
// out-of-range values.
std::int64_t truncToInt(double v);
// Index along a dimension of size `dim`, negative ones counted from the end; NodeError naming
// `what` outside [-dim, dim).
std::int64_t indexInDim(std::int64_t index, std::int64_t dim, const char* what);

// A tensor of `dims` with src's element type, zero-filled.
std::shared_ptr<ConstTensor> emptyLike(const ConstTensor& src, Dims dims);
// dst[to] = src[from], converting between integer and float storage.
void copyElement(ConstTensor& dst, std::size_t to, const ConstTensor& src, std::size_t from);
// A tensor of `dims` whose element k is src's element index[k].
ConstPtr pick(const ConstTensor& src, Dims dims, const std::vector<std::size_t>& index);
ConstPtr withDims(const ConstTensor& src, Dims dims);
inline std::vector<ConstPtr> one(ConstPtr t)
{
    return { std::move(t) };
}

} // namespace opsched::onnx_import::folding
