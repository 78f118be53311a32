#include "model/model_ref.h"
#include "plan/schedule_edit.h"
#include "schedule/basic_schedulers.h"
#include "util/error.h"

#include <gtest/gtest.h>

using namespace opsched;

namespace {

OpId id(const Graph& g, const char* name)
{
    return *g.findOp(name);
}

TEST(ScheduleEdit, MovingIntoAnotherStageKeepsEverythingAndDropsEmptyStages)
{
    const Graph g = loadModel("zoo:squeezenet");
    const Schedule seq = sequentialSchedule(g);
    // fire2.expand1x1 joins fire2.expand3x3's stage as a second group: still valid, one stage fewer.
    const auto e3 = findOp(seq, id(g, "fire2.expand3x3"));
    ASSERT_TRUE(e3);
    const Schedule edited = moveOp(seq, id(g, "fire2.expand1x1"), e3->stage, 1, 0);
    EXPECT_EQ(edited.stages.size(), seq.stages.size() - 1);
    EXPECT_EQ(edited.opCount(), g.opCount());
    EXPECT_EQ(edited.stages[e3->stage].groups.size(), 2U);
    EXPECT_TRUE(validate(g, edited).empty());
}

TEST(ScheduleEdit, AnInvalidEditIsReportedByValidate)
{
    const Graph g = loadModel("zoo:squeezenet");
    const Schedule seq = sequentialSchedule(g);
    // conv1 after maxpool1: a dependency runs backwards.
    const Schedule bad = moveOp(seq, id(g, "conv1"), 1, 1, 0);
    EXPECT_EQ(bad.opCount(), g.opCount());
    EXPECT_FALSE(validate(g, bad).empty());
}

TEST(ScheduleEdit, ReorderWithinAGroup)
{
    const Graph g = loadModel("zoo:squeezenet");
    Schedule s = sequentialSchedule(g);
    s = moveOp(s, id(g, "fire2.bypass"), 2, 0, 1); // stage 2 is fire2.squeeze: [squeeze, bypass]
    ASSERT_EQ(s.stages[2].groups[0].size(), 2U);
    const Schedule swapped = moveOp(s, id(g, "fire2.squeeze"), 2, 0, 2); // to the end of its group
    EXPECT_EQ(swapped.stages[2].groups[0].front(), id(g, "fire2.bypass"));
    EXPECT_EQ(swapped.stages[2].groups[0].back(), id(g, "fire2.squeeze"));
}

TEST(ScheduleEdit, NewStagesAndStrategies)
{
    const Graph g = loadModel("zoo:googlenet");
    const Schedule greedy = greedySchedule(g);
    const auto place = findOp(greedy, id(g, "inception3a.branch1"));
    ASSERT_TRUE(place);
    const Schedule split = moveOpToNewStage(greedy, id(g, "inception3a.branch1"), place->stage + 1);
    EXPECT_EQ(split.stages.size(), greedy.stages.size() + 1);
    EXPECT_TRUE(validate(g, split).empty());
    const Schedule atEnd = moveOp(greedy, id(g, "fc"), greedy.stages.size(), 0, 0);
    EXPECT_EQ(atEnd.stages.size(), greedy.stages.size()); // fc alone: its old stage vanished
    const Schedule merged = setStrategy(greedy, 0, StageStrategy::Merge);
    EXPECT_EQ(merged.stages[0].strategy, StageStrategy::Merge);
}

TEST(ScheduleEdit, BadIndicesThrow)
{
    const Graph g = loadModel("zoo:squeezenet");
    const Schedule seq = sequentialSchedule(g);
    EXPECT_THROW(moveOp(seq, id(g, "conv1"), 999, 0, 0), Error);
    EXPECT_THROW(moveOp(seq, id(g, "conv1"), 0, 5, 0), Error);
    EXPECT_THROW(moveOp(Schedule {}, id(g, "conv1"), 0, 0, 0), Error);
    EXPECT_THROW(setStrategy(seq, 999, StageStrategy::Merge), Error);
}

} // namespace
