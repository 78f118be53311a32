// The measured cost model over a fake timer whose "GPU" is the simulator: the IOS search times each
// distinct stage once, a second run with the persistent cache times nothing, another GPU, driver or
// batch never reuses an entry, and IOS on the measured model finds what IOS on that simulator finds.
#include "support/fake_timer.h"

#include "model/model_ref.h"
#include "schedule/critical_path.h"
#include "schedule/schedulers.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <set>

namespace opsched {
namespace {

using test::CountingTimer;
using test::MemoryCostStore;

const SimDevice& h100()
{
    return findSimDevice("sim:h100");
}

// NASNet-A's 375 ops with the default pruning take the search tens of seconds here; lighter pruning
// keeps the repeated cells (what the cache is about) and the test fast.
SchedulerParams lightPruning()
{
    SchedulerParams p;
    p.r = 2;
    p.s = 3;
    p.maxPartOps = 16;
    return p;
}

// Asks the wrapped model and records every stage's signature, to count what the search asked.
class RecordingCost : public StageCostModel {
public:
    explicit RecordingCost(StageCostModel& inner)
        : inner_(inner)
    {
    }
    double stageLatency(const Graph& graph, const Stage& stage) override
    {
        if (!sigs_ || graph_ != graph.instanceId()) {
            sigs_ = std::make_unique<StageSignatures>(graph);
            graph_ = graph.instanceId();
        }
        ++requests;
        distinct.insert((*sigs_)(stage));
        return inner_.stageLatency(graph, stage);
    }
    std::string deviceName() const override { return inner_.deviceName(); }
    const SimDevice& deviceModel() const override { return inner_.deviceModel(); }
    double planLatency(const Graph& graph, const Plan& plan) override { return inner_.planLatency(graph, plan); }

    std::size_t requests = 0;
    std::set<std::string> distinct;

private:
    StageCostModel& inner_;
    std::uint64_t graph_ = 0;
    std::unique_ptr<StageSignatures> sigs_;
};

TEST(MeasuredStageCost, IosOverRepeatedCellsTimesEachDistinctStageOnce)
{
    const Graph g = loadModel("zoo:nasnet_a", 1);
    CountingTimer timer(h100());
    MemoryCostStore store;
    {
        MeasuredStageCost measured(timer, "fake:0", h100(), &store);
        RecordingCost recording(measured);
        runScheduler("ios", g, recording, lightPruning());
        EXPECT_EQ(timer.stages, recording.distinct.size());
        EXPECT_EQ(measured.counts().stagesTimed, timer.stages);
        EXPECT_EQ(measured.counts().memoryHits, recording.requests - recording.distinct.size());
        // NASNet's cells repeat: far fewer distinct stages than requests.
        EXPECT_LT(timer.stages * 2, recording.requests) << timer.stages << " timed of " << recording.requests;
        measured.flush();
        EXPECT_EQ(store.size(), timer.stages);
    }

    // A second run (a new process, in effect) with the persistent cache times nothing.
    CountingTimer again(h100());
    MeasuredStageCost second(again, "fake:0", h100(), &store);
    const auto out = runScheduler("ios", g, second, lightPruning());
    EXPECT_EQ(again.stages, 0U);
    EXPECT_GT(second.counts().storeHits, 0U);
    SimulatedStageCost sim(h100());
    EXPECT_EQ(out.schedule, runScheduler("ios", g, sim, lightPruning()).schedule);
}

TEST(MeasuredStageCost, IosWithMeasuredCostsEqualsIosWithTheSimulatorItWraps)
{
    for (const char* model : { "zoo:squeezenet", "zoo:googlenet", "zoo:randwire" }) {
        const Graph g = loadModel(model, 1);
        CountingTimer timer(h100());
        MeasuredStageCost measured(timer, "fake:0", h100());
        SimulatedStageCost sim(h100());
        for (const char* scheduler : { "ios", "ios-parallel", "ios-merge", "opara" }) {
            const auto a = runScheduler(scheduler, g, measured);
            const auto b = runScheduler(scheduler, g, sim);
            EXPECT_EQ(a.schedule, b.schedule) << model << " " << scheduler;
            EXPECT_EQ(a.plan, b.plan) << model << " " << scheduler;
        }
        EXPECT_GT(timer.stages, 0U);
    }
}

TEST(MeasuredStageCost, AnotherGpuDriverSettingOrBatchNeverReusesAnEntry)
{
    const Graph g1 = loadModel("zoo:squeezenet", 1);
    MemoryCostStore store;
    std::size_t first = 0;
    {
        CountingTimer timer(h100());
        MeasuredStageCost m(timer, "fake:0", h100(), &store);
        runScheduler("ios", g1, m);
        first = timer.stages;
        ASSERT_GT(first, 0U);
    }
    const std::vector<TimerIdentity> others = {
        { "fake:0 Simulated A100", "1.0/13000/91900", "tf32=on" },
        { "fake:0 Simulated H100", "1.1/13000/91900", "tf32=on" },
        { "fake:0 Simulated H100", "1.0/13000/91900", "tf32=off" },
    };
    for (const auto& identity : others) {
        CountingTimer timer(h100(), identity);
        MeasuredStageCost m(timer, "fake:0", h100(), &store);
        runScheduler("ios", g1, m);
        EXPECT_EQ(timer.stages, first) << identity.device << " " << identity.driver << " " << identity.options;
    }
    // Same identity, other batch: measured again.
    const Graph g8 = loadModel("zoo:squeezenet", 8);
    CountingTimer timer(h100());
    MeasuredStageCost m(timer, "fake:0", h100(), &store);
    runScheduler("ios", g8, m);
    EXPECT_GT(timer.stages, 0U);
    // ...and batch 1 again: nothing.
    CountingTimer timer1(h100());
    MeasuredStageCost m1(timer1, "fake:0", h100(), &store);
    runScheduler("ios", g1, m1);
    EXPECT_EQ(timer1.stages, 0U);
}

TEST(MeasuredStageCost, OpsAloneAreCachedByStructureAndGiveTheFloor)
{
    const Graph g = loadModel("zoo:nasnet_a", 1);
    CountingTimer timer(h100());
    MeasuredStageCost m(timer, "fake:0", h100());
    const auto ops = m.opLatencies(g);
    ASSERT_EQ(ops.size(), g.opCount());
    // Identical ops of repeated cells are timed once.
    std::set<std::string> distinct;
    for (const auto& op : g.ops())
        distinct.insert(opSignature(g, op.id));
    EXPECT_EQ(timer.ops, distinct.size());
    EXPECT_LT(timer.ops, g.opCount() / 2);

    // The floor lies below every schedule's latency and above zero.
    const double floor = criticalPath(g, ops).seconds;
    EXPECT_GT(floor, 0);
    SimulatedStageCost sim(h100());
    for (const char* scheduler : { "sequential", "ios", "nimble", "opara" }) {
        const auto out = runScheduler(scheduler, g, sim);
        const PlanTiming t = m.planLatency(g, out.plan, 5);
        EXPECT_EQ(t.samples.size(), 5U);
        EXPECT_LE(floor, t.seconds.median) << scheduler;
    }
    EXPECT_EQ(timer.plans, 4U);
}

TEST(MeasuredStageCost, DeviceModelAndNameAreWhatItWasGiven)
{
    CountingTimer timer(h100());
    MeasuredStageCost m(timer, "cuda:3", closestSimDevice("NVIDIA H100 80GB HBM3", 132));
    EXPECT_EQ(m.deviceName(), "cuda:3");
    EXPECT_EQ(m.deviceModel().name, "h100");
    EXPECT_EQ(timerKey(m.identity()), "measured|fake:0 Simulated H100|1.0/13000/91900|tf32=on");
}

// A timer that returns garbage is reported, not cached.
class BrokenTimer : public CountingTimer {
public:
    BrokenTimer()
        : CountingTimer(findSimDevice("sim:h100"))
    {
    }
    double timeStage(const Graph&, const Stage&) override { return -1; }
};

TEST(MeasuredStageCost, AnInvalidMeasurementIsAnErrorNotAnEntry)
{
    const Graph g = loadModel("zoo:squeezenet", 1);
    BrokenTimer timer;
    MemoryCostStore store;
    MeasuredStageCost m(timer, "fake:0", h100(), &store);
    EXPECT_THROW(runScheduler("ios", g, m), Error);
    m.flush();
    EXPECT_EQ(store.size(), 0U);
}

} // namespace
} // namespace opsched
