// Simulated against measured stage latencies: the stages an IOS search considers, recorded with
// what the device measured (schedule/stage_recorder.h records them); how well the simulator ranks
// and predicts them; and a fit of the simulator's constants (sim_device_file.h: fittedSimConstants)
// to the measurements by coordinate search in log space.
#pragma once

#include "plan/schedule.h"
#include "sim/simulator.h"

#include <string>
#include <vector>

namespace opsched {

struct CalibrationStage {
    const Graph* graph = nullptr; // must outlive the sample
    Stage stage;
    std::string signature; // stage_signature.h
    bool chosen = false; // part of the schedule the search returned
    double measured = 0; // seconds, as the device timed it
};

// Simulated seconds of each stage on `device`.
std::vector<double> simulateStages(
    const std::vector<CalibrationStage>& stages, const SimDevice& device, const SimOptions& options);

struct CalibrationQuality {
    double spearman = 0; // rank correlation of simulated with measured
    double rmsLogError = 0; // sqrt(mean(ln(sim/measured)^2)): scale-free, what the fit minimises
    double meanAbsRelError = 0; // mean |sim - measured| / measured
};
// Needs two or more stages with positive measured and simulated times. Throws Error otherwise.
CalibrationQuality calibrationQuality(const std::vector<double>& simulated, const std::vector<double>& measured);

struct FitOptions {
    int maxRounds = 40; // passes over the constants
    double initialStep = 2.0; // first multiplicative step per constant
    double finalStep = 1.01; // stops when the step shrinks below this
    std::size_t maxStages = 600; // fit on at most this many (chosen ones first, the rest evenly spread)
};

struct FitResult {
    SimDevice device; // the base with fitted constants, named "<base>-fitted"
    CalibrationQuality before; // of the base device, over every usable stage
    CalibrationQuality after; // of the fitted device, over every usable stage
    std::size_t stagesCompared = 0; // usable stages
    std::size_t stagesUsed = 0; // of those, the fit sample
    int evaluations = 0;
};

// Fits on the stages with positive measured and simulated times (stages of views only take none);
// `before` and `after` are over those. Throws Error when there are fewer than two.
FitResult fitSimDevice(const std::vector<CalibrationStage>& stages, const SimDevice& base, const SimOptions& options,
    const FitOptions& fit = {});

} // namespace opsched
