// The exact search's bounds (device windows, devices ruled out against the best makespan known,
// whole ops counted per device, the probes' proven bound) and its dominance between partial
// schedules, checked where they bite: problems
// shaped like MILP-SPLIT's modules (one fast device, slower ones reached through transfers that
// cost more than an op, results arriving at different moments on each device, sinks) with 2-5
// devices, against the optimum of every assignment x every order (evaluated whole).
#include "map/solvers/exact_search.h"
#include "map_test_support.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace opsched::map {
namespace {

constexpr double kTolerance = 1e-12; // seconds

// Ops of one cost, as in an RWNN module from one generator: 1 ms on device 0, 2 ms on device 1,
// 8 ms on device 2, every transfer 1.7 ms; task j reads from j - 1 more often than not and from
// one or two random earlier tasks (long chains, as BA graphs). Equal costs make the window bounds'
// fractional ops, and the ties between partial schedules, as common as they get.
MappingProblem equalCostModule(std::uint64_t seed, std::size_t n)
{
    SplitMix64 rng(seed);
    MappingProblem p;
    for (std::size_t u = 0; u < 3; ++u)
        p.devices.push_back({ "dev" + std::to_string(u) });
    p.links.assign(3, std::vector<Link>(3));
    for (std::size_t u = 0; u < 3; ++u)
        for (std::size_t v = 0; v < 3; ++v)
            if (u != v)
                p.links[u][v] = { 1e9, 0.0 };
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (std::uint32_t j = 1; j < n; ++j) {
        if (rng.uniform() < 0.6)
            edges.emplace_back(j - 1, j);
        const std::uint64_t extra = 1 + rng.below(2);
        for (std::uint64_t e = 0; e < extra; ++e)
            edges.emplace_back(static_cast<std::uint32_t>(rng.below(j)), j);
    }
    std::sort(edges.begin(), edges.end());
    edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
    p.dag = Dag::fromEdges(n, edges);
    for (std::size_t i = 0; i < n; ++i) {
        MapTask t;
        t.name = "t" + std::to_string(i);
        t.seconds = { 1e-3, 2e-3, 8e-3 };
        t.outputBytes = t.inputBytes = 1.7e6;
        p.tasks.push_back(t);
    }
    return p;
}

TEST(ExactSearchBounds, ModuleLikeProblemsKeepTheirOptimum)
{
    int cases = 0;
    for (std::uint64_t seed = 1; seed <= 40; ++seed) {
        const std::size_t k = 2 + seed % 4; // 2-5 devices: windows up to 4, plain loads at 5
        const std::size_t n = k >= 4 ? 7 : 8 + seed % 2;
        const MappingProblem p = test::moduleLike(seed, n, k);
        const double optimum = test::prunedExhaustiveOptimum(p);
        const double root = exactSearchRootBound(p);
        EXPECT_LE(root, optimum + kTolerance) << "seed " << seed << ", " << n << " tasks, " << k << " devices";
        const MapResult r = mapExactSearch(p, {});
        ASSERT_EQ(r.status, SolveStatus::Optimal) << "seed " << seed;
        EXPECT_NEAR(r.times.makespan, optimum, kTolerance)
            << "seed " << seed << ", " << n << " tasks, " << k << " devices, " << r.note;
        MapperOptions below;
        below.cutoffSeconds = optimum * (1 - 1e-6);
        EXPECT_TRUE(mapExactSearch(p, below).cutoffProven) << "seed " << seed;
        // With the optimum as the only target left, every node on its way must keep a bound at
        // or below it (near the leaves the bounds are close to exact: 1% too high prunes it).
        MapperOptions above;
        above.cutoffSeconds = optimum * (1 + 1e-6); // the search works to 1e-12 s
        const MapResult a = mapExactSearch(p, above);
        EXPECT_FALSE(a.cutoffProven) << "seed " << seed;
        EXPECT_NEAR(a.times.makespan, optimum, kTolerance) << "seed " << seed;
        ++cases;
    }
    EXPECT_EQ(cases, 40);
}

TEST(ExactSearchBounds, EqualCostOpsKeepTheirOptimum)
{
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
        const MappingProblem p = equalCostModule(seed, 8 + seed % 2);
        const double optimum = test::prunedExhaustiveOptimum(p);
        const MapResult r = mapExactSearch(p, {});
        ASSERT_EQ(r.status, SolveStatus::Optimal) << "seed " << seed;
        EXPECT_NEAR(r.times.makespan, optimum, kTolerance) << "seed " << seed << ", " << r.note;
        MapperOptions above;
        above.cutoffSeconds = optimum * (1 + 1e-6);
        EXPECT_NEAR(mapExactSearch(p, above).times.makespan, optimum, kTolerance) << "seed " << seed;
    }
}

TEST(ExactSearchBounds, EqualCostOpsProveByCountingWholeOps)
{
    // 26 equal-cost ops: measured when written (2026-11-27) 837 and 3 nodes to a proof; without
    // counting whole ops per device (the window bounds alone) 125 k, and no proof in 3 M nodes.
    for (const std::uint64_t seed : { 1, 4 }) {
        const MappingProblem p = equalCostModule(seed, 26);
        MapperOptions o;
        o.maxNodes = 20000;
        const MapResult r = mapExactSearch(p, o);
        EXPECT_EQ(r.status, SolveStatus::Optimal) << "seed " << seed << ": " << r.note;
    }
}

TEST(ExactSearchBounds, ProvenBoundsClimbButNeverPassTheOptimum)
{
    // Probes that run out of nodes prove nothing: with 3 nodes each the bound must still stay at
    // or below the optimum; with plenty it closes on it (bisection to 0.1%, or the optimum itself
    // when a probe finishes below its target).
    int raised = 0;
    for (std::uint64_t seed = 1; seed <= 24; ++seed) {
        const std::size_t k = 2 + seed % 3;
        const MappingProblem p = test::moduleLike(seed, 8, k);
        const double optimum = test::prunedExhaustiveOptimum(p);
        const double root = exactSearchRootBound(p);
        for (const std::uint64_t nodes : { std::uint64_t { 3 }, std::uint64_t { 1000000 } }) {
            std::uint64_t budget = 4 * nodes;
            const double proven = exactSearchProvenBound(p, kUnsupported, nodes, 12, &budget);
            EXPECT_LE(proven, optimum + kTolerance) << "seed " << seed << ", " << nodes << " nodes a probe";
            EXPECT_GE(proven, root - kTolerance) << "seed " << seed;
            if (nodes > 1000) {
                EXPECT_GE(proven, optimum * (1 - 2e-3)) << "seed " << seed << ": root " << root;
            }
        }
        raised += exactSearchProvenBound(p, kUnsupported, 1000000, 12) > root * (1 + 1e-6);
    }
    EXPECT_GE(raised, 12); // the root bound is below the optimum on most of these
}

TEST(ExactSearchBounds, LargerModulesProveWithinANodeBudget)
{
    // 26 tasks, 3 devices: measured when written (2026-11-27) 311 k and 38 k nodes to a proof with
    // the devices a better schedule cannot use left out of the bounds; without that rule seed 3
    // does not prove within the budget (checked once by disabling it).
    for (const std::uint64_t seed : { 3, 11 }) {
        const MappingProblem p = test::moduleLike(seed, 26, 3);
        MapperOptions o;
        o.maxNodes = 1500000;
        const MapResult r = mapExactSearch(p, o);
        EXPECT_EQ(r.status, SolveStatus::Optimal) << "seed " << seed << ": " << r.note;
    }
}

TEST(ExactSearchBounds, ProvenBoundOfALargerModuleWithinItsNodeBudget)
{
    // Too many tasks for the exhaustive optimum: the exact search's own proof is the reference.
    // The probes stay under the optimum and above the root, and use no more nodes than given.
    const MappingProblem p = test::moduleLike(3, 26, 3);
    const MapResult exact = mapExactSearch(p, {});
    ASSERT_EQ(exact.status, SolveStatus::Optimal);
    const double root = exactSearchRootBound(p);
    std::uint64_t budget = 300000;
    const double proven = exactSearchProvenBound(p, kUnsupported, 50000, 8, &budget);
    EXPECT_LE(proven, exact.times.makespan + kTolerance);
    EXPECT_GT(proven, root);
    EXPECT_LT(budget, std::uint64_t { 300000 });
}

} // namespace
} // namespace opsched::map
