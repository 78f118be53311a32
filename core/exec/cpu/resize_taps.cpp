#include "exec/cpu/resize_taps.h"

#include "util/error.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>

namespace opsched::cpu {
namespace {

std::int64_t clampIndex(std::int64_t i, std::int64_t len)
{
    return std::clamp<std::int64_t>(i, 0, len - 1);
}

std::int64_t nearestIndex(NearestRounding rounding, double x)
{
    const double lower = std::floor(x);
    const double frac = x - lower;
    switch (rounding) {
    case NearestRounding::RoundPreferFloor:
        return static_cast<std::int64_t>(frac <= 0.5 ? lower : lower + 1);
    case NearestRounding::RoundPreferCeil:
        return static_cast<std::int64_t>(frac < 0.5 ? lower : lower + 1);
    case NearestRounding::Floor:
        return static_cast<std::int64_t>(lower);
    case NearestRounding::Ceil:
        return static_cast<std::int64_t>(std::ceil(x));
    }
    return static_cast<std::int64_t>(lower);
}

// Keys' cubic convolution weights for the samples at -1, 0, 1, 2 around a fraction t in [0, 1).
std::array<double, 4> cubicWeights(double t, double a)
{
    auto near = [a](double d) { return ((a + 2) * d - (a + 3)) * d * d + 1; }; // |d| <= 1
    auto far = [a](double d) { return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a; }; // 1 < |d| < 2
    return { far(t + 1), near(t), near(1 - t), far(2 - t) };
}

} // namespace

double resizeSourceCoordinate(ResizeCoordinates mode, double x, double scale, std::int64_t inLen, std::int64_t outLen)
{
    switch (mode) {
    case ResizeCoordinates::HalfPixel:
        return (x + 0.5) / scale - 0.5;
    case ResizeCoordinates::HalfPixelSymmetric: {
        const double adjustment = static_cast<double>(outLen) / (scale * static_cast<double>(inLen));
        const double center = static_cast<double>(inLen) / 2.0;
        return center * (1.0 - adjustment) + (x + 0.5) / scale - 0.5;
    }
    case ResizeCoordinates::PytorchHalfPixel:
        return outLen > 1 ? (x + 0.5) / scale - 0.5 : 0.0;
    case ResizeCoordinates::AlignCorners:
        return outLen > 1 ? x * static_cast<double>(inLen - 1) / static_cast<double>(outLen - 1) : 0.0;
    case ResizeCoordinates::Asymmetric:
        return x / scale;
    case ResizeCoordinates::TfHalfPixelForNn:
        return (x + 0.5) / scale;
    case ResizeCoordinates::TfCropAndResize: // the whole input as the crop (resizeAxisTaps passes the roi)
        return outLen > 1 ? x * static_cast<double>(inLen - 1) / static_cast<double>(outLen - 1)
                          : 0.5 * static_cast<double>(inLen - 1);
    }
    return x / scale;
}

AxisTaps resizeAxisTaps(const Resize& r, std::size_t axis, std::int64_t inLen, std::int64_t outLen)
{
    if (inLen < 1 || outLen < 0)
        throw Error("resize axis " + std::to_string(axis) + " from " + std::to_string(inLen) + " to "
            + std::to_string(outLen) + " elements");
    AxisTaps t;
    const double scale = axis < r.scales.size() ? static_cast<double>(r.scales[axis]) : 1.0;
    const bool crop = r.coordinates == ResizeCoordinates::TfCropAndResize;
    const double start = crop && axis < r.roiStart.size() ? static_cast<double>(r.roiStart[axis]) : 0.0;
    const double end = crop && axis < r.roiEnd.size() ? static_cast<double>(r.roiEnd[axis]) : 1.0;
    if (inLen == outLen && scale == 1.0 && start == 0.0 && end == 1.0) {
        t.identity = true;
        for (std::int64_t x = 0; x < outLen; ++x) {
            t.index.push_back(x);
            t.weight.push_back(1.0F);
        }
        return t;
    }
    // sizes-given resizes scale by out / in, exactly (a float32 scale would round it).
    const double s = r.sizesGiven ? static_cast<double>(outLen) / static_cast<double>(inLen) : scale;
    t.taps = r.mode == ResizeMode::Nearest ? 1 : r.mode == ResizeMode::Linear ? 2 : 4;
    t.index.reserve(static_cast<std::size_t>(outLen * t.taps));
    t.weight.reserve(static_cast<std::size_t>(outLen * t.taps));
    for (std::int64_t x = 0; x < outLen; ++x) {
        double src = resizeSourceCoordinate(r.coordinates, static_cast<double>(x), s, inLen, outLen);
        if (crop) { // the crop's span of the input, in input coordinates
            const double last = static_cast<double>(inLen - 1);
            src = outLen > 1
                ? start * last + static_cast<double>(x) * (end - start) * last / static_cast<double>(outLen - 1)
                : 0.5 * (start + end) * last;
            if (src < 0.0 || src > last) { // outside the input: the extrapolation value, added by the importer
                for (std::int64_t k = 0; k < t.taps; ++k) {
                    t.index.push_back(0);
                    t.weight.push_back(0.0F);
                }
                continue;
            }
        }
        if (r.mode == ResizeMode::Nearest) {
            t.index.push_back(clampIndex(nearestIndex(r.rounding, src), inLen));
            t.weight.push_back(1.0F);
            continue;
        }
        const double lower = std::floor(src);
        const double frac = src - lower;
        const auto base = static_cast<std::int64_t>(lower);
        if (r.mode == ResizeMode::Linear) {
            t.index.push_back(clampIndex(base, inLen));
            t.index.push_back(clampIndex(base + 1, inLen));
            t.weight.push_back(static_cast<float>(1.0 - frac));
            t.weight.push_back(static_cast<float>(frac));
            continue;
        }
        auto w = cubicWeights(frac, r.cubicA);
        if (r.excludeOutside) { // samples past the edge get no weight; the rest are renormalised
            double sum = 0;
            for (std::int64_t k = 0; k < 4; ++k) {
                const std::int64_t i = base - 1 + k;
                if (i < 0 || i >= inLen)
                    w[static_cast<std::size_t>(k)] = 0;
                sum += w[static_cast<std::size_t>(k)];
            }
            for (auto& v : w)
                v = sum != 0 ? v / sum : 0;
        }
        for (std::int64_t k = 0; k < 4; ++k) {
            t.index.push_back(clampIndex(base - 1 + k, inLen));
            t.weight.push_back(static_cast<float>(w[static_cast<std::size_t>(k)]));
        }
    }
    return t;
}

std::vector<AxisTaps> resizeTaps(
    const Resize& r, const std::vector<std::int64_t>& inDims, const std::vector<std::int64_t>& outDims)
{
    if (inDims.size() != outDims.size())
        throw Error("resize changes the rank");
    std::vector<AxisTaps> taps;
    for (std::size_t d = 0; d < inDims.size(); ++d)
        taps.push_back(resizeAxisTaps(r, d, inDims[d], outDims[d]));
    return taps;
}

} // namespace opsched::cpu
