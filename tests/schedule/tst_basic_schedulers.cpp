#include "model/model_ref.h"
#include "schedule/basic_schedulers.h"
#include "util/error.h"

#include <gtest/gtest.h>

using namespace opsched;

namespace {

class BasicSchedulersOnZoo : public ::testing::TestWithParam<const char*> { };

TEST_P(BasicSchedulersOnZoo, ProduceValidSchedules)
{
    const Graph g = loadModel(GetParam());
    const Schedule seq = sequentialSchedule(g);
    EXPECT_EQ(seq.stages.size(), g.opCount());
    EXPECT_TRUE(validate(g, seq).empty());
    for (std::size_t cap : { 1U, 3U, 8U, 64U }) {
        const Schedule greedy = greedySchedule(g, cap);
        EXPECT_EQ(greedy.opCount(), g.opCount());
        EXPECT_TRUE(validate(g, greedy).empty()) << "cap " << cap;
    }
    // With a cap of one, greedy degenerates into a sequential schedule.
    EXPECT_EQ(greedySchedule(g, 1).stages.size(), g.opCount());
}

INSTANTIATE_TEST_SUITE_P(Zoo, BasicSchedulersOnZoo,
    ::testing::Values("zoo:inception_v3", "zoo:randwire", "zoo:nasnet_a", "zoo:squeezenet", "zoo:googlenet",
        "zoo:random?ops=60&width=6&seed=3"));

TEST(BasicSchedulers, GreedyRejectsZeroGroups)
{
    const Graph g = loadModel("zoo:squeezenet");
    EXPECT_THROW(greedySchedule(g, 0), Error);
}

TEST(BasicSchedulers, Deterministic)
{
    const Graph g = loadModel("zoo:randwire");
    EXPECT_EQ(greedySchedule(g), greedySchedule(g));
}

} // namespace
