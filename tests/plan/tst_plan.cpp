#include "model/model_ref.h"
#include "plan/plan.h"
#include "schedule/basic_schedulers.h"
#include "support/schedule_test_support.h"
#include "zoo/net_builder.h"

#include <gtest/gtest.h>

using namespace opsched;
using opsched::test::id;
using opsched::test::mentions;

namespace {

// x -> a -> b, x -> c (independent of a, b), then d = concat(b, c).
Graph fork()
{
    zoo::NetBuilder b("fork", 1);
    const auto x = b.input("x", Shape { 1, 8, 8, 8 });
    const auto a = b.conv("a", { { x } }, 8, 1);
    const auto bb = b.conv("b", { { a } }, 8, 1);
    const auto c = b.conv("c", { { x } }, 8, 3, 1, 1);
    b.combine("d", { { bb }, { c } });
    return std::move(b).finish();
}

Launch launch(const Graph& g, const char* op, std::uint32_t stream, std::vector<std::uint32_t> waits = {})
{
    return Launch { { id(g, op) }, StreamId(stream), std::move(waits) };
}

TEST(Plan, TwoStreamsWithEventsAreValid)
{
    const Graph g = fork();
    Plan p;
    p.streams = 2;
    p.launches = { launch(g, "a", 0), launch(g, "c", 1), launch(g, "b", 0), launch(g, "d", 0, { 1 }) };
    EXPECT_TRUE(validate(g, p).empty()) << validate(g, p).front();
    EXPECT_EQ(p.waitCount(), 1U);
}

TEST(Plan, MissingEventIsReported)
{
    const Graph g = fork();
    Plan p;
    p.streams = 2;
    p.launches = { launch(g, "a", 0), launch(g, "c", 1), launch(g, "b", 0), launch(g, "d", 0) };
    EXPECT_TRUE(mentions(validate(g, p), "dependency 'c' -> 'd' is not enforced"));
}

TEST(Plan, WaitsAreTransitive)
{
    // d waits for b on stream 1; b itself waited for c on stream 2: so d is after c too.
    const Graph g = fork();
    Plan p;
    p.streams = 3;
    p.launches = { launch(g, "a", 0), launch(g, "c", 2), launch(g, "b", 1, { 0, 1 }), launch(g, "d", 0, { 2 }) };
    EXPECT_TRUE(validate(g, p).empty()) << validate(g, p).front();
}

TEST(Plan, BarriersOrderEverything)
{
    const Graph g = fork();
    Plan p;
    p.streams = 2;
    p.launches = { launch(g, "a", 0), launch(g, "c", 1), launch(g, "b", 1), launch(g, "d", 1) };
    EXPECT_TRUE(mentions(validate(g, p), "'a' -> 'b' is not enforced")); // b on stream 1 does not wait for a
    p.barriers = { 2 }; // b and d start after a and c have ended
    EXPECT_TRUE(validate(g, p).empty()) << validate(g, p).front();
}

TEST(Plan, StructuralProblems)
{
    const Graph g = fork();
    Plan p;
    p.streams = 2;
    p.launches = { launch(g, "a", 0), launch(g, "a", 1), launch(g, "b", 5), launch(g, "d", 0, { 3 }),
        launch(g, "c", 0, { 0 }) };
    p.barriers = { 9 };
    const auto problems = validate(g, p);
    EXPECT_TRUE(mentions(problems, "'a' is launched more than once"));
    EXPECT_TRUE(mentions(problems, "uses stream 5 of 2"));
    EXPECT_TRUE(mentions(problems, "waits for launch 3, which is not earlier"));
    EXPECT_TRUE(mentions(problems, "on its own stream"));
    EXPECT_TRUE(mentions(problems, "barrier at launch 9 is out of range"));

    Plan missing;
    missing.launches = { launch(g, "a", 0) };
    EXPECT_TRUE(mentions(validate(g, missing), "'d' is never launched"));
}

TEST(Plan, CompiledSchedulesAreValid)
{
    for (const char* model : { "zoo:inception_v3", "zoo:nasnet_a", "zoo:squeezenet", "zoo:random?ops=40&width=5" }) {
        const Graph g = loadModel(model);
        for (const Schedule& s : { sequentialSchedule(g), greedySchedule(g, 8), greedySchedule(g, 3) }) {
            const Plan p = compileSchedule(g, s);
            EXPECT_TRUE(validate(g, p).empty()) << model;
            EXPECT_EQ(p.launches.size(), g.opCount());
            EXPECT_EQ(p.barriers.size(), s.stages.size() - 1);
            EXPECT_EQ(p.waitCount(), 0U); // stage schedules synchronise with barriers only
        }
    }
}

TEST(Plan, CompileRoundRobinsGroupsAndMergesMergeStages)
{
    const Graph g = fork();
    const Schedule s { { Stage { StageStrategy::Concurrent, { { id(g, "a"), id(g, "b") }, { id(g, "c") } } },
        Stage { StageStrategy::Concurrent, { { id(g, "d") } } } } };
    const Plan p = compileSchedule(g, s);
    ASSERT_EQ(p.launches.size(), 4U);
    EXPECT_EQ(p.launches[0].ops.front(), id(g, "a"));
    EXPECT_EQ(p.launches[1].ops.front(), id(g, "c")); // the second stream gets work early
    EXPECT_EQ(p.launches[1].stream, StreamId(1U));
    EXPECT_EQ(p.launches[2].ops.front(), id(g, "b"));
    EXPECT_EQ(p.barriers, std::vector<std::uint32_t> { 3 });
    EXPECT_EQ(p.streams, 2U);

    zoo::NetBuilder b("merge", 1);
    const auto x = b.input("x", Shape { 1, 8, 8, 8 });
    const auto m1 = b.conv("m1", { { x } }, 8, 1);
    const auto m2 = b.conv("m2", { { x } }, 16, 3, 1, 1);
    b.combine("cat", { { m1 }, { m2 } });
    const Graph mg = std::move(b).finish();
    const Schedule ms { { Stage { StageStrategy::Merge, { { id(mg, "m1") }, { id(mg, "m2") } } },
        Stage { StageStrategy::Concurrent, { { id(mg, "cat") } } } } };
    const Plan mp = compileSchedule(mg, ms);
    ASSERT_EQ(mp.launches.size(), 2U);
    EXPECT_TRUE(mp.launches[0].merged());
    EXPECT_TRUE(validate(mg, mp).empty()) << validate(mg, mp).front();
}

} // namespace
