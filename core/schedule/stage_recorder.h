// Wraps the cost model a search runs on (the measured one) and keeps every distinct stage it was
// asked about, with the answer: the samples calibration (sim/calibration.h) fits the simulator to.
// Here, not in sim/, because it is a cost model: sim/ sits below schedule/ and knows no cost models.
#pragma once

#include "plan/stage_signature.h"
#include "schedule/stage_cost.h"
#include "sim/calibration.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace opsched {

class StageRecorder : public StageCostModel {
public:
    explicit StageRecorder(StageCostModel& measured)
        : inner_(measured)
    {
    }
    double stageLatency(const Graph& graph, const Stage& stage) override;
    std::string deviceName() const override { return inner_.deviceName(); }
    const SimDevice& deviceModel() const override { return inner_.deviceModel(); }
    double planLatency(const Graph& graph, const Plan& plan) override { return inner_.planLatency(graph, plan); }

    // Marks the recorded stages of `graph` that appear in `schedule`.
    void markChosen(const Graph& graph, const Schedule& schedule);
    const std::vector<CalibrationStage>& stages() const { return stages_; }

private:
    StageCostModel& inner_;
    std::vector<CalibrationStage> stages_;
    std::unordered_map<std::string, std::size_t> index_; // graph instance + signature -> stage
    std::uint64_t graph_ = 0;
    std::unique_ptr<StageSignatures> signatures_;
};

} // namespace opsched
