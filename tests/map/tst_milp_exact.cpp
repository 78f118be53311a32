// The MILPs' "optimal" is the optimum: on a few hundred small random problems the latency MILP's
// makespan equals the exhaustive optimum (every device assignment x every per-device order, each
// evaluated whole by evaluate()), on devices that differ by a common factor, on devices where ops
// prefer different devices, and on devices with one very slow member (as the paper's Xeon next to
// its A100: a device whose time for an op exceeds the others' slack is what broke the no-overlap
// rows' big-M). The batched (throughput) MILP likewise against its exhaustive optimum. No time
// limits: the solves are small, and a node limit would only hide a wrong answer as "feasible".
#include "map/registry/mappers.h"
#include "map/solvers/milp_mapper.h"
#include "map_test_support.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace opsched::map {
namespace {

constexpr double kTolerance = 1e-9; // seconds: CBC works in ms with its own tolerances

enum class Devices { Scaled, Heterogeneous, OneSlow };

const char* nameOf(Devices d)
{
    return d == Devices::Scaled ? "scaled" : d == Devices::Heterogeneous ? "heterogeneous" : "one slow";
}

// The last device 25 times slower than the first for every op: its time for an op exceeds the
// others' schedules' slack, so every no-overlap row of it must leave those schedules alone.
void makeOneSlow(MappingProblem& p)
{
    for (auto& t : p.tasks)
        t.seconds.back() = t.seconds.front() * 25.0;
}

MappingProblem problem(std::uint64_t seed, Devices kind)
{
    const std::size_t devices = 2 + seed % 2, tasks = 4 + seed % 4; // 4-7 tasks on 2-3 devices
    MappingProblem p = test::randomProblem(seed, tasks, devices, 0.25 + 0.05 * static_cast<double>(seed % 4));
    if (kind == Devices::Heterogeneous)
        test::makeHeterogeneous(p, seed);
    if (kind == Devices::OneSlow)
        makeOneSlow(p);
    return p;
}

class MilpExact : public ::testing::TestWithParam<Devices> { };

TEST_P(MilpExact, EqualsTheExhaustiveOptimum)
{
    if (!milpAvailable())
        GTEST_SKIP() << "skipped: built without COIN-OR CBC";
    int misses = 0, optimal = 0;
    for (std::uint64_t seed = 1; seed <= 110; ++seed) {
        const MappingProblem p = problem(seed, GetParam());
        const double optimum = test::prunedExhaustiveOptimum(p);
        ASSERT_TRUE(std::isfinite(optimum)) << "seed " << seed;
        const MapResult r = runMapper("milp", p);
        ASSERT_TRUE(r.times.feasible) << "seed " << seed;
        optimal += r.status == SolveStatus::Optimal;
        if (std::abs(r.times.makespan - optimum) > kTolerance) {
            ++misses;
            ADD_FAILURE() << nameOf(GetParam()) << " seed " << seed << ": milp " << r.times.makespan * 1e3 << " ms ("
                          << toString(r.status) << "), exhaustive optimum " << optimum * 1e3 << " ms";
        }
    }
    EXPECT_EQ(misses, 0);
    EXPECT_EQ(optimal, 110); // every solve proves its answer
}

INSTANTIATE_TEST_SUITE_P(Devices, MilpExact,
    ::testing::Values(Devices::Scaled, Devices::Heterogeneous, Devices::OneSlow), [](const auto& param) {
        std::string name = nameOf(param.param);
        for (char& c : name)
            if (c == ' ')
                c = '_';
        return name;
    });

TEST(ThroughputMilpExact, EqualsTheExhaustiveOptimumWithASlowDevice)
{
    if (!milpAvailable())
        GTEST_SKIP() << "skipped: built without COIN-OR CBC";
    int misses = 0;
    for (std::uint64_t seed = 1; seed <= 12; ++seed) {
        MappingProblem base = test::randomProblem(seed, 3 + seed % 2, 2);
        if (seed % 2 == 0)
            makeOneSlow(base);
        else
            test::makeHeterogeneous(base, seed);
        const ThroughputProblem p = test::batched(base, 2);
        const double best = test::exhaustiveThroughput(p);
        const auto r = runThroughputMapper("milp", p, {});
        EXPECT_EQ(r.status, SolveStatus::Optimal) << "seed " << seed;
        if (std::abs(r.times.makespan - best) > kTolerance) {
            ++misses;
            ADD_FAILURE() << "seed " << seed << ": milp " << r.times.makespan * 1e3 << " ms, exhaustive " << best * 1e3
                          << " ms";
        }
    }
    EXPECT_EQ(misses, 0);
}

} // namespace
} // namespace opsched::map
