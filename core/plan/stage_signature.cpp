#include "plan/stage_signature.h"

#include "util/sha256.h"

#include <cstddef>
#include <utility>

namespace opsched {

std::string opSignature(const Graph& graph, OpId id)
{
    const Op& op = graph.op(id);
    std::string s = toString(op.kind);
    for (const auto& term : op.inputs) {
        s += " (";
        for (auto t : term)
            s += graph.tensor(t).shape.toString() + ",";
        s += ")";
    }
    for (const auto& layer : op.layers) {
        s += std::string(" ") + layer.kindName() + ":" + toString(layer.activation.kind) + ":"
            + layer.output.toString();
        if (const auto* c = std::get_if<Conv2d>(&layer.params))
            s += ":k" + std::to_string(c->kernelH) + "x" + std::to_string(c->kernelW) + "s" + std::to_string(c->strideH)
                + "x" + std::to_string(c->strideW) + "p" + std::to_string(c->padTop) + "," + std::to_string(c->padLeft)
                + "," + std::to_string(c->padBottom) + "," + std::to_string(c->padRight) + "d"
                + std::to_string(c->dilationH) + "x" + std::to_string(c->dilationW) + "g" + std::to_string(c->groups);
        for (auto w : layer.weights)
            s += ":w" + graph.tensor(w).shape.toString();
        s += ":f" + std::to_string(layer.cost.flops) + ":b" + std::to_string(layer.cost.bytes());
    }
    return s;
}

StageSignatures::StageSignatures(const Graph& graph)
    : graph_(graph)
{
    // Each op enters a stage's signature as a digest of its own: the search asks for millions of
    // stages (NASNet-A), and hashing full op descriptions each time would dominate it.
    ops_.reserve(graph.opCount());
    for (const auto& op : graph.ops())
        ops_.push_back(sha256Hex(opSignature(graph, op.id)).substr(0, 32));
}

std::string StageSignatures::operator()(const Stage& stage) const
{
    // Stages hold a few ops (at most r*s): linear lookups beat hash maps here.
    using Numbered = std::vector<std::pair<std::uint32_t, std::size_t>>;
    auto find = [](const Numbered& v, std::uint32_t key) {
        for (const auto& [k, n] : v)
            if (k == key)
                return static_cast<std::ptrdiff_t>(n);
        return static_cast<std::ptrdiff_t>(-1);
    };
    std::string s = toString(stage.strategy);
    s.reserve(64 * (stage.opCount() + 1));
    Numbered external; // tensor -> number by first use in the stage
    Numbered produced; // tensor -> position in its group
    for (const auto& group : stage.groups) {
        s += "\n[";
        produced.clear();
        for (std::size_t i = 0; i < group.size(); ++i) {
            const Op& op = graph_.op(group[i]);
            s += ops_[group[i].value()];
            s += " <-";
            for (auto t : op.inputTensors()) {
                if (const auto pos = find(produced, t.value()); pos >= 0) {
                    s += " g" + std::to_string(pos);
                } else {
                    auto number = find(external, t.value());
                    if (number < 0) {
                        number = static_cast<std::ptrdiff_t>(external.size());
                        external.emplace_back(t.value(), external.size());
                    }
                    s += " x" + std::to_string(number);
                }
            }
            s += ";";
            produced.emplace_back(op.output.value(), i);
        }
        s += "]";
    }
    return sha256Hex(s);
}

std::string StageSignatures::op(OpId id) const
{
    return ops_[id.value()];
}

} // namespace opsched
