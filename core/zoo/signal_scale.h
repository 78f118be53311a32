// How the zoo's CNNs keep their activations at unit scale and dependent on the input. The
// networks carry no BatchNorm ops (as IOS schedules them, BN is folded into the convs), so what a
// BatchNorm calibrated on the seeded inputs (uniform in [-1, 1]) would leave is built into the
// seeded weights: He-scaled filters (by the fan-in and by the variance the input is expected to
// have) whose sums drop the mean their input channels share, so each conv output is centred with
// variance 2 before a ReLU (about 1 after it), 1 without one. The statistics (per-channel means,
// a variance) are propagated analytically, as expectations over the seeded weights and inputs:
// building a network runs nothing. The centring is in the filters' sums, not in biases sized
// from estimated means: an estimate's error would stay, and the next conv, scaled for the
// variance alone, would amplify it. Before, fan-in-only scaling (PyTorch's default, without BN)
// divided the mean square by ~6 per Conv-ReLU and deep networks' outputs were their biases'
// alone; scaling without centring let each ReLU's mean grow the input-independent share.
// Measured on the CPU (tests/cpu/tst_cpu_zoo_inputs.cpp): outputs of unit scale, and two seeded
// inputs give outputs 10-100% apart.
#pragma once

#include "graph/layer.h"
#include "graph/shape.h"

#include <optional>
#include <vector>

namespace opsched::zoo {

// Bias half-range: small against unit-scale outputs, but not zero, so bias paths are exercised.
inline constexpr float kBiasScale = 0.1F;

// An activation's statistics over the seeded inputs.
struct Signal {
    std::vector<double> mean; // per channel
    double variance = 1.0; // about the means, averaged over channels
    bool nonNegative = false; // a ReLU's output (pooled, summed or concatenated): another ReLU passes it
    double meanSquare() const;
};

// The seeded inputs: uniform in [-1, 1].
Signal inputSignal(std::int64_t channels);
// Unknown statistics (transformer ops: those networks normalise themselves): centred, unit scale.
Signal unitSignal(std::int64_t channels);
// An op's input terms: tensors summed within a term (taken as independent), terms concatenated.
Signal combineSignals(const std::vector<std::vector<const Signal*>>& terms);

// Fraction of a conv's taps, over its output positions, that read the input rather than padding.
double tapCoverage(const Conv2d& conv, const Shape& input);

// Half-range of uniform weights that take inputs of variance `inputVariance` through `fanIn` taps
// (a `coverage` of them inside the input) to outputs of variance `target`.
float heUniformScale(double fanIn, double inputVariance, double coverage, double target);

// The variance a conv with equal-sum filters sees: about the mean each group's input channels
// share (the spread of the channels' own means included).
double varianceAboutGroupMean(const Signal& input, std::int64_t groups);

// How the zoo seeds a conv's (or the classifier's) weights, and what comes out before its bias
// and activation. Convs reach variance 2 before a ReLU (about 1 after it), 1 without, about the
// group mean they drop; their filters sum to zero, but depthwise ones (whose single input channel
// is their group: a zero sum would drop each input's own mean, whose changes a later global
// average reads) all sum to what a random filter's sum typically is, passing the mean their
// channels share as one value the pointwise conv after them drops. The spread of the input
// channels' means comes out as per-channel offsets, drawn from `offsetSeed` with their expected
// size. The classifier (no BN after it in torchvision either) is scaled for its input's mean
// square.
struct ScaledWeights {
    float scale = 0.0F; // half-range of the uniform values
    std::size_t row = 0; // values per filter (its fan-in) shifted to sum to rowSum; 0: not shifted
    float rowSum = 0.0F;
    Signal output;
};
ScaledWeights scaleWeights(const Layer& layer, const Shape& input, const Signal& in, std::uint64_t offsetSeed);

// After a fused activation: a ReLU's per-channel Gaussian moments; others taken as the identity.
Signal afterActivation(const Activation& activation, Signal s);

// Through a layer without weights (a pool, a standalone ReLU, an identity), its fused activation
// included; nothing for other layers. A max pool's window holds independent Gaussians (a ReLU
// output's as its pre-activation's; measured: the largest is close to theirs). An average keeps
// the means and divides the variance by sqrt(window): halfway, in log, between independent
// neighbours (1/window, NASNet's) and correlated ones (1, Inception V3's smooth 17x17 maps).
std::optional<Signal> signalThrough(const Layer& layer, const Signal& in, const Shape& inputShape);

} // namespace opsched::zoo
