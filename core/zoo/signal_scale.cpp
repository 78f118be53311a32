#include "zoo/signal_scale.h"

#include "graph/shape_inference.h"
#include "util/random.h"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace opsched::zoo {
namespace {

// Taps inside [0, size) over every output position of one axis, as a fraction of all taps.
double axisCoverage(std::int64_t size, std::int64_t kernel, std::int64_t stride, std::int64_t padBefore,
    std::int64_t padAfter, std::int64_t dilation)
{
    const std::int64_t span = (kernel - 1) * dilation + 1;
    const std::int64_t outputs = (size + padBefore + padAfter - span) / stride + 1;
    if (outputs < 1 || kernel < 1)
        return 1.0;
    std::int64_t inside = 0;
    for (std::int64_t o = 0; o < outputs; ++o)
        for (std::int64_t k = 0; k < kernel; ++k) {
            const std::int64_t at = o * stride - padBefore + k * dilation;
            inside += at >= 0 && at < size ? 1 : 0;
        }
    return static_cast<double>(inside) / static_cast<double>(outputs * kernel);
}

// Per channel: ReLU of a Gaussian of that channel's mean and the common variance.
Signal relu(const Signal& in)
{
    if (in.nonNegative)
        return in;
    Signal out;
    out.nonNegative = true;
    out.mean.resize(in.mean.size());
    const double s = std::sqrt(std::max(in.variance, 0.0));
    double variance = 0.0;
    for (std::size_t c = 0; c < in.mean.size(); ++c) {
        const double m = in.mean[c];
        double first = std::max(m, 0.0), second = first * first;
        if (s > 0) {
            const double a = m / s;
            const double cdf = 0.5 * std::erfc(-a / std::numbers::sqrt2);
            const double pdf = std::exp(-0.5 * a * a) / std::sqrt(2.0 * std::numbers::pi);
            first = m * cdf + s * pdf;
            second = (m * m + s * s) * cdf + m * s * pdf;
        }
        out.mean[c] = first;
        variance += std::max(second - first * first, 0.0);
    }
    out.variance = in.mean.empty() ? in.variance / 2.0 : variance / static_cast<double>(in.mean.size());
    return out;
}

struct Moments {
    double mean = 0.0, variance = 0.0;
};

// Mean and variance of the largest of n independent standard Gaussians, by quadrature.
Moments largestOfGaussians(double n)
{
    if (n <= 1.0)
        return { 0.0, 1.0 };
    constexpr double step = 0.01;
    double first = 0.0, second = 0.0;
    for (double x = -8.0; x <= 8.0; x += step) {
        const double pdf = std::exp(-0.5 * x * x) / std::sqrt(2.0 * std::numbers::pi);
        const double cdf = 0.5 * std::erfc(-x / std::numbers::sqrt2);
        const double density = n * pdf * std::pow(cdf, n - 1.0) * step;
        first += x * density;
        second += x * x * density;
    }
    return { first, second - first * first };
}

// The largest of a window per channel, its values taken as independent (measured: the zoo's
// pools see little spatial correlation). A ReLU output's largest value is its pre-activation's,
// a centred Gaussian of twice its mean square.
Signal largestOf(const Signal& in, double window)
{
    const Moments top = largestOfGaussians(window);
    Signal out = in;
    double variance = 0.0;
    for (auto& m : out.mean) {
        const double spread = in.nonNegative ? 2.0 * (in.variance + m * m) : in.variance;
        m = (in.nonNegative ? 0.0 : m) + top.mean * std::sqrt(spread);
        variance += top.variance * spread;
    }
    out.variance = out.mean.empty() ? in.variance : variance / static_cast<double>(out.mean.size());
    return out;
}

} // namespace

double Signal::meanSquare() const
{
    double sum = 0.0;
    for (double m : mean)
        sum += m * m;
    return variance + (mean.empty() ? 0.0 : sum / static_cast<double>(mean.size()));
}

Signal inputSignal(std::int64_t channels)
{
    return { std::vector<double>(static_cast<std::size_t>(channels), 0.0), 1.0 / 3.0 };
}

Signal unitSignal(std::int64_t channels)
{
    return { std::vector<double>(static_cast<std::size_t>(channels), 0.0), 1.0 };
}

Signal combineSignals(const std::vector<std::vector<const Signal*>>& terms)
{
    Signal out;
    out.variance = 0.0;
    out.nonNegative = true;
    for (const auto& term : terms) {
        if (term.empty())
            continue;
        std::vector<double> mean(term.front()->mean.size(), 0.0);
        double variance = 0.0;
        for (const Signal* s : term) {
            out.nonNegative = out.nonNegative && s->nonNegative;
            for (std::size_t c = 0; c < std::min(mean.size(), s->mean.size()); ++c)
                mean[c] += s->mean[c];
            variance += s->variance;
        }
        out.variance += variance * static_cast<double>(mean.size());
        out.mean.insert(out.mean.end(), mean.begin(), mean.end());
    }
    out.variance = out.mean.empty() ? 1.0 : out.variance / static_cast<double>(out.mean.size());
    return out;
}

double tapCoverage(const Conv2d& c, const Shape& in)
{
    return axisCoverage(in.height(), c.kernelH, c.strideH, c.padTop, c.padBottom, c.dilationH)
        * axisCoverage(in.width(), c.kernelW, c.strideW, c.padLeft, c.padRight, c.dilationW);
}

float heUniformScale(double fanIn, double inputVariance, double coverage, double target)
{
    // Uniform in [-a, a] has variance a^2/3; the output's variance is fanIn * coverage * a^2/3 *
    // the input's (independent weights: cross terms vanish in expectation).
    const double taps = std::max(fanIn * coverage * inputVariance, 1e-12);
    return static_cast<float>(std::sqrt(3.0 * target / taps));
}

double varianceAboutGroupMean(const Signal& in, std::int64_t groups)
{
    const std::size_t channels = in.mean.size();
    const std::size_t perGroup = groups > 0 ? channels / static_cast<std::size_t>(groups) : 0;
    if (perGroup == 0)
        return in.variance;
    double spread = 0.0;
    for (std::size_t first = 0; first + perGroup <= channels; first += perGroup) {
        double mean = 0.0;
        for (std::size_t c = first; c < first + perGroup; ++c)
            mean += in.mean[c];
        mean /= static_cast<double>(perGroup);
        for (std::size_t c = first; c < first + perGroup; ++c)
            spread += (in.mean[c] - mean) * (in.mean[c] - mean);
    }
    return in.variance + spread / static_cast<double>(channels);
}

ScaledWeights scaleWeights(const Layer& layer, const Shape& input, const Signal& in, std::uint64_t offsetSeed)
{
    const Shape weights = weightShapes(layer, input).front();
    const std::int64_t outputs = weights[0];
    const auto fanIn = static_cast<std::size_t>(weights.elements() / outputs);
    const double target = layer.activation.kind == ActivationKind::Relu ? 2.0 : 1.0;
    ScaledWeights w;
    w.output = { std::vector<double>(static_cast<std::size_t>(outputs), 0.0), target };
    const auto* conv = std::get_if<Conv2d>(&layer.params);
    if (!conv) {
        w.scale = heUniformScale(static_cast<double>(fanIn), in.meanSquare(), 1.0, target);
        return w;
    }
    const double variance = varianceAboutGroupMean(in, conv->groups);
    const double coverage = tapCoverage(*conv, input);
    w.scale = heUniformScale(static_cast<double>(fanIn), variance, coverage, target);
    w.row = fanIn;
    if (weights[1] == 1 && conv->groups > 1) { // depthwise
        w.rowSum = static_cast<float>(w.scale * std::sqrt(static_cast<double>(fanIn) / 3.0));
        for (std::int64_t o = 0; o < outputs; ++o)
            w.output.mean[static_cast<std::size_t>(o)]
                = coverage * w.rowSum * in.mean[static_cast<std::size_t>(o * conv->groups / outputs)];
        return w;
    }
    const double offsetShare = variance > 0 ? 1.0 - in.variance / variance : 0.0;
    w.output.variance = target * (1.0 - offsetShare);
    SplitMix64 rng(offsetSeed);
    for (auto& m : w.output.mean) // unit variance, times the offsets' size
        m = (rng.uniform() * 2.0 - 1.0) * std::sqrt(3.0 * target * offsetShare);
    return w;
}

Signal afterActivation(const Activation& activation, Signal s)
{
    return activation.kind == ActivationKind::Relu ? relu(s) : s;
}

std::optional<Signal> signalThrough(const Layer& layer, const Signal& in, const Shape& inputShape)
{
    Signal s = in;
    if (const auto* e = std::get_if<Eltwise>(&layer.params)) {
        s = afterActivation(e->activation, s);
    } else if (const auto* pool = std::get_if<Pool2d>(&layer.params)) {
        const bool global = pool->kind == PoolKind::GlobalAverage || pool->kind == PoolKind::GlobalMax;
        const double window = global ? static_cast<double>(inputShape.height() * inputShape.width())
                                     : static_cast<double>(pool->kernelH * pool->kernelW);
        if (pool->kind == PoolKind::Max || pool->kind == PoolKind::GlobalMax)
            s = largestOf(s, window);
        else
            s.variance /= std::sqrt(std::max(window, 1.0)); // halfway (in log) to independent values
    } else if (!std::holds_alternative<Identity>(layer.params)) {
        return std::nullopt;
    }
    return afterActivation(layer.activation, s);
}

} // namespace opsched::zoo
