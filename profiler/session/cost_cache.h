// The IOS search's stage-cost cache, kept in the results store: stage latencies keyed by device,
// batch and the stage's op signatures, so identical blocks (and a rerun of the same search) cost one
// measurement. Worth it for measured costs; on the simulated GPU recomputing is as cheap.
#pragma once

#include "plan/stage_signature.h"
#include "schedule/stage_cost.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace opsched::profiler {

// The signatures live in core (plan/stage_signature.h) so the measured cost model shares them.
using opsched::opSignature;
using opsched::StageSignatures;

// Wraps a cost model: answers from the cache where it can, asks `inner` otherwise and remembers
// the new entries for the store.
class CachedStageCost : public StageCostModel {
public:
    CachedStageCost(StageCostModel& inner, std::unordered_map<std::string, double> cachedSeconds);
    double stageLatency(const Graph& graph, const Stage& stage) override;
    std::string deviceName() const override { return inner_.deviceName(); }
    const SimDevice& deviceModel() const override { return inner_.deviceModel(); }
    double planLatency(const Graph& graph, const Plan& plan) override { return inner_.planLatency(graph, plan); }

    std::size_t hits() const { return hits_; }
    std::size_t misses() const { return misses_; }
    // Entries measured since the last call (signature, seconds).
    std::vector<std::pair<std::string, double>> takeNew();

private:
    StageCostModel& inner_;
    std::unordered_map<std::string, double> cache_;
    std::vector<std::pair<std::string, double>> new_;
    const Graph* graph_ = nullptr;
    std::unique_ptr<StageSignatures> signatures_;
    std::size_t hits_ = 0;
    std::size_t misses_ = 0;
};

} // namespace opsched::profiler
