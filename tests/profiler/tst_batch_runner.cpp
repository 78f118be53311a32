// The batch runner on the simulated GPU: every job becomes one whole run in the store, complete
// jobs are skipped on resume, failures are recorded and retried, cancellation writes nothing half
// done, and the IOS cost cache fills and answers.
#include "profiler_test_support.h"

#include "session/batch_runner.h"
#include "session/cost_cache.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace opsched {
namespace {

using profiler::BatchRunner;
using profiler::JobEvent;
using profiler::JobOutcome;
using store::OpenMode;
using store::Store;

profiler::ProfileSettings settings(bool warps = true)
{
    profiler::ProfileSettings s;
    s.deviceRef = "sim:h100";
    s.warps = warps;
    s.repeats = 3;
    return s;
}

TEST(BatchRunner, SimulatedRunsFillEveryTable)
{
    test::TempDir dir;
    Store db = Store::open(dir.file("r.db"), OpenMode::ReadWrite);
    profiler::SimulatedBackend backend(findSimDevice("sim:h100"), false);
    BatchRunner runner(db, backend, settings());
    const auto jobs = profiler::expandJobs({ "zoo:squeezenet" }, { "sequential", "ios", "nimble" }, { 1, 2 });
    const auto result = runner.run(jobs);
    EXPECT_TRUE(result.allSucceeded());
    EXPECT_EQ(result.done, 6U);
    ASSERT_EQ(result.runs.size(), 6U);

    for (auto id : result.runs) {
        const auto run = db.loadRun(id);
        SCOPED_TRACE(run.schedule->scheduler + " batch " + std::to_string(run.batch));
        EXPECT_TRUE(run.simulated);
        EXPECT_EQ(run.device.key, "sim:h100");
        EXPECT_EQ(run.latenciesNs.size(), 3U);
        EXPECT_FALSE(run.kernels.empty());
        EXPECT_FALSE(run.warps.empty());
        EXPECT_EQ(run.stages.empty(), run.schedule->scheduler == "nimble") << "Nimble emits a plan, no stages";
        // The stored average is the stored samples' area over the time some kernel ran (the union
        // of the kernels' intervals), as for CUPTI data.
        double area = 0;
        for (const auto& w : run.warps)
            area += w.activeWarps * static_cast<double>(w.durationNs);
        auto spans = run.kernels;
        std::sort(spans.begin(), spans.end(), [](const auto& a, const auto& b) { return a.start < b.start; });
        double busy = 0;
        std::int64_t coveredTo = 0;
        for (const auto& k : spans) {
            busy += static_cast<double>(std::max<std::int64_t>(0, k.end - std::max(k.start, coveredTo)));
            coveredTo = std::max(coveredTo, k.end);
        }
        ASSERT_TRUE(run.averageActiveWarps.has_value());
        EXPECT_NEAR(area / busy, *run.averageActiveWarps, 1e-3 * *run.averageActiveWarps);
        for (const auto& k : run.kernels) {
            EXPECT_LE(k.start, k.end);
            EXPECT_LE(k.end, static_cast<std::int64_t>(std::llround(run.latenciesNs[0])));
        }
    }
}

TEST(BatchRunner, ResumeSkipsCompleteJobs)
{
    test::TempDir dir;
    Store db = Store::open(dir.file("r.db"), OpenMode::ReadWrite);
    profiler::SimulatedBackend backend(findSimDevice("sim:h100"), false);
    const auto jobs
        = profiler::expandJobs({ "zoo:random?ops=12", "zoo:squeezenet" }, { "sequential", "greedy" }, { 1 });
    {
        BatchRunner runner(db, backend, settings());
        EXPECT_EQ(runner.run({ jobs[0], jobs[3] }).done, 2U);
    }
    BatchRunner runner(db, backend, settings());
    std::vector<JobOutcome> outcomes;
    runner.setListener([&](const JobEvent& e) {
        if (e.kind == JobEvent::Kind::Finished)
            outcomes.push_back(e.outcome);
    });
    const auto result = runner.run(jobs);
    EXPECT_EQ(result.skipped, 2U);
    EXPECT_EQ(result.done, 2U);
    EXPECT_EQ(outcomes,
        (std::vector<JobOutcome> { JobOutcome::Skipped, JobOutcome::Done, JobOutcome::Done, JobOutcome::Skipped }));
    EXPECT_EQ(db.runSummaries().size(), 4U);

    // Another --warps setting is another job.
    BatchRunner noWarps(db, backend, settings(false));
    EXPECT_EQ(noWarps.run({ jobs[0] }).done, 1U);
    const auto last = db.loadRun(db.runSummaries().back().id);
    EXPECT_FALSE(last.warpsCollected);
    EXPECT_TRUE(last.warps.empty());
    EXPECT_FALSE(last.averageActiveWarps.has_value());
}

TEST(BatchRunner, FailedJobIsRecordedAndRetried)
{
    test::TempDir dir;
    Store db = Store::open(dir.file("r.db"), OpenMode::ReadWrite);
    profiler::SimulatedBackend backend(findSimDevice("sim:h100"), false);
    auto s = settings();
    s.r = 0; // IOS refuses r = 0: the job fails inside the scheduler
    const std::vector<profiler::ProfileJob> jobs { { "zoo:squeezenet", "ios", 1 },
        { "zoo:squeezenet", "sequential", 1 } };
    for (int attempt = 0; attempt < 2; ++attempt) {
        BatchRunner runner(db, backend, s);
        const auto result = runner.run(jobs);
        EXPECT_EQ(result.failed, 1U);
        EXPECT_EQ(result.done + result.skipped, 1U);
        EXPECT_FALSE(result.allSucceeded());
    }
    const auto runs = db.runSummaries();
    ASSERT_EQ(runs.size(), 3U) << "the failed job ran twice, the good one once";
    EXPECT_EQ(runs[0].status, store::RunStatus::Failed);
    EXPECT_FALSE(runs[0].error.empty());
    EXPECT_EQ(runs[2].status, store::RunStatus::Failed);
}

TEST(BatchRunner, EachModelIsSimulatedAsOnItsOwn)
{
    // The runner keeps one cost model across models; each model's latencies must match a run of
    // that model alone (no per-graph table of an earlier model reused).
    test::TempDir dir;
    Store db = Store::open(dir.file("r.db"), OpenMode::ReadWrite);
    profiler::SimulatedBackend backend(findSimDevice("sim:h100"), false);
    BatchRunner runner(db, backend, settings(false));
    const auto jobs
        = profiler::expandJobs({ "zoo:squeezenet", "zoo:googlenet", "zoo:squeezenet" }, { "ios", "greedy" }, { 1, 2 });
    const auto result = runner.run(jobs);
    EXPECT_EQ(result.done, 8U);
    EXPECT_EQ(result.skipped, 4U);
    for (auto id : result.runs) {
        const auto run = db.loadRun(id);
        const auto alone = test::simulatedRun(run.model.ref, run.schedule->scheduler, run.batch, false);
        EXPECT_EQ(run.latenciesNs[0], alone.latenciesNs[0]) << run.model.ref << " " << run.schedule->scheduler;
    }
}

TEST(BatchRunner, UnknownModelFailsItsJobsOnly)
{
    test::TempDir dir;
    Store db = Store::open(dir.file("r.db"), OpenMode::ReadWrite);
    profiler::SimulatedBackend backend(findSimDevice("sim:h100"), false);
    BatchRunner runner(db, backend, settings());
    const auto result = runner.run(profiler::expandJobs({ "zoo:nothing", "zoo:squeezenet" }, { "sequential" }, { 1 }));
    EXPECT_EQ(result.failed, 1U);
    EXPECT_EQ(result.done, 1U);
    EXPECT_EQ(db.runSummaries().size(), 1U) << "a model that does not load has nothing to record";
}

TEST(BatchRunner, CancelStopsBetweenJobsAndWritesWholeRunsOnly)
{
    test::TempDir dir;
    Store db = Store::open(dir.file("r.db"), OpenMode::ReadWrite);
    profiler::SimulatedBackend backend(findSimDevice("sim:h100"), false);
    BatchRunner runner(db, backend, settings());
    std::atomic<bool> cancel { false };
    runner.setCancelFlag(&cancel);
    runner.setListener([&](const JobEvent& e) {
        if (e.kind == JobEvent::Kind::Finished && e.index == 1)
            cancel = true;
    });
    const auto result
        = runner.run(profiler::expandJobs({ "zoo:squeezenet" }, { "sequential", "greedy", "ios" }, { 1 }));
    EXPECT_TRUE(result.interrupted);
    EXPECT_FALSE(result.allSucceeded());
    EXPECT_EQ(result.done, 2U);
    EXPECT_EQ(db.runSummaries().size(), 2U);
}

TEST(BatchRunner, CancelInsideTheSearchWritesNothingForThatJob)
{
    test::TempDir dir;
    Store db = Store::open(dir.file("r.db"), OpenMode::ReadWrite);
    profiler::SimulatedBackend backend(findSimDevice("sim:h100"), false);
    BatchRunner runner(db, backend, settings());
    std::atomic<bool> cancel { false };
    runner.setCancelFlag(&cancel);
    runner.setListener([&](const JobEvent& e) {
        if (e.kind == JobEvent::Kind::Started)
            cancel = true; // the IOS search sees it after its first part
    });
    const auto result = runner.run({ { "zoo:squeezenet", "ios", 1 } });
    EXPECT_TRUE(result.interrupted);
    EXPECT_EQ(result.done, 0U);
    EXPECT_TRUE(db.runSummaries().empty());
}

TEST(BatchRunner, CostCacheFillsOnceAndAnswersTheSameSearch)
{
    test::TempDir dir;
    Store db = Store::open(dir.file("r.db"), OpenMode::ReadWrite);
    profiler::SimulatedBackend backend(findSimDevice("sim:h100"), false);
    auto s = settings(false);
    s.costCache = true;
    {
        BatchRunner runner(db, backend, s);
        EXPECT_EQ(runner.run({ { "zoo:squeezenet", "ios", 1 } }).done, 1U);
    }
    const auto entries = db.costCacheSize();
    EXPECT_GT(entries, 10U);

    // The same search again, answered from the database: no new entries, the same schedule.
    auto cached = db.loadCostCache("sim:h100", 1);
    EXPECT_EQ(cached.size(), entries);
    SimulatedStageCost inner(findSimDevice("sim:h100"));
    profiler::CachedStageCost cost(inner, cached);
    const Graph graph = loadModel("zoo:squeezenet", 1);
    const auto out = runScheduler("ios", graph, cost);
    EXPECT_EQ(cost.misses(), 0U);
    EXPECT_GT(cost.hits(), 0U);
    SimulatedStageCost plain(findSimDevice("sim:h100"));
    EXPECT_EQ(out.schedule, runScheduler("ios", graph, plain).schedule);
}

TEST(StageSignatures, IdenticalOpsShareASignatureAndWiringMatters)
{
    // Random layered DAGs of identical 3x3 conv units: ops of one level have equal signatures.
    const Graph g = loadModel("zoo:random?ops=12&width=3&seed=2", 1);
    profiler::StageSignatures sig(g);
    std::size_t equalPairs = 0;
    for (std::size_t a = 0; a < g.opCount(); ++a)
        for (std::size_t b = a + 1; b < g.opCount(); ++b)
            if (profiler::opSignature(g, OpId(a)) == profiler::opSignature(g, OpId(b))) {
                ++equalPairs;
                Stage sa { StageStrategy::Concurrent, { { OpId(a) } } };
                Stage sb { StageStrategy::Concurrent, { { OpId(b) } } };
                EXPECT_EQ(sig(sa), sig(sb));
            }
    EXPECT_GT(equalPairs, 0U);
    Stage one { StageStrategy::Concurrent, { { OpId(0) } } };
    Stage merged { StageStrategy::Merge, { { OpId(0) } } };
    EXPECT_NE(sig(one), sig(merged));
}

} // namespace
} // namespace opsched
