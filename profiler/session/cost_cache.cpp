#include "session/cost_cache.h"

#include <utility>

namespace opsched::profiler {

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
