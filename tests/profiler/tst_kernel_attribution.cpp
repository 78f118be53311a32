// Kernel -> launch -> op attribution and stage spans over synthetic CUPTI-like records, and the
// conversion of collected records into the store's (runs everywhere: no GPU involved).
#include "cupti/cupti_collector.h"
#include "session/kernel_attribution.h"

#include <gtest/gtest.h>

namespace opsched {
namespace {

namespace cupti = profiler::cupti;
using profiler::attributeKernels;
using profiler::externalIdOfLaunch;
using profiler::launchOfExternalId;
using profiler::stageSpans;

// Three launches on two streams: op 0 alone, ops 1+2 merged, op 3 alone.
Plan threeLaunchPlan()
{
    Plan p;
    p.streams = 2;
    p.launches = { { { OpId(0) }, StreamId(0), {} }, { { OpId(1), OpId(2) }, StreamId(1), {} },
        { { OpId(3) }, StreamId(0), { 1 } } };
    return p;
}

cupti::CollectedKernel kernel(std::uint64_t start, std::uint64_t end, std::optional<std::uint64_t> externalId,
    std::uint32_t correlation, std::uint32_t stream = 7)
{
    cupti::CollectedKernel k;
    k.start = start;
    k.end = end;
    k.externalId = externalId;
    k.correlationId = correlation;
    k.streamId = stream;
    k.gridX = 4;
    k.gridY = 2;
    k.gridZ = 1;
    k.blockX = 40; // two warps per block (40 threads round up)
    k.blockY = 1;
    k.blockZ = 1;
    k.demangledName = "void conv_kernel<float>(float*)";
    k.shortName = "conv_kernel";
    return k;
}

TEST(KernelAttribution, ExternalIdsRoundTripAndRejectWhatIsNotAPlanLaunch)
{
    for (std::size_t launch : { 0u, 1u, 41u })
        EXPECT_EQ(launchOfExternalId(externalIdOfLaunch(launch), 42), static_cast<std::int64_t>(launch));
    EXPECT_NE(externalIdOfLaunch(0), 0U) << "0 must stay free: CUPTI users read it as 'no id'";
    EXPECT_FALSE(launchOfExternalId(std::nullopt, 42));
    EXPECT_FALSE(launchOfExternalId(0, 42));
    EXPECT_FALSE(launchOfExternalId(43, 42)) << "past the last launch";
    EXPECT_TRUE(launchOfExternalId(42, 42));
}

TEST(KernelAttribution, CollectedKernelsBecomeRecordsTiedToLaunchesOpsAndParts)
{
    const Plan plan = threeLaunchPlan();
    cupti::Collection c;
    c.kernelsCollected = true;
    c.startNs = 1'000'000;
    // Out of order, as CUPTI buffers may deliver them; launch 1 runs two kernels (e.g. cuDNN's).
    c.kernels = { kernel(1'000'900, 1'001'000, externalIdOfLaunch(2), 30),
        kernel(1'000'100, 1'000'300, externalIdOfLaunch(0), 10),
        kernel(1'000'500, 1'000'700, externalIdOfLaunch(1), 21, 8),
        kernel(1'000'200, 1'000'450, externalIdOfLaunch(1), 20, 8), kernel(1'000'800, 1'000'850, std::nullopt, 99) };
    store::RunRecord run;
    cupti::fillRun(run, c,
        [&](const cupti::CollectedKernel& k) { return launchOfExternalId(k.externalId, plan.launches.size()); });
    ASSERT_EQ(run.kernels.size(), 5U);
    EXPECT_EQ(attributeKernels(run.kernels, plan), 1U) << "the kernel without an id is not the plan's";

    // Sorted by start, times relative to the collection start.
    std::vector<std::int64_t> starts;
    for (const auto& k : run.kernels)
        starts.push_back(k.start);
    EXPECT_EQ(starts, (std::vector<std::int64_t> { 100, 200, 500, 800, 900 }));

    const auto& first = run.kernels[0];
    EXPECT_EQ(first.launchId, 0);
    EXPECT_EQ(first.opId, 0);
    EXPECT_EQ(first.part, 0);
    EXPECT_EQ(first.end, 300);
    EXPECT_EQ(first.correlationId, 10);
    EXPECT_EQ(first.streamId, 7);
    EXPECT_EQ(first.gridX, 4);
    EXPECT_EQ(first.blockX, 40);
    EXPECT_EQ(first.shortName, "conv_kernel");
    EXPECT_DOUBLE_EQ(*first.warps, 4.0 * 2 * 2);

    // The merged launch names its first op; its kernels are parts 0 and 1 in start order.
    EXPECT_EQ(run.kernels[1].launchId, 1);
    EXPECT_EQ(run.kernels[1].opId, 1);
    EXPECT_EQ(run.kernels[1].part, 0);
    EXPECT_EQ(run.kernels[1].correlationId, 20);
    EXPECT_EQ(run.kernels[2].part, 1);
    EXPECT_EQ(run.kernels[2].streamId, 8);

    EXPECT_FALSE(run.kernels[3].launchId);
    EXPECT_FALSE(run.kernels[3].opId);
    EXPECT_EQ(run.kernels[4].launchId, 2);
    EXPECT_EQ(run.kernels[4].opId, 3);
}

TEST(KernelAttribution, LaunchIdsOutsideThePlanAreDropped)
{
    std::vector<store::KernelRecord> kernels(2);
    kernels[0].launchId = 5;
    kernels[0].opId = 9;
    kernels[1].launchId = -1;
    EXPECT_EQ(attributeKernels(kernels, threeLaunchPlan()), 2U);
    for (const auto& k : kernels) {
        EXPECT_FALSE(k.launchId);
        EXPECT_FALSE(k.opId);
    }
}

TEST(KernelAttribution, StagesSpanTheirOpsKernelsAndSkipStagesWithoutKernels)
{
    const Plan plan = threeLaunchPlan();
    Schedule schedule;
    schedule.stages = { Stage { StageStrategy::Concurrent, { { OpId(0) }, { OpId(1), OpId(2) } } },
        Stage { StageStrategy::Concurrent, { { OpId(4) } } }, // ran no kernel: a zero-copy view
        Stage { StageStrategy::Concurrent, { { OpId(3) } } } };
    std::vector<store::KernelRecord> kernels(5);
    const std::int64_t times[][3] = { { 0, 100, 300 }, { 1, 200, 450 }, { 1, 500, 700 }, { 2, 900, 1000 } };
    for (std::size_t i = 0; i < 4; ++i) {
        kernels[i].launchId = times[i][0];
        kernels[i].start = times[i][1];
        kernels[i].end = times[i][2];
    }
    kernels[4].start = 0; // unattributed: ignored
    kernels[4].end = 5000;
    const auto spans = stageSpans(kernels, plan, schedule);
    ASSERT_EQ(spans.size(), 2U);
    EXPECT_EQ(spans[0].stage, 0U);
    EXPECT_EQ(spans[0].startNs, 100);
    EXPECT_EQ(spans[0].endNs, 700);
    EXPECT_EQ(spans[1].stage, 2U);
    EXPECT_EQ(spans[1].startNs, 900);
    EXPECT_EQ(spans[1].endNs, 1000);
}

} // namespace
} // namespace opsched
