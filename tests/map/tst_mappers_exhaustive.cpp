// The mappers against the exhaustive optimum (every device assignment x every per-device order,
// each evaluated whole) on small random problems: the MILP finds it, MILP-SPLIT finds the MILP's
// answer on graphs with separators, no heuristic beats it, and the lower bound never exceeds it.
#include "map/bounds/lower_bound.h"
#include "map/problem/modules.h"
#include "map/registry/mappers.h"
#include "map/solvers/exact_search.h"
#include "map/solvers/heuristic_mappers.h"
#include "map/solvers/milp_mapper.h"
#include "map_test_support.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <tuple>

namespace opsched::map {
namespace {

using test::exhaustiveOptimum;
using test::randomProblem;

constexpr double kTolerance = 1e-9; // seconds: the MILP works in ms with CBC's tolerances

struct Case {
    std::uint64_t seed;
    std::size_t tasks, devices;
};

std::vector<Case> cases()
{
    std::vector<Case> out;
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        out.push_back({ seed, 5 + seed % 3, 2 }); // 5-7 tasks, 2 devices
        out.push_back({ 100 + seed, 4 + seed % 3, 3 }); // 4-6 tasks, 3 devices
    }
    return out;
}

TEST(MappersExhaustive, HeuristicsAndBoundAgainstTheOptimum)
{
    for (const Case& c : cases()) {
        const auto p = randomProblem(c.seed, c.tasks, c.devices);
        const double optimum = exhaustiveOptimum(p);
        ASSERT_TRUE(std::isfinite(optimum));
        const double bound = lowerBound(p);
        EXPECT_LE(bound, optimum + kTolerance) << "seed " << c.seed;
        EXPECT_LE(simpleLowerBound(p), optimum + kTolerance) << "seed " << c.seed;
        for (const char* name : { "bd", "met", "greedy", "heft", "sa", "ea" }) {
            const MapResult r = runMapper(name, p);
            ASSERT_TRUE(r.times.feasible) << name;
            EXPECT_GE(r.times.makespan, optimum - kTolerance) << name << " seed " << c.seed;
        }
    }
}

// Problems where the simple bound is the optimum, so a bound that lost part of its value (or
// returned 0) fails: a chain whose every task is fastest on one device (the path binds), and
// independent equal tasks on identical devices (the work binds).
MappingProblem boundProblem(std::size_t n, std::size_t k, bool chain)
{
    MappingProblem p;
    for (std::size_t u = 0; u < k; ++u)
        p.devices.push_back({ "dev" + std::to_string(u) });
    p.links.assign(k, std::vector<Link>(k));
    for (std::size_t u = 0; u < k; ++u)
        for (std::size_t v = 0; v < k; ++v)
            if (u != v)
                p.links[u][v] = { 1e9, 20e-6 };
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (std::uint32_t i = 0; chain && i + 1 < n; ++i)
        edges.emplace_back(i, i + 1);
    p.dag = Dag::fromEdges(n, edges);
    for (std::size_t i = 0; i < n; ++i) {
        MapTask t;
        t.name = "t" + std::to_string(i);
        for (std::size_t u = 0; u < k; ++u)
            t.seconds.push_back(
                chain ? (0.5 + 0.25 * static_cast<double>(i)) * 1e-3 * (1 + static_cast<double>(u)) : 1e-3);
        t.outputBytes = t.inputBytes = 1e6;
        p.tasks.push_back(t);
    }
    return p;
}

TEST(LowerBounds, SimpleBoundIsTheOptimumWhereItBinds)
{
    for (const auto& [n, k, chain] : { std::tuple { 4, 2, true }, std::tuple { 5, 3, true }, std::tuple { 4, 2, false },
             std::tuple { 6, 3, false } }) {
        const auto p = boundProblem(static_cast<std::size_t>(n), static_cast<std::size_t>(k), chain);
        const double optimum = exhaustiveOptimum(p);
        const std::string what
            = std::string(chain ? "chain" : "independent") + " of " + std::to_string(n) + " on " + std::to_string(k);
        EXPECT_NEAR(simpleLowerBound(p), optimum, kTolerance) << what;
        EXPECT_NEAR(lowerBound(p), optimum, kTolerance) << what;
    }
}

TEST(MappersExhaustive, MilpFindsTheOptimum)
{
    if (!milpAvailable())
        GTEST_SKIP() << "skipped: built without COIN-OR CBC";
    int strictlyBetterThanHeuristics = 0;
    for (const Case& c : cases()) {
        const auto p = randomProblem(c.seed, c.tasks, c.devices);
        const double optimum = exhaustiveOptimum(p);
        const MapResult r = runMapper("milp", p);
        EXPECT_EQ(r.status, SolveStatus::Optimal) << "seed " << c.seed;
        EXPECT_NEAR(r.times.makespan, optimum, kTolerance) << "seed " << c.seed << ": " << r.note;
        if (bestListHeuristic(p).times.makespan > optimum + 1e-7)
            ++strictlyBetterThanHeuristics;
    }
    // The start is not already the answer on most of them, so the solver did the work.
    EXPECT_GE(strictlyBetterThanHeuristics, 5);
}

TEST(MappersExhaustive, MilpSplitEqualsMilpOnSingleChannelGraphs)
{
    if (!milpAvailable())
        GTEST_SKIP() << "skipped: built without COIN-OR CBC";
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        const auto p = test::modularProblem(seed, 2 + seed % 2, 2 + seed % 3, 2 + seed % 2);
        ASSERT_GE(separators(p.dag).size(), 3u);
        const MapResult milp = runMapper("milp", p);
        const MapResult split = runMapper("milp-split", p);
        ASSERT_EQ(milp.status, SolveStatus::Optimal);
        EXPECT_EQ(split.status, SolveStatus::Optimal) << split.note;
        EXPECT_NEAR(split.times.makespan, milp.times.makespan, kTolerance) << "seed " << seed << ": " << split.note;
        EXPECT_LE(lowerBound(p), milp.times.makespan + kTolerance);
        if (p.taskCount() <= 7) {
            EXPECT_NEAR(milp.times.makespan, exhaustiveOptimum(p), kTolerance);
        }
    }
}

TEST(MappersExhaustive, MilpSplitOnMultiChannelGraphsStaysFeasibleAndAboveTheBound)
{
    if (!milpAvailable())
        GTEST_SKIP() << "skipped: built without COIN-OR CBC";
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        const auto p = randomProblem(seed, 18, 3, 0.2);
        MapperOptions o;
        o.maxModuleTasks = 6; // force chunks
        const MapResult split = runMapper("milp-split", p, o);
        ASSERT_TRUE(split.times.feasible);
        EXPECT_GE(split.times.makespan, lowerBound(p) - kTolerance);
        EXPECT_GE(split.gap, 0.0);
    }
}

} // namespace
} // namespace opsched::map

namespace opsched::map {
namespace {

TEST(ExactSearch, FindsTheExhaustiveOptimumAndHonoursCutoffs)
{
    for (const Case& c : cases()) {
        const auto p = randomProblem(c.seed, c.tasks, c.devices);
        const double optimum = exhaustiveOptimum(p);
        const MapResult r = mapExactSearch(p, {});
        EXPECT_EQ(r.status, SolveStatus::Optimal);
        EXPECT_NEAR(r.times.makespan, optimum, kTolerance) << "seed " << c.seed << ", " << r.note;
        MapperOptions below;
        below.cutoffSeconds = optimum * (1 - 1e-6);
        EXPECT_TRUE(mapExactSearch(p, below).cutoffProven) << "seed " << c.seed;
        MapperOptions above;
        above.cutoffSeconds = optimum * 1.001;
        const MapResult a = mapExactSearch(p, above);
        EXPECT_FALSE(a.cutoffProven);
        EXPECT_NEAR(a.times.makespan, optimum, kTolerance);
    }
}

// Beyond 32 tasks (the task sets are 64-bit masks): a 40-task chain whose optimum is every task
// on the device that is fastest for all of them (no parallelism; crossing only adds transfers).
TEST(ExactSearch, TakesUpTo64Tasks)
{
    auto p = randomProblem(41, 40, 2, 0.0);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (std::uint32_t i = 0; i + 1 < 40; ++i)
        edges.emplace_back(i, i + 1);
    p.dag = Dag::fromEdges(40, edges);
    double sum = 0;
    for (auto& t : p.tasks) {
        t.seconds[1] = 1.5 * t.seconds[0];
        sum += t.seconds[0];
    }
    const MapResult r = mapExactSearch(p, {});
    EXPECT_EQ(r.status, SolveStatus::Optimal) << r.note;
    EXPECT_NEAR(r.times.makespan, sum, kTolerance);
    EXPECT_THROW(mapExactSearch(randomProblem(1, kExactSearchLimit + 1, 2), {}), Error);
}

TEST(ExactSearch, AgreesWithTheMilpOnLargerProblems)
{
    if (!milpAvailable())
        GTEST_SKIP() << "skipped: built without COIN-OR CBC";
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        const auto p = randomProblem(500 + seed, 9, 3, 0.3);
        const MapResult milp = mapMilp(p, {});
        const MapResult search = mapExactSearch(p, {});
        ASSERT_EQ(milp.status, SolveStatus::Optimal);
        ASSERT_EQ(search.status, SolveStatus::Optimal);
        EXPECT_NEAR(search.times.makespan, milp.times.makespan, kTolerance) << "seed " << seed;
    }
}

TEST(MappersExhaustive, MilpSplitWithMilpModulesEqualsMilpToo)
{
    if (!milpAvailable())
        GTEST_SKIP() << "skipped: built without COIN-OR CBC";
    MapperOptions o;
    o.moduleSolver = MapperOptions::ModuleSolver::Milp;
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        const auto p = test::modularProblem(seed, 2, 3, 2 + seed % 2);
        const MapResult milp = runMapper("milp", p);
        const MapResult split = runMapper("milp-split", p, o);
        EXPECT_EQ(split.status, SolveStatus::Optimal);
        EXPECT_NEAR(split.times.makespan, milp.times.makespan, kTolerance) << "seed " << seed;
    }
}

} // namespace
} // namespace opsched::map
