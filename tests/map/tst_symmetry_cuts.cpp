// Symmetry breaking (symmetry_cuts.h): which devices and nodes are found interchangeable, that a
// relabelled mapping keeps its makespan and meets the cuts, and that the cuts never remove the
// optimum: the MILP with each criterion reaches the exhaustive optimum, as it does without.
#include "map/solvers/milp_mapper.h"
#include "map/solvers/pipeline_mapper.h"
#include "map/solvers/symmetry_cuts.h"
#include "map_test_support.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <cmath>

namespace opsched::map {
namespace {

// `n` random tasks on `nodes` nodes of two devices each: a fast one and a slow one (1.6x), the
// same on every node; links inside a node faster than between nodes.
MappingProblem nodeProblem(std::uint64_t seed, std::size_t n, std::size_t nodes)
{
    MappingProblem p = test::randomProblem(seed, n, 2 * nodes, 0.3);
    p.devices.clear();
    for (std::size_t g = 0; g < nodes; ++g) {
        p.devices.push_back({ "n" + std::to_string(g) + "/fast", kUnsupported, static_cast<int>(g) });
        p.devices.push_back({ "n" + std::to_string(g) + "/slow", kUnsupported, static_cast<int>(g) });
    }
    for (std::size_t u = 0; u < p.deviceCount(); ++u)
        for (std::size_t v = 0; v < p.deviceCount(); ++v)
            if (u != v)
                p.links[u][v] = p.devices[u].node == p.devices[v].node ? Link { 8e9, 10e-6 } : Link { 2e9, 30e-6 };
    for (auto& t : p.tasks) {
        const double base = t.seconds[0];
        for (std::size_t u = 0; u < p.deviceCount(); ++u)
            t.seconds[u] = u % 2 == 0 ? base : 1.6 * base;
    }
    return p;
}

// `n` random tasks on three identical devices and one 1.5x slower, every link the same.
MappingProblem identicalDevices(std::uint64_t seed, std::size_t n)
{
    MappingProblem p = test::randomProblem(seed, n, 4, 0.3);
    for (std::size_t u = 0; u < 4; ++u)
        for (std::size_t v = 0; v < 4; ++v)
            if (u != v)
                p.links[u][v] = { 4e9, 20e-6 };
    for (auto& t : p.tasks) {
        const double base = t.seconds[0];
        t.seconds = { base, base, base, 1.5 * base };
    }
    return p;
}

TEST(SymmetryCuts, FindsIdenticalDevicesOnly)
{
    MappingProblem p = identicalDevices(3, 6);
    auto c = findSymmetries(p);
    ASSERT_EQ(c.devices.size(), 1U);
    EXPECT_EQ(c.devices[0], (std::vector<std::uint32_t> { 0, 1, 2 }));
    EXPECT_TRUE(c.nodes.empty());
    EXPECT_DOUBLE_EQ(c.compression(), 6.0);
    // One link different: device 2 is no longer interchangeable with 0 and 1.
    p.links[2][3] = { 1e9, 20e-6 };
    c = findSymmetries(p);
    ASSERT_EQ(c.devices.size(), 1U);
    EXPECT_EQ(c.devices[0], (std::vector<std::uint32_t> { 0, 1 }));
    // A release time (a module's entry device) breaks it too.
    p.release.assign(p.taskCount(), std::vector<double>(4, 0.0));
    p.release[0][1] = 1e-3;
    EXPECT_TRUE(findSymmetries(p).empty());
}

TEST(SymmetryCuts, FindsNodesAndDevicesWithinThem)
{
    const MappingProblem p = nodeProblem(5, 6, 3);
    const auto c = findSymmetries(p);
    ASSERT_EQ(c.nodes.size(), 1U);
    EXPECT_EQ(c.nodes[0].size(), 3U);
    EXPECT_TRUE(c.devices.empty()); // fast and slow differ inside a node
    EXPECT_DOUBLE_EQ(c.compression(), 6.0);
}

TEST(SymmetryCuts, RelabelledMappingKeepsItsMakespanAndMeetsTheCuts)
{
    const MappingProblem p = nodeProblem(9, 8, 3);
    const auto classes = findSymmetries(p);
    SplitMix64 rng(4);
    for (int trial = 0; trial < 20; ++trial) {
        std::vector<std::uint32_t> device(p.taskCount());
        for (auto& d : device)
            d = static_cast<std::uint32_t>(rng.next() % p.deviceCount());
        const Mapping m = mappingWithOrder(p, device, breadthFirstOrder(p.dag));
        for (Symmetry s : { Symmetry::Tasks, Symmetry::Time }) {
            const Mapping c = permuteMapping(m, canonicalPermutation(classes, latencyValues(p, m, s)));
            EXPECT_NEAR(evaluate(p, c).makespan, evaluate(p, m).makespan, 1e-12);
            const auto v = latencyValues(p, c, s);
            for (const auto& cls : classes.nodes)
                for (std::size_t i = 0; i + 1 < cls.size(); ++i) {
                    double a = 0, b = 0;
                    for (auto u : cls[i])
                        a += v[u];
                    for (auto u : cls[i + 1])
                        b += v[u];
                    EXPECT_LE(a, b + 1e-9);
                }
        }
    }
}

// The latency MILP with each criterion reaches the exhaustive optimum, as it does without.
TEST(SymmetryCuts, NeverRemoveTheLatencyOptimum)
{
    if (!milpAvailable())
        GTEST_SKIP() << "no CBC in this build";
    std::vector<MappingProblem> problems;
    for (std::uint64_t seed : { 1, 2, 3 })
        problems.push_back(identicalDevices(seed, 6));
    for (std::uint64_t seed : { 4, 5 })
        problems.push_back(nodeProblem(seed, 6, 2));
    for (const auto& p : problems) {
        const double best = test::prunedExhaustiveOptimum(p);
        for (Symmetry s : { Symmetry::None, Symmetry::Tasks, Symmetry::Time, Symmetry::Batches }) {
            MapperOptions o;
            o.symmetry = s;
            o.timeLimitSeconds = 600; // a safety net: 6 tasks are proven in milliseconds
            const MapResult r = mapMilp(p, o);
            EXPECT_EQ(r.status, SolveStatus::Optimal) << toString(s);
            EXPECT_NEAR(r.times.makespan, best, 1e-9 + 1e-6 * best) << toString(s);
        }
    }
}

// The pipeline MILP (min period): the same optimum with and without cuts, and never worse than
// the replicated single-node mapping it could have chosen.
TEST(SymmetryCuts, PipelineOptimumKeptAndAtLeastReplicated)
{
    if (!milpAvailable())
        GTEST_SKIP() << "no CBC in this build";
    // Two equal halves (a chain of 5 tasks, then the same 5 again) on two equal nodes.
    MappingProblem p = nodeProblem(11, 10, 2);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (std::uint32_t i = 0; i + 1 < 10; ++i)
        edges.emplace_back(i, i + 1);
    p.dag = Dag::fromEdges(10, edges);
    for (std::size_t i = 5; i < 10; ++i)
        p.tasks[i].seconds = p.tasks[i - 5].seconds;
    MapperOptions o;
    o.timeLimitSeconds = 600; // a safety net: 10 tasks are proven in well under a second
    const double none = mapPipeline("milp", p, o).times.period;
    for (Symmetry s : { Symmetry::Tasks, Symmetry::Time, Symmetry::Batches }) {
        o.symmetry = s;
        const PipelineResult r = mapPipeline("milp", p, o);
        EXPECT_EQ(r.status, SolveStatus::Optimal);
        EXPECT_GT(r.cuts, 0U);
        EXPECT_NEAR(r.times.period, none, 1e-9) << toString(s);
    }
    const double replicated = mapPipeline("replicated-milp", p, o).times.period;
    EXPECT_LE(none, replicated + 1e-12);
}

TEST(SymmetryCuts, ParsesCriteria)
{
    EXPECT_EQ(parseSymmetry("time"), Symmetry::Time);
    EXPECT_EQ(parseSymmetry("batches"), Symmetry::Batches);
    EXPECT_THROW(parseSymmetry("nodes"), Error);
}

} // namespace
} // namespace opsched::map
