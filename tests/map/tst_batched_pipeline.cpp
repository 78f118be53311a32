// The batch objective (Table V as measured): a pipeline mapping timed on L inputs in batches of g,
// checked against makespans worked out by hand, against the steady state it must approach and never
// beat, and the per-input problem the mappers optimise (costs and edge bytes per input, memory of a
// batch in flight).
#include "map/solvers/batched_pipeline.h"
#include "map/solvers/pipeline_mapper.h"
#include "util/error.h"

#include <gtest/gtest.h>

using namespace opsched;
using namespace opsched::map;

namespace {

// a -> b on two devices, costs for a batch of 2: a 1 ms on d0 (3 ms on d1), b 2 ms on d1 (1.5 ms on
// d0); a's result for the batch is 2 MB; link 1 GB/s and 0.1 ms: 2.1 ms per batch.
MappingProblem chainAtBatchOfTwo()
{
    MappingProblem p;
    p.devices = { { "d0" }, { "d1" } };
    p.links.assign(2, std::vector<Link>(2));
    p.links[0][1] = p.links[1][0] = { 1e9, 1e-4 };
    MapTask a { "a", { 1e-3, 3e-3 }, 0, 2e6, 0 };
    MapTask b { "b", { 1.5e-3, 2e-3 }, 2e6, 2e6, 0 };
    p.tasks = { a, b };
    p.dag = Dag::fromEdges(2, { { 0, 1 } });
    return p;
}

} // namespace

TEST(BatchedPipeline, PerInputProblemDividesCostsAndKeepsABatchResident)
{
    MappingProblem atBatch = chainAtBatchOfTwo();
    atBatch.tasks[0].weightBytes = 5e6;
    const MappingProblem per = perInputProblem(atBatch, 2);
    EXPECT_DOUBLE_EQ(per.tasks[0].seconds[0], 0.5e-3);
    EXPECT_DOUBLE_EQ(per.tasks[1].seconds[1], 1e-3);
    EXPECT_DOUBLE_EQ(per.tasks[0].outputBytes, 1e6); // what an edge carries per input
    for (std::size_t t = 0; t < 2; ++t)
        EXPECT_DOUBLE_EQ(per.tasks[t].memoryBytes(), atBatch.tasks[t].memoryBytes()) << t;
    EXPECT_THROW(perInputProblem(atBatch, 0), Error);
}

TEST(BatchedPipeline, TwoDevicesOverlapBatchesAsWorkedOutByHand)
{
    const MappingProblem atBatch = chainAtBatchOfTwo();
    const MappingProblem per = perInputProblem(atBatch, 2);
    const ThroughputProblem batched = batchedPipelineProblem(atBatch, 4, 2);
    // a1 [0, 1], a2 [1, 2]; b1 waits for a1's batch to arrive (1 + 2.1) and runs [3.1, 5.1]; b2's
    // batch is there at 4.1 but d1 is busy until 5.1: [5.1, 7.1].
    const BatchedRun split = evaluateBatchedPipeline(batched, per, { 0, 1 });
    ASSERT_TRUE(split.feasible) << split.problem;
    EXPECT_NEAR(split.makespan, 7.1e-3, 1e-12);
    EXPECT_NEAR(split.throughput, 4 / 7.1e-3, 1e-6);
    EXPECT_EQ(split.transfers, 2U);
    // Per input in steady state: d0 0.5 ms, d1 1 ms, the link 1 ms (1 MB at 1 GB/s).
    EXPECT_NEAR(split.steadyPeriod, 1e-3, 1e-12);
    // On d0 alone: a's two batches, then b's, 2 x 1 + 2 x 1.5 ms, nothing sent.
    const BatchedRun alone = evaluateBatchedPipeline(batched, per, { 0, 0 });
    ASSERT_TRUE(alone.feasible);
    EXPECT_NEAR(alone.makespan, 5e-3, 1e-12);
    EXPECT_EQ(alone.transfers, 0U);
}

TEST(BatchedPipeline, ManyBatchesApproachTheSteadyStateWithoutBeatingIt)
{
    const MappingProblem atBatch = chainAtBatchOfTwo();
    const MappingProblem per = perInputProblem(atBatch, 2);
    double previous = 0;
    for (std::int64_t inputs : { 4, 40, 400 }) {
        const BatchedRun run = evaluateBatchedPipeline(batchedPipelineProblem(atBatch, inputs, 2), per, { 0, 1 });
        ASSERT_TRUE(run.feasible);
        const double steady = 1 / run.steadyPeriod;
        EXPECT_LE(run.throughput, steady * (1 + 1e-9)) << inputs;
        EXPECT_GT(run.throughput, previous) << inputs; // fill and drain weigh less
        previous = run.throughput;
    }
    EXPECT_GT(previous, 0.98 / 1e-3);
}

TEST(BatchedPipeline, RefusesBadBatchesAndMappingsThatDoNotFit)
{
    MappingProblem atBatch = chainAtBatchOfTwo();
    EXPECT_THROW(batchedPipelineProblem(atBatch, 5, 2), Error); // 5 inputs in batches of 2
    EXPECT_THROW(batchedPipelineProblem(atBatch, 1, 2), Error);
    atBatch.devices[1].memoryBytes = 1e6; // b's batch needs 4 MB
    const MappingProblem per = perInputProblem(atBatch, 2);
    const BatchedRun run = evaluateBatchedPipeline(batchedPipelineProblem(atBatch, 4, 2), per, { 0, 1 });
    EXPECT_FALSE(run.feasible);
    EXPECT_NE(run.problem.find("d1"), std::string::npos) << run.problem;
}

TEST(BatchedPipeline, BatchesFlowThroughADevicesOpsLikeAPipeline)
{
    // a -> b on d0, c -> d on d1, 1 ms a batch each, free transfers, 4 batches of 1. Batch by batch
    // d1 starts at 2 ms and ends at 10 ms; op by op (a's four batches, then b's) it could not start
    // before 5 ms and would end at 13 ms.
    MappingProblem atBatch;
    atBatch.devices = { { "d0" }, { "d1" } };
    atBatch.links.assign(2, std::vector<Link>(2));
    atBatch.links[0][1] = atBatch.links[1][0] = { 1e12, 0 };
    for (const char* name : { "a", "b", "c", "d" })
        atBatch.tasks.push_back({ name, { 1e-3, 1e-3 }, 0, 0, 0 });
    atBatch.dag = Dag::fromEdges(4, { { 0, 1 }, { 1, 2 }, { 2, 3 } });
    const BatchedRun run
        = evaluateBatchedPipeline(batchedPipelineProblem(atBatch, 4, 1), perInputProblem(atBatch, 1), { 0, 0, 1, 1 });
    ASSERT_TRUE(run.feasible);
    EXPECT_NE(run.order, "op by op");
    EXPECT_NEAR(run.makespan, 10e-3, 1e-12);
}
