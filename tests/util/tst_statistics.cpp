// Pure functions behind latency reports: quantiles, rank correlation, the critical-path floor,
// and which simulated preset stands in for a measured GPU. Data-driven.
#include "schedule/critical_path.h"
#include "sim/sim_device.h"
#include "util/error.h"
#include "util/statistics.h"
#include "zoo/net_builder.h"

#include <gtest/gtest.h>

#include <cmath>

namespace opsched {
namespace {

TEST(Statistics, QuantilesInterpolateBetweenClosestRanks)
{
    struct Case {
        std::vector<double> values; // unsorted on purpose: spreadOf sorts
        double median, p10, p90;
    };
    const std::vector<Case> cases = {
        { { 5 }, 5, 5, 5 },
        { { 2, 1 }, 1.5, 1.1, 1.9 },
        { { 3, 1, 2 }, 2, 1.2, 2.8 },
        { { 10, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11 }, 6, 2, 10 },
        { { 1, 1, 1, 100 }, 1, 1, 70.3 },
    };
    for (const auto& c : cases) {
        const Spread s = spreadOf(c.values);
        EXPECT_NEAR(s.median, c.median, 1e-12) << ::testing::PrintToString(c.values);
        EXPECT_NEAR(s.p10, c.p10, 1e-12) << ::testing::PrintToString(c.values);
        EXPECT_NEAR(s.p90, c.p90, 1e-12) << ::testing::PrintToString(c.values);
        EXPECT_EQ(s.count, c.values.size());
    }
    EXPECT_EQ(spreadOf({}).count, 0U);
    EXPECT_EQ(quantileSorted({}, 0.5), 0.0);
}

TEST(Statistics, OneMedianForEveryCaller)
{
    // Unsorted input, even and odd counts: the mean of the middle two, the middle one (the stored
    // runs, the stage timer, the layout and the CLI all use this one).
    EXPECT_DOUBLE_EQ(median({ 4.0, 1.0, 3.0, 2.0 }), 2.5);
    EXPECT_DOUBLE_EQ(median({ 5.0, 1.0, 3.0 }), 3.0);
    EXPECT_DOUBLE_EQ(median({}), 0.0);
    EXPECT_DOUBLE_EQ(quantile({ 10.0, 0.0 }, 0.1), 1.0);
    EXPECT_DOUBLE_EQ(quantile({ 3.0, 1.0, 2.0 }, 1.0), 3.0);
    EXPECT_DOUBLE_EQ(median({ 7.0, 1.0, 5.0, 3.0 }), spreadOf({ 7.0, 1.0, 5.0, 3.0 }).median);
}

TEST(Statistics, TiedValuesShareTheirAverageRank)
{
    EXPECT_EQ(averageRanks({ 10, 20, 30 }), (std::vector<double> { 1, 2, 3 }));
    EXPECT_EQ(averageRanks({ 30, 10, 20 }), (std::vector<double> { 3, 1, 2 }));
    EXPECT_EQ(averageRanks({ 5, 1, 5, 1, 7 }), (std::vector<double> { 3.5, 1.5, 3.5, 1.5, 5 }));
}

TEST(Statistics, SpearmanMatchesKnownValues)
{
    struct Case {
        std::vector<double> a, b;
        double rho;
    };
    const std::vector<Case> cases = {
        { { 1, 2, 3, 4, 5 }, { 10, 20, 30, 40, 50 }, 1.0 },
        { { 1, 2, 3, 4, 5 }, { 1, 4, 9, 16, 1000 }, 1.0 }, // monotone, not linear
        { { 1, 2, 3, 4, 5 }, { 5, 4, 3, 2, 1 }, -1.0 },
        // Ranks a = 1..5, b = 2 1 4 3 5: 1 - 6*sum(d^2)/(n(n^2-1)) = 1 - 6*4/120 = 0.8.
        { { 1, 2, 3, 4, 5 }, { 2, 1, 4, 3, 5 }, 0.8 },
        // With ties (scipy.stats.spearmanr gives 0.9486832980505138).
        { { 1, 2, 2, 3 }, { 1, 2, 3, 4 }, 0.9486832980505138 },
    };
    for (const auto& c : cases)
        EXPECT_NEAR(spearmanCorrelation(c.a, c.b), c.rho, 1e-12) << ::testing::PrintToString(c.b);
    EXPECT_TRUE(std::isnan(spearmanCorrelation({ 1, 2, 3 }, { 4, 4, 4 })));
    EXPECT_THROW(spearmanCorrelation({ 1, 2 }, { 1, 2, 3 }), Error);
    EXPECT_THROW(spearmanCorrelation({ 1 }, { 1 }), Error);
}

// a -> b -> d, a -> c -> d, and e alone.
Graph diamondWithLoner()
{
    zoo::NetBuilder b("diamond", 1);
    const auto x = b.input("x", Shape { 1, 8, 8, 8 });
    const auto a = b.conv("a", { { x } }, 8, 3, 1, 1);
    const auto bb = b.conv("b", { { a } }, 8, 3, 1, 1);
    const auto c = b.conv("c", { { a } }, 8, 1);
    b.combine("d", { { bb, c } });
    b.conv("e", { { x } }, 8, 1);
    return std::move(b).finish();
}

TEST(CriticalPath, LongestPathOverOpWeights)
{
    const Graph g = diamondWithLoner();
    ASSERT_EQ(g.opCount(), 5U);
    const auto id = [&](const char* n) { return *g.findOp(n); };
    struct Case {
        std::vector<double> weights; // by op: a, b, c, d, e
        double floor;
        std::vector<const char*> path;
    };
    const std::vector<Case> cases = {
        { { 1, 5, 2, 1, 0.5 }, 7, { "a", "b", "d" } },
        { { 1, 2, 5, 1, 0.5 }, 7, { "a", "c", "d" } },
        { { 1, 1, 1, 1, 9 }, 9, { "e" } },
        { { 0, 0, 0, 0, 0 }, 0, {} },
    };
    for (const auto& c : cases) {
        std::vector<double> w(g.opCount());
        const char* names[] = { "a", "b", "c", "d", "e" };
        for (std::size_t i = 0; i < 5; ++i)
            w[id(names[i]).value()] = c.weights[i];
        const CriticalPath p = criticalPath(g, w);
        EXPECT_DOUBLE_EQ(p.seconds, c.floor);
        if (!c.path.empty()) {
            std::vector<OpId> expected;
            for (const char* n : c.path)
                expected.push_back(id(n));
            EXPECT_EQ(p.ops, expected);
        }
    }
}

TEST(CriticalPath, RefusesWeightsThatDoNotFit)
{
    const Graph g = diamondWithLoner();
    EXPECT_THROW(criticalPath(g, { 1, 2 }), Error);
    std::vector<double> w(g.opCount(), 1.0);
    w[2] = -1;
    EXPECT_THROW(criticalPath(g, w), Error);
    w[2] = std::nan("");
    EXPECT_THROW(criticalPath(g, w), Error);
}

TEST(ClosestSimDevice, ByNameThenBySmCount)
{
    struct Case {
        const char* name;
        int sms;
        const char* preset;
    };
    const std::vector<Case> cases = {
        { "NVIDIA H100 80GB HBM3", 132, "h100" },
        { "NVIDIA H100 PCIe", 114, "h100" },
        { "NVIDIA H200", 132, "h100" },
        { "NVIDIA GH200 480GB", 132, "h100" },
        { "NVIDIA A100-SXM4-40GB", 108, "a100" },
        { "Tesla V100-SXM2-16GB", 80, "v100" },
        { "Tesla T4", 40, "t4" },
        { "Tesla K80", 13, "k80" },
        { "NVIDIA GeForce RTX 2080 Ti", 68, "rtx2080ti" },
        // Unknown names: nearest SM count.
        { "NVIDIA GeForce RTX 4090", 128, "h100" },
        { "NVIDIA L4", 58, "rtx2080ti" },
        { "NVIDIA RTX A4000", 48, "t4" },
        { "", 100, "a100" },
    };
    for (const auto& c : cases)
        EXPECT_EQ(closestSimDevice(c.name, c.sms).name, c.preset) << c.name;
}

} // namespace
} // namespace opsched
