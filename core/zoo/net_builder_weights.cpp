// NetBuilder's seeded weights: each op's conv and gemm weights scaled for the statistics its input
// is expected to have, and every activation's statistics recorded (zoo/signal_scale.h).
#include "zoo/net_builder.h"

#include "graph/shape_inference.h"
#include "util/random.h"

#include <optional>

namespace opsched::zoo {

void NetBuilder::setSignal(TensorId t, Signal s)
{
    if (signals_.size() <= t.value())
        signals_.resize(t.value() + 1);
    signals_[t.value()] = std::move(s);
}

Signal NetBuilder::signal(const Terms& in) const
{
    std::vector<std::vector<const Signal*>> terms;
    for (const auto& term : in) {
        auto& signals = terms.emplace_back();
        for (auto t : term)
            signals.push_back(&signals_.at(t.value()));
    }
    return combineSignals(terms);
}

void NetBuilder::addScaledWeights(const std::string& prefix, Layer& layer, const Shape& input, Signal& s)
{
    // Named and seeded as GraphBuilder names and seeds the weights it creates.
    const std::string weight = prefix + ".weight", bias = prefix + ".bias";
    const ScaledWeights scaled = scaleWeights(layer, input, s, hashString(prefix + ".offsets", weightSeed_));
    const auto shapes = weightShapes(layer, input);
    layer.weights.push_back(builder_.addWeight(weight, shapes[0],
        WeightData::seeded(hashString(weight, weightSeed_), scaled.scale, scaled.row, scaled.rowSum)));
    s = scaled.output;
    if (shapes.size() < 2)
        return;
    const auto data = WeightData::seeded(hashString(bias, weightSeed_), kBiasScale);
    layer.weights.push_back(builder_.addWeight(bias, shapes[1], data));
    const auto values = data->values(s.mean.size()); // each channel's mean moves by its bias
    for (std::size_t o = 0; o < s.mean.size(); ++o)
        s.mean[o] += values[o];
}

TensorId NetBuilder::scaledOp(const std::string& name, OpKind kind, const Terms& in, std::vector<Layer> layers)
{
    std::optional<Signal> s;
    if (!layers.empty() && !layers.front().takesOperands()) {
        std::vector<std::vector<Shape>> termShapes;
        for (const auto& term : in) {
            auto& shapes = termShapes.emplace_back();
            for (auto t : term)
                shapes.push_back(shape(t));
        }
        Shape at = combinedInputShape(name, layers.front(), termShapes);
        s = signal(in);
        for (std::size_t i = 0; i < layers.size() && s; ++i) {
            Layer& l = layers[i];
            if (l.weights.empty()
                && (std::holds_alternative<Conv2d>(l.params) || std::holds_alternative<Gemm>(l.params))) {
                addScaledWeights(layers.size() > 1 ? name + "." + std::to_string(i) : name, l, at, *s);
                s = afterActivation(l.activation, std::move(*s));
            } else {
                s = signalThrough(l, *s, at);
            }
            inferLayerShape(name, l, at, {});
            at = l.output;
        }
    }
    const auto out = builder_.addOp({ name, kind, in, std::move(layers) });
    setSignal(out, s ? std::move(*s) : unitSignal(channels(out))); // transformers normalise themselves
    return out;
}

} // namespace opsched::zoo
