// Watts-Strogatz generator: edge count kept by rewiring, simple graph, deterministic, exact lattice.
#include "util/error.h"
#include "zoo/watts_strogatz.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <set>

using namespace opsched;
using namespace opsched::zoo;

namespace {

std::set<std::pair<int, int>> ringLattice(int n, int k)
{
    std::set<std::pair<int, int>> edges;
    for (int u = 0; u < n; ++u)
        for (int j = 1; j <= k / 2; ++j) {
            const int v = (u + j) % n;
            edges.emplace(std::min(u, v), std::max(u, v));
        }
    return edges;
}

} // namespace

TEST(WattsStrogatz, SimpleGraphWithNkOverTwoEdges)
{
    for (int n : { 5, 8, 16, 32, 41 })
        for (int k : { 2, 4, 6 })
            for (double p : { 0.0, 0.1, 0.5, 0.75, 1.0 })
                for (std::uint64_t seed : { 1U, 2U, 99U }) {
                    if (n <= k)
                        continue;
                    const auto g = wattsStrogatz(n, k, p, seed);
                    const std::string what = "n=" + std::to_string(n) + " k=" + std::to_string(k)
                        + " p=" + std::to_string(p) + " seed=" + std::to_string(seed);
                    EXPECT_EQ(g.nodes, n) << what;
                    EXPECT_EQ(g.edges.size(), static_cast<std::size_t>(n * k / 2)) << what;
                    std::set<std::pair<int, int>> unique;
                    for (auto [u, v] : g.edges) {
                        EXPECT_NE(u, v) << what << ": self loop";
                        EXPECT_LT(u, v) << what << ": edge not ordered";
                        EXPECT_GE(u, 0) << what;
                        EXPECT_LT(v, n) << what;
                        EXPECT_TRUE(unique.emplace(u, v).second) << what << ": duplicate " << u << "-" << v;
                    }
                }
}

TEST(WattsStrogatz, DeterministicPerSeed)
{
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
        const auto a = wattsStrogatz(32, 4, 0.75, seed);
        const auto b = wattsStrogatz(32, 4, 0.75, seed);
        EXPECT_EQ(a.edges, b.edges) << "seed " << seed;
    }
    // Different seeds give different graphs (at p = 0.75, for nearly every pair).
    int differ = 0;
    for (std::uint64_t seed = 1; seed <= 10; ++seed)
        differ += wattsStrogatz(32, 4, 0.75, seed).edges != wattsStrogatz(32, 4, 0.75, seed + 100).edges ? 1 : 0;
    EXPECT_GE(differ, 9);
}

TEST(WattsStrogatz, ZeroProbabilityGivesTheRingLattice)
{
    for (int n : { 3, 5, 9, 16, 32 })
        for (int k : { 2, 4, 8 }) {
            if (n <= k)
                continue;
            const auto g = wattsStrogatz(n, k, 0.0, 7);
            const std::set<std::pair<int, int>> got(g.edges.begin(), g.edges.end());
            EXPECT_EQ(got, ringLattice(n, k)) << "n=" << n << " k=" << k;
        }
    // p = 1 rewires: the result is no longer the lattice.
    const auto rewired = wattsStrogatz(32, 4, 1.0, 7);
    const std::set<std::pair<int, int>> rewiredSet(rewired.edges.begin(), rewired.edges.end());
    EXPECT_NE(rewiredSet, ringLattice(32, 4));
}

TEST(WattsStrogatz, BadParametersThrow)
{
    EXPECT_THROW(wattsStrogatz(10, 3, 0.5, 1), ModelRefError); // odd k
    EXPECT_THROW(wattsStrogatz(10, 0, 0.5, 1), ModelRefError); // k < 2
    EXPECT_THROW(wattsStrogatz(10, -2, 0.5, 1), ModelRefError);
    EXPECT_THROW(wattsStrogatz(4, 4, 0.5, 1), ModelRefError); // n <= k
    EXPECT_THROW(wattsStrogatz(0, 2, 0.5, 1), ModelRefError);
    EXPECT_THROW(wattsStrogatz(10, 4, -0.1, 1), ModelRefError);
    EXPECT_THROW(wattsStrogatz(10, 4, 1.5, 1), ModelRefError);
    EXPECT_THROW(wattsStrogatz(10, 4, std::numeric_limits<double>::quiet_NaN(), 1), ModelRefError);
    EXPECT_NO_THROW(wattsStrogatz(3, 2, 1.0, 1));
}
