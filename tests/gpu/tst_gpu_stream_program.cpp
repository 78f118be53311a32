// The stream program of a plan (host side of the CUDA executor): every dependency ordered by
// stream order or events, events only across streams, barriers as fork/join through stream 0,
// and no ordering the plan did not ask for. Needs no GPU.
#include "exec/cuda/stream_program.h"
#include "gpu_plan_cases.h"
#include "schedule/basic_schedulers.h"
#include "util/error.h"
#include "zoo/net_builder.h"

#include <gtest/gtest.h>

using namespace opsched;
using namespace opsched::gpu;

namespace {

// Two independent chains a1 -> a2 and b1 -> b2 reading one input, then c joining them.
Graph twoChains()
{
    zoo::NetBuilder nb("two_chains", 3);
    const TensorId x = nb.input("x", Shape { 1, 4, 8, 8 });
    const TensorId a1 = nb.conv("a1", { { x } }, 4, 3, 1, 1);
    const TensorId a2 = nb.conv("a2", { { a1 } }, 4, 3, 1, 1);
    const TensorId b1 = nb.conv("b1", { { x } }, 4, 3, 1, 1);
    const TensorId b2 = nb.conv("b2", { { b1 } }, 4, 3, 1, 1);
    nb.combine("c", { { a2 }, { b2 } });
    return std::move(nb).finish();
}

OpId op(const Graph& g, const char* name)
{
    return *g.findOp(name);
}

// The two chains on two streams, c (on stream 0) waiting for b2 (on stream 1).
Plan chainsOnTwoStreams(const Graph& g)
{
    Plan plan;
    plan.streams = 2;
    plan.launches = { { { op(g, "a1") }, StreamId(0U), {} }, { { op(g, "b1") }, StreamId(1U), {} },
        { { op(g, "a2") }, StreamId(0U), {} }, { { op(g, "b2") }, StreamId(1U), {} },
        { { op(g, "c") }, StreamId(0U), { 3 } } };
    return plan;
}

class ProgramOnPlans : public ::testing::TestWithParam<test::PlanCase> { };

TEST_P(ProgramOnPlans, OrdersEveryDependencyAndNothingMoreThanThePlan)
{
    const auto& c = GetParam();
    const Graph g = loadModel(c.model, c.batch);
    const Plan plan = test::planFor(g, c.scheduler);
    const StreamProgram program = buildStreamProgram(g, plan);
    const auto problems = programProblems(program, plan);
    ASSERT_TRUE(problems.empty()) << problems.size() << " problems, first: " << problems.front();

    // The program orders exactly what the plan orders: all of its happens-before (so every graph
    // dependency, as validate checked on the plan), and no more (no hidden serialisation).
    const auto want = launchHappensBefore(plan);
    const auto got = programHappensBefore(program, plan.launches.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        DynamicBitset missing = want[i], extra = got[i];
        missing.subtract(got[i]);
        extra.subtract(want[i]);
        EXPECT_TRUE(missing.none()) << "launch " << i << " may start before " << missing.count()
                                    << " launches it must follow";
        EXPECT_TRUE(extra.none()) << "launch " << i << " is ordered after " << extra.count()
                                  << " launches the plan leaves free";
    }
    // Events: one per waited-on launch and per fork/join, never more waits than the plan's plus
    // two per stream and segment.
    const std::size_t segments = plan.barriers.size() + 1;
    EXPECT_LE(program.count(StreamOpKind::Wait), plan.waitCount() + 2 * segments * (plan.streams - 1));
    if (plan.streams == 1) {
        EXPECT_EQ(program.events, 0U) << "one stream needs no event";
    }
}

INSTANTIATE_TEST_SUITE_P(Schedulers, ProgramOnPlans, ::testing::ValuesIn(test::planCases()),
    [](const auto& param) { return test::caseName(param.param); });

TEST(StreamProgram, IndependentLaunchesOnTwoStreamsStayConcurrent)
{
    const Graph g = twoChains();
    const Plan plan = chainsOnTwoStreams(g);
    const StreamProgram program = buildStreamProgram(g, plan);
    EXPECT_TRUE(programProblems(program, plan).empty());
    const auto before = programHappensBefore(program, plan.launches.size());
    EXPECT_FALSE(before[1].test(0)) << "b1 must not wait for a1";
    EXPECT_FALSE(before[3].test(2)) << "b2 must not wait for a2";
    EXPECT_TRUE(before[4].test(3)) << "c waits for b2 through an event";
    EXPECT_TRUE(before[4].test(1));
    // Fork to stream 1, one event for c's wait, one join at the end.
    EXPECT_EQ(program.events, 3U);
    EXPECT_EQ(program.count(StreamOpKind::Wait), 3U);
}

TEST(StreamProgram, BarrierIsAJoinThenAForkThroughStreamZero)
{
    const Graph g = twoChains();
    Plan plan;
    plan.streams = 2;
    plan.launches = { { { op(g, "a1") }, StreamId(0U), {} }, { { op(g, "b1") }, StreamId(1U), {} },
        { { op(g, "a2") }, StreamId(1U), {} }, { { op(g, "b2") }, StreamId(0U), {} },
        { { op(g, "c") }, StreamId(0U), {} } };
    plan.barriers = { 2, 4 };
    const StreamProgram program = buildStreamProgram(g, plan);
    EXPECT_TRUE(programProblems(program, plan).empty());
    const auto before = programHappensBefore(program, plan.launches.size());
    EXPECT_TRUE(before[2].test(0) && before[2].test(1));
    EXPECT_TRUE(before[3].test(0) && before[3].test(1));
    EXPECT_FALSE(before[3].test(2)) << "launches between two barriers stay concurrent";
    EXPECT_TRUE(before[4].test(2) && before[4].test(3));
    // No launch of the program is a device-wide synchronisation: only launches, records, waits.
    EXPECT_EQ(program.count(StreamOpKind::Launch), plan.launches.size());
}

TEST(StreamProgram, SingleStreamPlanIsJustLaunches)
{
    const Graph g = loadModel("zoo:squeezenet");
    const Plan plan = compileSchedule(g, sequentialSchedule(g));
    const StreamProgram program = buildStreamProgram(g, plan);
    EXPECT_EQ(program.ops.size(), plan.launches.size());
    EXPECT_EQ(program.events, 0U);
}

TEST(StreamProgram, ProblemsAreFoundInABrokenProgram)
{
    const Graph g = twoChains();
    const Plan plan = chainsOnTwoStreams(g);
    const StreamProgram good = buildStreamProgram(g, plan);

    StreamProgram noFork = good; // stream 1 starts without waiting on stream 0
    std::erase_if(noFork.ops, [](const StreamOp& o) { return o.kind == StreamOpKind::Wait && o.stream == 1; });
    EXPECT_FALSE(programProblems(noFork, plan).empty());

    StreamProgram noJoin = good; // stream 1's work never reaches stream 0
    std::erase_if(noJoin.ops, [](const StreamOp& o) { return o.kind == StreamOpKind::Wait && o.stream == 0; });
    EXPECT_FALSE(programProblems(noJoin, plan).empty());

    StreamProgram ownStream = good;
    for (auto& o : ownStream.ops)
        if (o.kind == StreamOpKind::Wait && o.stream == 1)
            o.stream = 0; // waits on the stream that recorded it
    EXPECT_FALSE(programProblems(ownStream, plan).empty());

    StreamProgram twice = good;
    twice.ops.push_back({ StreamOpKind::Launch, 0, 0 });
    EXPECT_FALSE(programProblems(twice, plan).empty());
}

// The fault injection behind run --inject-fault skip-waits on CUDA: without the dependency waits
// the program still forks and joins (it captures), but the plan's ordering check sees launches
// that may start before their producers.
TEST(StreamProgram, WithoutDependencyWaitsConsumersMayRunFirst)
{
    const Graph g = twoChains();
    const Plan plan = chainsOnTwoStreams(g);
    const StreamProgram faulty = buildStreamProgram(g, plan, false);
    EXPECT_TRUE(programProblems(faulty, plan).empty()) << "forks and joins stay";
    const auto before = programHappensBefore(faulty, plan.launches.size());
    EXPECT_FALSE(before[4].test(3)) << "c no longer waits for b2";
    const auto want = launchHappensBefore(plan);
    EXPECT_TRUE(want[4].test(3));
    EXPECT_EQ(buildStreamProgram(g, plan).count(StreamOpKind::Wait), faulty.count(StreamOpKind::Wait) + 1);
}

TEST(StreamProgram, RefusesAnInvalidPlan)
{
    const Graph g = twoChains();
    Plan plan;
    plan.streams = 2;
    plan.launches = { { { op(g, "a1") }, StreamId(0U), {} },
        { { op(g, "a2") }, StreamId(1U), {} } }; // a2 not ordered, ops missing
    EXPECT_THROW(buildStreamProgram(g, plan), Error);
}

} // namespace
