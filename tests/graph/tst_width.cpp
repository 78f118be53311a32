// Width (maximum antichain) and minimum chain cover, against exhaustive search and Dilworth.
#include "support/dag_test_support.h"

#include "graph/width.h"

#include <gtest/gtest.h>

using namespace opsched;
using namespace opsched::test;

namespace {

// Largest antichain by enumerating every subset (n <= 14).
std::size_t bruteWidth(const Dag& dag)
{
    const std::size_t n = dag.size();
    const auto reach = bruteReach(dag);
    std::vector<std::uint32_t> comparableMask(n, 0);
    for (std::uint32_t u = 0; u < n; ++u)
        for (std::uint32_t v = 0; v < n; ++v)
            if (reach[u][v] || reach[v][u])
                comparableMask[u] |= 1U << v;
    std::size_t best = 0;
    for (std::uint32_t set = 0; set < (1U << n); ++set) {
        bool anti = true;
        for (std::uint32_t v = 0; v < n && anti; ++v)
            if ((set >> v & 1U) && (comparableMask[v] & set))
                anti = false;
        if (anti)
            best = std::max<std::size_t>(best, static_cast<std::size_t>(__builtin_popcount(set)));
    }
    return best;
}

// The antichain is sorted, pairwise incomparable and as large as the width; the chains partition
// the nodes, each is a chain of the order, and there are exactly `width` of them.
void expectValidResult(const Dag& dag, const WidthResult& r, const std::string& what)
{
    const Reachability reach(dag);
    const std::size_t n = dag.size();
    EXPECT_EQ(r.antichain.size(), r.width) << what;
    EXPECT_TRUE(std::is_sorted(r.antichain.begin(), r.antichain.end())) << what;
    for (std::size_t i = 0; i < r.antichain.size(); ++i)
        for (std::size_t j = i + 1; j < r.antichain.size(); ++j)
            ASSERT_FALSE(reach.comparable(r.antichain[i], r.antichain[j]))
                << what << ": " << r.antichain[i] << " and " << r.antichain[j] << " are comparable";

    EXPECT_EQ(r.chains.size(), r.width) << what;
    std::vector<int> seen(n, 0);
    for (const auto& chain : r.chains) {
        ASSERT_FALSE(chain.empty()) << what;
        for (std::size_t i = 0; i < chain.size(); ++i) {
            ASSERT_LT(chain[i], n) << what;
            ++seen[chain[i]];
            if (i + 1 < chain.size()) {
                ASSERT_TRUE(reach.reaches(chain[i], chain[i + 1]))
                    << what << ": chain step " << chain[i] << "->" << chain[i + 1] << " is not ordered";
            }
        }
    }
    for (std::size_t v = 0; v < n; ++v)
        ASSERT_EQ(seen[v], 1) << what << ": node " << v << " covered " << seen[v] << " times";
}

} // namespace

TEST(Width, KnownGraphs)
{
    EXPECT_EQ(computeWidth(Dag::fromEdges(0, {})).width, 0U);
    EXPECT_TRUE(computeWidth(Dag::fromEdges(0, {})).chains.empty());
    EXPECT_EQ(computeWidth(chainDag(9)).width, 1U);
    EXPECT_EQ(computeWidth(Dag::fromEdges(6, {})).width, 6U);
    const Dag diamond = Dag::fromEdges(4, { { 0, 1 }, { 0, 2 }, { 1, 3 }, { 2, 3 } });
    const auto r = computeWidth(diamond);
    EXPECT_EQ(r.width, 2U);
    EXPECT_EQ(r.antichain, (std::vector<std::uint32_t> { 1, 2 }));
    expectValidResult(diamond, r, "diamond");
    // A fork into three chains of different lengths, joined again: width 3.
    const Dag fork = Dag::fromEdges(
        8, { { 0, 1 }, { 0, 2 }, { 2, 3 }, { 0, 4 }, { 4, 5 }, { 5, 6 }, { 1, 7 }, { 3, 7 }, { 6, 7 } });
    EXPECT_EQ(computeWidth(fork).width, 3U);
    expectValidResult(fork, computeWidth(fork), "fork");
}

TEST(Width, MatchesExhaustiveSearchOnSmallDags)
{
    for (std::uint64_t seed = 1; seed <= 160; ++seed) {
        const std::size_t n = 1 + seed % 14;
        const Dag dag = randomDag(n, 0.05 + 0.12 * static_cast<double>(seed % 7), seed);
        const std::string what = "n=" + std::to_string(n) + " seed=" + std::to_string(seed);
        const auto r = computeWidth(dag);
        EXPECT_EQ(r.width, bruteWidth(dag)) << what;
        expectValidResult(dag, r, what);
    }
}

TEST(Width, LargeGraphsGiveValidAntichainAndChainCover)
{
    for (double density : { 0.005, 0.02, 0.1, 0.4 }) {
        const Dag dag = randomDag(300, density, static_cast<std::uint64_t>(density * 1000) + 17);
        const Reachability reach(dag);
        const auto r = computeWidth(dag, reach);
        EXPECT_GT(r.width, 0U);
        expectValidResult(dag, r, "n=300 density=" + std::to_string(density));
        EXPECT_EQ(computeWidth(dag).width, r.width);
    }
}
