// The order search (devices and per-device order, evaluated whole) against the exhaustive optimum
// on small problems, and the exact search's path for problems past a quick proof (it starts from
// the order search and polishes each better schedule with it) against CBC's proven optimum.
#include "map/solvers/exact_search.h"
#include "map/solvers/heuristic_mappers.h"
#include "map/solvers/milp_mapper.h"
#include "map/solvers/order_search.h"
#include "map_test_support.h"

#include <gtest/gtest.h>

namespace opsched::map {
namespace {

constexpr double kTolerance = 1e-12; // seconds

TEST(OrderSearch, NeverWorseThanItsStartAndOftenOptimal)
{
    int optimal = 0, cases = 0;
    for (std::uint64_t seed = 1; seed <= 16; ++seed) {
        const auto p = test::moduleLike(700 + seed, 7 + seed % 2, 2 + seed % 2);
        const double optimum = test::prunedExhaustiveOptimum(p);
        const MapResult start = bestListHeuristic(p);
        const MapResult r = improveOrderAndDevices(p, start, 20000, seed);
        ASSERT_TRUE(r.times.feasible);
        EXPECT_LE(r.times.makespan, start.times.makespan);
        EXPECT_GE(r.times.makespan, optimum - kTolerance) << "seed " << seed; // no schedule beats it
        // What it reports is what its mapping gives when evaluated whole.
        EXPECT_NEAR(evaluate(p, r.mapping).makespan, r.times.makespan, kTolerance);
        // The same seed, the same answer.
        EXPECT_EQ(improveOrderAndDevices(p, start, 20000, seed).mapping.device, r.mapping.device);
        optimal += r.times.makespan <= optimum + kTolerance ? 1 : 0;
        ++cases;
    }
    // Not a proof, but a search this size finds nearly all of them (15 of 16 when written; keeping
    // the start's order instead of the best one's found 13).
    EXPECT_GE(optimal, 14) << "optimum found on " << optimal << " of " << cases;
}

// 18 tasks: past kExactSearchMaxTasks, so the search starts from SA and the order search and
// polishes every better schedule it meets. Its answer must still be CBC's proven optimum.
TEST(OrderSearch, ExactSearchPastAQuickProofStaysExact)
{
    if (!milpAvailable())
        GTEST_SKIP() << "skipped: built without COIN-OR CBC";
    static_assert(kExactSearchMaxTasks < 18);
    int compared = 0;
    for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        const auto p = test::randomProblem(900 + seed, 18, 2, 0.3);
        MapperOptions o;
        o.timeLimitSeconds = 600; // a safety net: CBC proves these in seconds
        const MapResult milp = mapMilp(p, o);
        const MapResult search = mapExactSearch(p, o);
        ASSERT_EQ(search.status, SolveStatus::Optimal) << search.note;
        if (milp.status != SolveStatus::Optimal)
            continue; // CBC did not finish: nothing to compare with
        EXPECT_NEAR(search.times.makespan, milp.times.makespan, 1e-9) << "seed " << seed;
        ++compared;
    }
    EXPECT_GE(compared, 2);
}

// Throughput: from the worst start (every op on one device, whole batches), the order search over
// splits and earliest-start orders never goes below the exhaustive optimum (every split x every
// topological order), improves where it can, and what it returns evaluates to what it found.
TEST(OrderSearch, ThroughputNeverBelowTheExhaustiveOptimum)
{
    int improved = 0, optimal = 0;
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        const MappingProblem base = test::randomProblem(40 + seed, 4, 2);
        ThroughputProblem p;
        p.base = base;
        p.inputs = 4;
        p.sizes = paperBatchSizes(4);
        p.splits = enumerateSplits(4, p.sizes, 2);
        p.seconds.assign(4, std::vector<std::vector<double>>(2));
        for (std::uint32_t t = 0; t < 4; ++t)
            for (std::uint32_t u = 0; u < 2; ++u)
                for (std::int64_t size : p.sizes)
                    p.seconds[t][u].push_back(base.seconds(t, u) * (0.4 + 0.6 * static_cast<double>(size)));
        const double best = test::exhaustiveThroughput(p);
        const std::vector<std::uint32_t> oneDevice(4, 0); // split 0: all inputs on one device
        const std::vector<std::uint32_t> priority = *topologicalOrder(base.dag);
        const double start = throughputMakespan(p, throughputEarliestStart(p, oneDevice, priority));
        const auto r = improveThroughputOrder(p, oneDevice, priority, start, 5000, seed);
        if (!r)
            continue;
        const ThroughputTimes t = evaluate(p, *r);
        ASSERT_TRUE(t.feasible);
        EXPECT_LT(t.makespan, start);
        EXPECT_GE(t.makespan, best - 1e-12) << "seed " << seed;
        ++improved;
        optimal += t.makespan <= best * (1 + 1e-9) ? 1 : 0;
    }
    // When written: improved on 6 of 6, the optimum on 3 (earliest-start orders do not reach every
    // order the exhaustive search tries); deterministic for these seeds and evaluation counts.
    EXPECT_GE(improved, 5);
    EXPECT_GE(optimal, 3) << "optimum reached on " << optimal << " of " << improved;
}

} // namespace
} // namespace opsched::map
