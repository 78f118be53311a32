// What each output element of a Resize reads: per axis, the input indices and weights of its
// taps (1 for nearest, 2 for linear, 4 for cubic), following the ONNX specification's coordinate
// transforms, rounding modes and cubic coefficients. The CPU kernel and the CUDA kernel walk the
// same tables, so both backends resample identically. Plain C++, no oneDNN.
#pragma once

#include "graph/layer.h"

#include <cstdint>
#include <vector>

namespace opsched::cpu {

struct AxisTaps {
    std::int64_t taps = 1; // per output element
    std::vector<std::int64_t> index; // outLen * taps input indices, each in [0, inLen)
    std::vector<float> weight; // outLen * taps, summing to 1 per output element
    bool identity = false; // output x reads input x alone
};

// Where output coordinate x of an axis lands in the input (ONNX's coordinate transforms).
// `scale` is the axis' scale factor; sizes-given resizes pass out / in.
double resizeSourceCoordinate(ResizeCoordinates mode, double x, double scale, std::int64_t inLen, std::int64_t outLen);

// The taps of one axis resized from inLen to outLen.
AxisTaps resizeAxisTaps(const Resize& r, std::size_t axis, std::int64_t inLen, std::int64_t outLen);

// The taps of every axis (an axis of equal size and scale 1 is an identity).
std::vector<AxisTaps> resizeTaps(
    const Resize& r, const std::vector<std::int64_t>& inDims, const std::vector<std::int64_t>& outDims);

} // namespace opsched::cpu
