// The calibration end to end with a fake GPU whose "truth" is the simulator with other constants:
// the stages IOS considers are recorded with their measurements, and fitting sim:h100's constants
// to them must clearly improve error and rank correlation.
#include "support/fake_timer.h"

#include "model/model_ref.h"
#include "schedule/schedulers.h"
#include "schedule/stage_recorder.h"
#include "sim/sim_device_file.h"
#include "sim/sim_stage_timer.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <deque>
#include <set>

namespace opsched {
namespace {

SimDevice truthDevice()
{
    SimDevice d = findSimDevice("sim:h100");
    d.name = "h100-truth";
    d.computeEfficiency = 0.45;
    d.memoryEfficiency = 0.6;
    d.launchLatencySeconds = 6e-6;
    d.eventWaitSeconds = 4e-6;
    d.concurrencyPenalty = 0.35;
    d.saturationWarpsPerSm = 20;
    return d;
}

struct Recorded {
    std::deque<Graph> graphs;
    std::vector<CalibrationStage> stages;
};

Recorded record(const std::vector<const char*>& models, StageTimer& timer)
{
    Recorded r;
    MeasuredStageCost measured(timer, "fake:0", findSimDevice("sim:h100"));
    StageRecorder recorder(measured);
    for (const char* m : models) {
        const Graph& g = r.graphs.emplace_back(loadModel(m, 1));
        const auto out = runScheduler("ios", g, recorder);
        recorder.markChosen(g, *out.schedule);
    }
    r.stages = recorder.stages();
    return r;
}

TEST(Calibration, RecordsEachDistinctStageOnceAndMarksTheChosenOnes)
{
    test::CountingTimer timer(truthDevice());
    const Recorded r = record({ "zoo:squeezenet" }, timer);
    EXPECT_EQ(r.stages.size(), timer.stages);
    std::size_t chosen = 0;
    std::set<std::string> signatures;
    std::size_t timed = 0;
    for (const auto& s : r.stages) {
        chosen += s.chosen ? 1 : 0;
        signatures.insert(s.signature);
        EXPECT_GE(s.measured, 0);
        timed += s.measured > 0 ? 1 : 0;
    }
    EXPECT_GT(timed * 2, r.stages.size()); // only stages of views (in-place concats) take no time
    EXPECT_EQ(signatures.size(), r.stages.size());
    EXPECT_GT(chosen, 0U);
    EXPECT_LT(chosen, r.stages.size());
}

TEST(Calibration, FitRecoversAClearlyBetterSimulator)
{
    test::CountingTimer timer(truthDevice());
    const Recorded r = record({ "zoo:squeezenet", "zoo:googlenet" }, timer);
    const SimDevice& base = findSimDevice("sim:h100");
    FitOptions options;
    options.maxStages = 300;
    const FitResult fit = fitSimDevice(r.stages, base, SimOptions {}, options);
    EXPECT_LT(fit.after.rmsLogError, 0.5 * fit.before.rmsLogError)
        << fit.before.rmsLogError << " -> " << fit.after.rmsLogError;
    EXPECT_LT(fit.after.meanAbsRelError, 0.5 * fit.before.meanAbsRelError);
    EXPECT_GE(fit.after.spearman, fit.before.spearman - 1e-9);
    EXPECT_GT(fit.after.spearman, 0.95);
    EXPECT_EQ(fit.device.name, "h100-fitted");
    // Public specs stay as the data sheet says.
    EXPECT_EQ(fit.device.peakFlops, base.peakFlops);
    EXPECT_EQ(fit.device.multiprocessors, base.multiprocessors);
    // The quality numbers are what a recomputation gives.
    std::vector<CalibrationStage> timed;
    std::vector<double> measured;
    for (const auto& s : r.stages)
        if (s.measured > 0) {
            timed.push_back(s);
            measured.push_back(s.measured);
        }
    EXPECT_EQ(fit.stagesCompared, timed.size());
    const auto again = calibrationQuality(simulateStages(timed, fit.device, SimOptions {}), measured);
    EXPECT_DOUBLE_EQ(again.rmsLogError, fit.after.rmsLogError);
}

TEST(Calibration, ATruthEqualToTheBaseNeedsNoChange)
{
    test::CountingTimer timer(findSimDevice("sim:h100"));
    const Recorded r = record({ "zoo:squeezenet" }, timer);
    const FitResult fit = fitSimDevice(r.stages, findSimDevice("sim:h100"), SimOptions {});
    EXPECT_NEAR(fit.before.rmsLogError, 0.0, 1e-12);
    EXPECT_NEAR(fit.before.spearman, 1.0, 1e-12);
    for (const auto& name : fittedSimConstants())
        EXPECT_EQ(simConstant(fit.device, name), simConstant(findSimDevice("sim:h100"), name)) << name;
}

TEST(Calibration, TooFewStagesIsAClearError)
{
    EXPECT_THROW(fitSimDevice({}, findSimDevice("sim:h100"), SimOptions {}), Error);
    EXPECT_THROW(calibrationQuality({ 1.0 }, { 1.0 }), Error);
    EXPECT_THROW(calibrationQuality({ 1.0, 2.0 }, { 1.0, 0.0 }), Error);
}

} // namespace
} // namespace opsched
