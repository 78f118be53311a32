// Constant tensors of an ONNX model while it is imported: initializers, Constant nodes and the
// results of folded shape computations. Unlike IR shapes, their dimensions may be 0.
#pragma once

#include "graph/shape.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace opsched::onnx_import {

// Folding refuses to produce constants larger than this (a guard against ConstantOfShape or
// Expand with absurd shapes); stored initializers are bounded by the file size instead.
inline constexpr std::int64_t kMaxConstantElements = std::int64_t { 1 } << 28;

struct ConstTensor {
    std::vector<std::int64_t> dims;
    bool integer = false; // values in `ints` (any integer or bool type), else in `floats`
    int type = 0; // the ONNX element type it was stored as (0: computed at import)
    std::vector<float> floats;
    std::vector<std::int64_t> ints;

    std::size_t size() const { return integer ? ints.size() : floats.size(); }
    int rank() const { return static_cast<int>(dims.size()); }
    double at(std::size_t i) const { return integer ? static_cast<double>(ints[i]) : static_cast<double>(floats[i]); }
    std::vector<std::int64_t> toInts() const;
    std::vector<float> toFloats() const;

    static ConstTensor ofInts(std::vector<std::int64_t> dims, std::vector<std::int64_t> values);
    static ConstTensor ofFloats(std::vector<std::int64_t> dims, std::vector<float> values);
};

using ConstPtr = std::shared_ptr<const ConstTensor>;

// Element count of `dims`; throws ImportError naming `what` for negative or absurd dimensions.
std::int64_t checkedElements(const std::vector<std::int64_t>& dims, std::int64_t limit, const std::string& what);

// Decodes a TensorProto (raw_data or typed fields, float/double/float16/bfloat16 and the integer
// types). Throws ImportError naming `what` for missing, inconsistent or external data.
ConstTensor decodeTensor(const onnx::TensorProto& proto, const std::string& what);

const char* dataTypeName(int onnxType);

// Bytes per element of the types raw_data can hold (float, double, float16, bfloat16, the integers
// and bool); 0 for the others.
std::size_t elementBytes(int onnxType);

// "2x3x4" for messages ("scalar" for rank 0).
std::string dimsToString(const std::vector<std::int64_t>& dims);

} // namespace opsched::onnx_import
