#include "schedule/stage_recorder.h"

namespace opsched {

double StageRecorder::stageLatency(const Graph& graph, const Stage& stage)
{
    if (!signatures_ || graph_ != graph.instanceId()) {
        signatures_ = std::make_unique<StageSignatures>(graph);
        graph_ = graph.instanceId();
    }
    const double seconds = inner_.stageLatency(graph, stage);
    std::string signature = (*signatures_)(stage);
    const std::string key = std::to_string(graph.instanceId()) + "/" + signature;
    if (index_.emplace(key, stages_.size()).second)
        stages_.push_back({ &graph, stage, std::move(signature), false, seconds });
    return seconds;
}

void StageRecorder::markChosen(const Graph& graph, const Schedule& schedule)
{
    const StageSignatures signatures(graph);
    for (const auto& stage : schedule.stages) {
        const std::string key = std::to_string(graph.instanceId()) + "/" + signatures(stage);
        if (auto it = index_.find(key); it != index_.end())
            stages_[it->second].chosen = true;
    }
}

} // namespace opsched
