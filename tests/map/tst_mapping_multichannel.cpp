// MILP-SPLIT and the latency lower bound held to the exhaustive optimum on small multi-channel
// graphs (random DAGs, fork-join channels with crossings, layers; 2-3 devices with different
// speeds and links), every mapping evaluated whole by evaluate(), the makespan the mappers report:
// MILP-SPLIT must reach it, chunked MILP-SPLIT (channels cut) stay within a stated factor of it,
// and the bound stay below it and within a stated fraction of it.
#include "map/bounds/lower_bound.h"
#include "map/bounds/module_bound.h"
#include "map/registry/mappers.h"
#include "map/solvers/milp_mapper.h"
#include "map_test_support.h"

#include "graph/reachability.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

namespace opsched::map {
namespace {

constexpr double kTolerance = 1e-9; // relative

// Measured when written on the 24 instances below (maxModuleTasks = 4): chunked MILP-SPLIT /
// optimum min 1.000, median 1.000, max 1.143; the module bound (modules of 4 tasks) / optimum
// min 0.690, median 0.883, max 1.000 (lowerBound itself is the optimum: each graph is one module);
// since the exact search's root bound (device windows) also bounds stretches of several modules
// and milp-split ends with an order search (2026-11-27): bound min 0.759, median 0.907; chunked
// milp-split max 1.068; since stretches it does not solve get the bound probes with targets as
// cutoffs prove (exactSearchProvenBound, 2026-11-27): bound min 0.999, median 1.000.
// The stated limits leave about 5% of margin; the last assertions of each test check they are
// tight enough that a result 10% worse would break them.
constexpr double kChunkedFactor = 1.12;
constexpr double kBoundFraction = 0.95;

struct Instance {
    std::string name;
    MappingProblem problem;
};

std::vector<Instance> instances()
{
    std::vector<Instance> out;
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        const std::size_t k = 2 + seed % 2;
        out.push_back(
            { "random " + std::to_string(300 + seed), test::randomProblem(300 + seed, k == 3 ? 8 : 9, k, 0.3) });
        out.push_back({ "fork-join " + std::to_string(400 + seed),
            test::forkJoinProblem(400 + seed, 2 + seed % 2, k == 3 ? 2 : 3, k) });
        out.push_back({ "layered " + std::to_string(500 + seed),
            test::layeredProblem(500 + seed, k == 3 ? 3 : 4, k == 3 ? 3 : 2, k) });
    }
    for (auto& inst : out)
        inst.name += ", " + std::to_string(inst.problem.taskCount()) + " tasks, "
            + std::to_string(inst.problem.deviceCount()) + " devices";
    // The same graphs with devices that differ per task (no device fastest for everything).
    const std::size_t plain = out.size();
    for (std::size_t i = 0; i < plain; ++i) {
        Instance h = out[i];
        test::makeHeterogeneous(h.problem, 17 + i);
        h.name += ", heterogeneous";
        out.push_back(std::move(h));
    }
    return out;
}

// Some two tasks no path orders: channels side by side.
bool multiChannel(const Dag& dag)
{
    const Reachability reach(dag);
    for (std::uint32_t a = 0; a < dag.size(); ++a)
        for (std::uint32_t b = a + 1; b < dag.size(); ++b)
            if (!reach.comparable(a, b))
                return true;
    return false;
}

// Results arriving from outside, as MILP-SPLIT's pieces have them: some tasks may not start on
// some devices before up to 2 ms.
void addReleases(MappingProblem& p, std::uint64_t seed)
{
    SplitMix64 rng(seed * 31 + 5);
    p.release.assign(p.taskCount(), std::vector<double>(p.deviceCount(), 0.0));
    for (auto& row : p.release)
        for (auto& r : row)
            r = rng.uniform() < 0.3 ? 2e-3 * rng.uniform() : 0.0;
}

void printSummary(const char* what, std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const double median = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    std::printf("%s: min %.4f, median %.4f, max %.4f\n", what, v.front(), median, v.back());
}

// The fast exhaustive search the tests below rely on agrees with the plain one.
TEST(MultiChannelOptimum, PrunedExhaustiveSearchAgreesWithThePlainOne)
{
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        for (auto p : { test::forkJoinProblem(700 + seed, 2, 2, 2), test::layeredProblem(710 + seed, 3, 2, 2),
                 test::randomProblem(720 + seed, 7, 2, 0.3), test::forkJoinProblem(730 + seed, 2, 1, 3) }) {
            EXPECT_NEAR(test::prunedExhaustiveOptimum(p), test::exhaustiveOptimum(p), 1e-15) << "seed " << seed;
            test::makeHeterogeneous(p, seed);
            EXPECT_NEAR(test::prunedExhaustiveOptimum(p), test::exhaustiveOptimum(p), 1e-15) << "seed " << seed;
            addReleases(p, seed);
            EXPECT_NEAR(test::prunedExhaustiveOptimum(p), test::exhaustiveOptimum(p), 1e-15) << "seed " << seed;
        }
    }
}

TEST(MultiChannelOptimum, MilpSplitReachesItAndChunkedStaysWithinAFactor)
{
    if (!milpAvailable())
        GTEST_SKIP() << "skipped: built without COIN-OR CBC";
    MapperOptions chunked;
    chunked.maxModuleTasks = 4; // cut the channels, where MILP-SPLIT stops being exact
    std::vector<double> ratios;
    for (const Instance& inst : instances()) {
        const MappingProblem& p = inst.problem;
        ASSERT_TRUE(multiChannel(p.dag)) << inst.name;
        const double optimum = test::prunedExhaustiveOptimum(p);
        ASSERT_TRUE(std::isfinite(optimum)) << inst.name;
        // Segments of at most 12 tasks are solved whole and exactly: the optimum itself.
        const MapResult whole = runMapper("milp-split", p);
        EXPECT_EQ(whole.status, SolveStatus::Optimal) << inst.name;
        EXPECT_NEAR(evaluate(p, whole.mapping).makespan, optimum, optimum * kTolerance) << inst.name;
        EXPECT_GE(whole.joinedMakespan, whole.times.makespan * (1 - kTolerance)) << inst.name;
        const MapResult cut = runMapper("milp-split", p, chunked);
        const double ratio = evaluate(p, cut.mapping).makespan / optimum;
        // Its own joined modules are reported beside the portfolio's best, which is never worse.
        EXPECT_GT(cut.joinedMakespan, 0) << inst.name;
        EXPECT_GE(cut.joinedMakespan, cut.times.makespan * (1 - kTolerance)) << inst.name;
        EXPECT_GE(ratio, 1 - kTolerance) << inst.name;
        EXPECT_LE(ratio, kChunkedFactor) << inst.name << ": " << cut.note;
        ratios.push_back(ratio);
        std::printf(
            "%-42s optimum %.4f ms, chunked milp-split / optimum %.4f\n", inst.name.c_str(), optimum * 1e3, ratio);
    }
    printSummary("chunked milp-split / optimum", ratios);
    const double worst = *std::max_element(ratios.begin(), ratios.end());
    EXPECT_GT(worst, 1 + 1e-6); // the instances do reach where chunking loses
    EXPECT_GT(1.1 * worst, kChunkedFactor); // and a mapping 10% worse than the worst would fail
}

TEST(MultiChannelOptimum, LowerBoundWithinAStatedFraction)
{
    std::vector<double> ratios;
    for (const Instance& inst : instances()) {
        const MappingProblem& p = inst.problem;
        const double optimum = test::prunedExhaustiveOptimum(p);
        // These graphs fit one module of the default cap: the bound is its proven optimum.
        EXPECT_NEAR(lowerBound(p), optimum, optimum * kTolerance) << inst.name;
        // Cut into modules of 4 tasks, the paper's recursion with module optima stays below it.
        const double bound = moduleChainLowerBound(p, { 4, 100000 });
        EXPECT_LE(bound, optimum * (1 + kTolerance)) << inst.name;
        EXPECT_LE(simpleLowerBound(p), optimum * (1 + kTolerance)) << inst.name;
        EXPECT_GE(bound, kBoundFraction * optimum) << inst.name; // a bound of 0 fails here
        ratios.push_back(bound / optimum);
        std::printf("%-42s optimum %.4f ms, bound / optimum %.4f\n", inst.name.c_str(), optimum * 1e3, bound / optimum);
    }
    printSummary("lower bound / optimum", ratios);
    // The stated fraction describes the bound: the worst ratio seen lies less than 6 points above it
    // (a constant lowered to 0.9, which a bound 10% weaker would still pass, fails here).
    EXPECT_LT(*std::min_element(ratios.begin(), ratios.end()) - kBoundFraction, 0.06);
}

// The bound is valid wherever it is used: with release times (MILP-SPLIT's pieces) and on
// subsets (the recursive bound), against the exhaustive optimum of many small problems.
TEST(MultiChannelOptimum, LowerBoundNeverExceedsTheOptimum)
{
    for (std::uint64_t seed = 1; seed <= 120; ++seed) {
        const std::size_t k = 2 + seed % 2;
        MappingProblem p = seed % 3 == 0 ? test::forkJoinProblem(800 + seed, 2, 2, k)
            : seed % 3 == 1              ? test::layeredProblem(800 + seed, 3, 2, k)
                                         : test::randomProblem(800 + seed, 7, k, 0.35);
        if (seed % 2)
            test::makeHeterogeneous(p, seed);
        if (seed % 4 < 2)
            addReleases(p, seed);
        const double optimum = test::prunedExhaustiveOptimum(p);
        EXPECT_LE(lowerBound(p), optimum * (1 + kTolerance)) << "seed " << seed;
        EXPECT_LE(simpleLowerBound(p), optimum * (1 + kTolerance)) << "seed " << seed;
        EXPECT_LE(simpleLowerBound(p, { 0, 1, 2 }), optimum * (1 + kTolerance)) << "seed " << seed;
    }
}

} // namespace
} // namespace opsched::map
