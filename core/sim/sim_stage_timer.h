// The simulated GPU behind the StageTimer interface: stages, ops alone and whole plans timed by the
// simulator. Gives the critical-path floor on simulated devices, and is the "truth" that tests and
// the calibration's self-check measure against (a simulator with other constants than the model).
#pragma once

#include "plan/stage_timer.h"
#include "sim/simulator.h"

#include <cstdint>
#include <memory>

namespace opsched {

class SimStageTimer : public StageTimer {
public:
    explicit SimStageTimer(SimDevice device, SimOptions options = {});
    ~SimStageTimer() override;

    // device "sim:NAME", driver "opsched-sim/<hash of every constant>", options "cuda_graph=on|off":
    // a device refitted under the same name never shares cache entries with the preset.
    TimerIdentity identity() const override;
    double timeStage(const Graph& graph, const Stage& stage) override;
    // From the op's first kernel start to its last kernel end (no launch, no barrier): concurrent
    // kernels never run faster than alone, so chains of these times are a true floor.
    double timeOp(const Graph& graph, OpId op) override;
    // The simulator is deterministic: every replay gives the same latency.
    std::vector<double> timePlan(const Graph& graph, const Plan& plan, int repeats) override;

    const SimDevice& device() const { return device_; }
    const SimOptions& options() const { return options_; }

private:
    const KernelTable& tableFor(const Graph& graph);

    SimDevice device_;
    SimOptions options_;
    std::uint64_t tableGraph_ = 0;
    std::unique_ptr<KernelTable> table_;
};

// A hex digest of every parameter of the device (specs and fitted constants).
std::string simDeviceFingerprint(const SimDevice& device);

} // namespace opsched
