// Compares a run's outputs with reference outputs (ONNX test data) under a mixed tolerance: an
// element matches when |actual - expected| <= atol + atolScale * max|expected| + rtol * |expected|,
// which is numpy.allclose's rule when atolScale is 0. atolScale sizes the absolute term to the
// output: float32 rounding is relative to the magnitudes summed, so an output element near zero
// (a logit where large terms cancel) carries an error relative to the output's scale, not its own.
// Backend-neutral: the CPU and CUDA executors are checked the same way.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace opsched {

struct Tolerance {
    double rtol = 1e-3; // FP32 through a different kernel order: a few ulps per op add up over ~100 layers
    double atol = 1e-4;
    double atolScale = 0.0; // a fraction of the reference output's largest magnitude, added to atol
};

struct OutputComparison {
    std::string name;
    std::vector<std::int64_t> shape;
    double maxAbsError = 0.0;
    // max |a - e| / |e| over the elements with e != 0 (0 when all are 0).
    double maxRelError = 0.0;
    // max |a - e| / max |e|: the error against the output's scale, meaningful near zero crossings.
    double scaledError = 0.0;
    std::int64_t mismatches = 0; // elements outside the tolerance (NaN counts as outside)
    std::int64_t worstIndex = -1; // flat index of the largest |a - e| - rtol * |e|; -1 when empty
    double worstActual = 0.0, worstExpected = 0.0; // the values there
    double referenceScale = 0.0; // max |e|
    bool passed = true;
};

// Throws Error when the shapes differ (naming both); values must match the shape's element count.
OutputComparison compareOutput(const std::string& name, const std::vector<float>& actual,
    const std::vector<std::int64_t>& actualShape, const std::vector<float>& expected,
    const std::vector<std::int64_t>& expectedShape, const Tolerance& tolerance);

// The worst element for a failure message: "logits[0, 417] = 0.0123, reference 0.0456 (|error|
// 3.3e-02, 0.72 x max|ref|)"; the multi-index says where in the tensor to look.
std::string describeWorst(const OutputComparison& comparison);

} // namespace opsched
