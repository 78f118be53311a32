#include "session/cost_cache.h"

#include "util/sha256.h"

#include <unordered_map>

namespace opsched::profiler {

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
    ops_.reserve(graph.opCount());
    for (const auto& op : graph.ops())
        ops_.push_back(opSignature(graph, op.id));
}

std::string StageSignatures::operator()(const Stage& stage) const
{
    std::string s = toString(stage.strategy);
    std::unordered_map<std::uint32_t, std::size_t> external; // tensor -> number by first use
    for (const auto& group : stage.groups) {
        s += "\n[";
        std::unordered_map<std::uint32_t, std::size_t> produced; // tensor -> position in group
        for (std::size_t i = 0; i < group.size(); ++i) {
            const Op& op = graph_.op(group[i]);
            s += ops_[group[i].value()] + " <-";
            for (auto t : op.inputTensors()) {
                if (auto it = produced.find(t.value()); it != produced.end()) {
                    s += " g" + std::to_string(it->second);
                } else {
                    const auto pos = external.emplace(t.value(), external.size()).first;
                    s += " x" + std::to_string(pos->second);
                }
            }
            s += ";";
            produced.emplace(op.output.value(), i);
        }
        s += "]";
    }
    return sha256Hex(s);
}

CachedStageCost::CachedStageCost(StageCostModel& inner, std::unordered_map<std::string, double> cachedSeconds)
    : inner_(inner)
    , cache_(std::move(cachedSeconds))
{
}

double CachedStageCost::stageLatency(const Graph& graph, const Stage& stage)
{
    if (graph_ != &graph) {
        signatures_ = std::make_unique<StageSignatures>(graph);
        graph_ = &graph;
    }
    const std::string key = (*signatures_)(stage);
    if (auto it = cache_.find(key); it != cache_.end()) {
        ++hits_;
        return it->second;
    }
    ++misses_;
    const double seconds = inner_.stageLatency(graph, stage);
    cache_.emplace(key, seconds);
    new_.emplace_back(key, seconds);
    return seconds;
}

std::vector<std::pair<std::string, double>> CachedStageCost::takeNew()
{
    return std::exchange(new_, {});
}

} // namespace opsched::profiler
