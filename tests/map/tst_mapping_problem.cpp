// The mapping evaluator by hand: start times, transfers, memory, missing links, bad orders; and the
// module cuts MILP-SPLIT relies on.
#include "map/problem/mapping_problem.h"
#include "map/problem/modules.h"

#include "util/error.h"

#include <gtest/gtest.h>

namespace opsched::map {
namespace {

// a -> b, a -> c, b -> d, c -> d on two devices; 1 GB/s, 10 us links; 1 MB outputs.
MappingProblem diamond()
{
    MappingProblem p;
    p.devices = { { "fast" }, { "slow" } };
    p.links = { { Link {}, Link { 1e9, 10e-6 } }, { Link { 1e9, 10e-6 }, Link {} } };
    p.dag = Dag::fromEdges(4, { { 0, 1 }, { 0, 2 }, { 1, 3 }, { 2, 3 } });
    for (const char* name : { "a", "b", "c", "d" })
        p.tasks.push_back({ name, { 1e-3, 2e-3 }, 1e6, 1e6, 0 });
    return p;
}

TEST(MappingProblem, EvaluatesStartsTransfersAndMakespan)
{
    const auto p = diamond();
    // a, b, d on fast; c on slow: c starts when a's result arrives (1 ms + 10 us + 1 ms).
    const Mapping m { { 0, 0, 1, 0 }, { { 0, 1, 3 }, { 2 } } };
    const auto t = evaluate(p, m);
    ASSERT_TRUE(t.feasible) << t.problem;
    EXPECT_DOUBLE_EQ(t.start[1], 1e-3);
    EXPECT_NEAR(t.start[2], 2.01e-3, 1e-12);
    EXPECT_NEAR(t.finish[2], 4.01e-3, 1e-12);
    EXPECT_NEAR(t.start[3], 5.02e-3, 1e-12); // c's result travels back
    EXPECT_NEAR(t.makespan, 6.02e-3, 1e-12);
    ASSERT_EQ(t.transfers.size(), 2u);
    EXPECT_EQ(t.transfers[0].fromTask, 0u);
    EXPECT_EQ(t.transfers[0].toTask, 2u);
}

TEST(MappingProblem, AllOnOneDeviceIsSequential)
{
    const auto p = diamond();
    const auto t = evaluate(p, mappingWithOrder(p, { 0, 0, 0, 0 }, { 0, 2, 1, 3 }));
    ASSERT_TRUE(t.feasible);
    EXPECT_NEAR(t.makespan, 4e-3, 1e-12);
    EXPECT_NEAR(t.start[1], 2e-3, 1e-12); // c ran first
    EXPECT_TRUE(t.transfers.empty());
}

TEST(MappingProblem, RefusesOrdersAgainstTheGraph)
{
    const auto p = diamond();
    const auto t = evaluate(p, Mapping { { 0, 0, 0, 0 }, { { 3, 0, 1, 2 }, {} } });
    EXPECT_FALSE(t.feasible);
    EXPECT_NE(t.problem.find("contradicts"), std::string::npos) << t.problem;
}

TEST(MappingProblem, RefusesMemoryOverflowMissingLinksAndUnsupportedDevices)
{
    auto p = diamond();
    p.devices[1].memoryBytes = 1e6; // less than one task's 2 MB
    auto t = evaluate(p, Mapping { { 0, 0, 1, 0 }, { { 0, 1, 3 }, { 2 } } });
    EXPECT_FALSE(t.feasible);
    EXPECT_NE(t.problem.find("slow"), std::string::npos) << t.problem;

    p = diamond();
    p.links[0][1] = Link {}; // fast cannot send to slow
    t = evaluate(p, Mapping { { 0, 0, 1, 0 }, { { 0, 1, 3 }, { 2 } } });
    EXPECT_FALSE(t.feasible);
    EXPECT_NE(t.problem.find("no link"), std::string::npos) << t.problem;

    p = diamond();
    p.tasks[2].seconds[1] = kUnsupported;
    t = evaluate(p, Mapping { { 0, 0, 1, 0 }, { { 0, 1, 3 }, { 2 } } });
    EXPECT_FALSE(t.feasible);
    EXPECT_NE(t.problem.find("cannot run"), std::string::npos) << t.problem;
}

TEST(MappingProblem, ValidateNamesTheProblem)
{
    auto p = diamond();
    p.dag = Dag::fromEdges(4, { { 0, 1 }, { 1, 0 }, { 1, 3 }, { 2, 3 } });
    EXPECT_THROW(p.validate(), Error);
    p = diamond();
    p.tasks[1].seconds = { kUnsupported, kUnsupported };
    try {
        p.validate();
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("task b"), std::string::npos) << e.what();
    }
}

TEST(Modules, SeparatorsAndSegments)
{
    // 0 -> {1, 2} -> 3 -> 4 -> {5, 6} -> 7: separators 0, 3, 4, 7.
    const Dag dag = Dag::fromEdges(
        8, { { 0, 1 }, { 0, 2 }, { 1, 3 }, { 2, 3 }, { 3, 4 }, { 4, 5 }, { 4, 6 }, { 5, 7 }, { 6, 7 } });
    EXPECT_EQ(separators(dag), (std::vector<std::uint32_t> { 0, 3, 4, 7 }));
    const auto seg = segmentsBetweenSeparators(dag);
    ASSERT_EQ(seg.size(), 4u);
    EXPECT_EQ(seg[0].entry, -1);
    EXPECT_EQ(seg[0].exit, 0);
    EXPECT_EQ(seg[1].inner, (std::vector<std::uint32_t> { 1, 2 }));
    EXPECT_EQ(seg[1].exit, 3);
    EXPECT_EQ(seg[2].inner.size(), 0u);
    EXPECT_EQ(seg[3].entry, 4);
    EXPECT_EQ(seg[3].exit, 7);
}

TEST(Modules, ChunksCutWhereFewEdgesCross)
{
    // Two 4-task cliques joined by one edge 3 -> 4.
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (std::uint32_t base : { 0u, 4u })
        for (std::uint32_t i = 0; i < 4; ++i)
            for (std::uint32_t j = i + 1; j < 4; ++j)
                edges.emplace_back(base + i, base + j);
    edges.emplace_back(3, 4);
    const Dag dag = Dag::fromEdges(8, edges);
    const auto chunks = chunksAlongOrder(dag, { 0, 1, 2, 3, 4, 5, 6, 7 }, 6);
    ASSERT_EQ(chunks.size(), 2u);
    EXPECT_EQ(chunks[0], (std::vector<std::uint32_t> { 0, 1, 2, 3 }));
}

} // namespace
} // namespace opsched::map
