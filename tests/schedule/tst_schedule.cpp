#include "model/model_ref.h"
#include "plan/schedule.h"
#include "schedule/basic_schedulers.h"
#include "support/schedule_test_support.h"
#include "zoo/net_builder.h"

#include <gtest/gtest.h>

using namespace opsched;
using opsched::test::id;
using opsched::test::mentions;

namespace {

// a -> b, a -> c, b -> d, c -> d, plus e independent; b and c are mergeable 1x1 / 3x3 "same" convs.
Graph diamond()
{
    zoo::NetBuilder b("diamond", 1);
    const auto x = b.input("x", Shape { 1, 8, 16, 16 });
    const auto a = b.conv("a", { { x } }, 8, 1);
    const auto bb = b.conv("b", { { a } }, 8, 1);
    const auto c = b.conv("c", { { a } }, 8, 3, 1, 1);
    b.combine("d", { { bb }, { c } });
    b.conv("e", { { x } }, 8, 3, 2, 1);
    return std::move(b).finish();
}

TEST(Schedule, SequentialAndGreedyAreValid)
{
    const Graph g = diamond();
    EXPECT_TRUE(validate(g, sequentialSchedule(g)).empty());
    EXPECT_TRUE(validate(g, greedySchedule(g)).empty());
}

TEST(Schedule, ConcurrentStagesWithChainsInAGroupAreValid)
{
    const Graph g = diamond();
    Schedule s { { Stage { StageStrategy::Concurrent, { { id(g, "a"), id(g, "b") }, { id(g, "e") } } },
        Stage { StageStrategy::Concurrent, { { id(g, "c") } } },
        Stage { StageStrategy::Concurrent, { { id(g, "d") } } } } };
    EXPECT_TRUE(validate(g, s).empty());
}

TEST(Schedule, ReportsMissingAndDuplicateOps)
{
    const Graph g = diamond();
    Schedule s { { Stage { StageStrategy::Concurrent, { { id(g, "a") }, { id(g, "a") } } } } };
    const auto problems = validate(g, s);
    EXPECT_TRUE(mentions(problems, "'a' is scheduled more than once"));
    EXPECT_TRUE(mentions(problems, "'d' is not scheduled"));
}

TEST(Schedule, ReportsBackwardDependencies)
{
    const Graph g = diamond();
    Schedule s = sequentialSchedule(g);
    std::swap(s.stages[0], s.stages[1]); // b before a
    EXPECT_TRUE(mentions(validate(g, s), "dependency 'a' -> 'b' runs backwards"));
}

TEST(Schedule, DependentOpsInOneStageMustShareAGroup)
{
    const Graph g = diamond();
    Schedule s { { Stage { StageStrategy::Concurrent, { { id(g, "a") }, { id(g, "b") }, { id(g, "e") } } },
        Stage { StageStrategy::Concurrent, { { id(g, "c") } } },
        Stage { StageStrategy::Concurrent, { { id(g, "d") } } } } };
    EXPECT_TRUE(mentions(validate(g, s), "joins two groups"));
}

TEST(Schedule, BackwardsInsideAGroup)
{
    const Graph g = diamond();
    Schedule s { { Stage { StageStrategy::Concurrent, { { id(g, "b"), id(g, "a") }, { id(g, "e") } } },
        Stage { StageStrategy::Concurrent, { { id(g, "c") } } },
        Stage { StageStrategy::Concurrent, { { id(g, "d") } } } } };
    EXPECT_TRUE(mentions(validate(g, s), "runs backwards inside its group"));
}

TEST(Schedule, MergeStagesAcceptOnlyMergeableConvs)
{
    const Graph g = diamond();
    Schedule ok { { Stage { StageStrategy::Concurrent, { { id(g, "a") }, { id(g, "e") } } },
        Stage { StageStrategy::Merge, { { id(g, "b") }, { id(g, "c") } } },
        Stage { StageStrategy::Concurrent, { { id(g, "d") } } } } };
    EXPECT_TRUE(validate(g, ok).empty()) << validate(g, ok).front();

    // a and e read the same input but e has stride 2.
    Schedule bad { { Stage { StageStrategy::Merge, { { id(g, "a") }, { id(g, "e") } } },
        Stage { StageStrategy::Concurrent, { { id(g, "b") }, { id(g, "c") } } },
        Stage { StageStrategy::Concurrent, { { id(g, "d") } } } } };
    EXPECT_TRUE(mentions(validate(g, bad), "another stride"));

    EXPECT_NE(mergeProblem(g, { id(g, "b"), id(g, "d") }).find("not a plain convolution"), std::string::npos);
    EXPECT_NE(mergeProblem(g, { id(g, "b") }).find("at least two"), std::string::npos);
}

TEST(Schedule, GreedyPutsAllReadyOpsInOneStageUpToTheCap)
{
    const Graph g = loadModel("zoo:inception_v3");
    const Schedule s = greedySchedule(g, 8);
    ASSERT_TRUE(validate(g, s).empty());
    // Mixed_5b's four branches start together after the stem.
    bool sawFourWide = false;
    for (const auto& stage : s.stages) {
        EXPECT_LE(stage.groups.size(), 8U);
        for (const auto& group : stage.groups)
            EXPECT_EQ(group.size(), 1U);
        sawFourWide = sawFourWide || stage.groups.size() >= 4;
    }
    EXPECT_TRUE(sawFourWide);
    EXPECT_LT(s.stages.size(), g.opCount());

    const Schedule capped = greedySchedule(g, 2);
    EXPECT_TRUE(validate(g, capped).empty());
    for (const auto& stage : capped.stages)
        EXPECT_LE(stage.groups.size(), 2U);
    EXPECT_GT(capped.stages.size(), s.stages.size());
}

} // namespace
