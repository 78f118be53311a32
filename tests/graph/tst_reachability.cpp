// Reachability (bitset transitive closure) against DFS, and the DynamicBitset it is built on.
#include "support/dag_test_support.h"

#include "util/bitset.h"
#include "util/error.h"

#include <gtest/gtest.h>

using namespace opsched;
using namespace opsched::test;

namespace {

void expectMatchesBruteForce(const Dag& dag, const std::string& what)
{
    const Reachability reach(dag);
    const auto ref = bruteReach(dag);
    const auto n = static_cast<std::uint32_t>(dag.size());
    ASSERT_EQ(reach.size(), dag.size()) << what;
    for (std::uint32_t u = 0; u < n; ++u) {
        ASSERT_EQ(reach.descendants(u).size(), dag.size()) << what;
        std::size_t down = 0, up = 0;
        for (std::uint32_t v = 0; v < n; ++v) {
            ASSERT_EQ(reach.descendants(u).test(v), static_cast<bool>(ref[u][v])) << what << " " << u << "->" << v;
            ASSERT_EQ(reach.ancestors(u).test(v), static_cast<bool>(ref[v][u])) << what << " " << v << "->" << u;
            ASSERT_EQ(reach.reaches(u, v), static_cast<bool>(ref[u][v])) << what;
            ASSERT_EQ(reach.comparable(u, v), bruteComparable(ref, u, v)) << what << " " << u << "," << v;
            down += ref[u][v] ? 1 : 0;
            up += ref[v][u] ? 1 : 0;
        }
        EXPECT_EQ(reach.descendants(u).count(), down) << what;
        EXPECT_EQ(reach.ancestors(u).count(), up) << what;
        EXPECT_FALSE(reach.descendants(u).test(u)) << what;
    }
}

// A reference bitset as plain bools, with a random pattern.
std::vector<bool> randomBits(std::size_t n, double density, std::uint64_t seed)
{
    SplitMix64 rng(seed);
    std::vector<bool> bits(n);
    for (std::size_t i = 0; i < n; ++i)
        bits[i] = rng.uniform() < density;
    return bits;
}

DynamicBitset fromBools(const std::vector<bool>& bits)
{
    DynamicBitset b(bits.size());
    for (std::size_t i = 0; i < bits.size(); ++i)
        if (bits[i])
            b.set(i);
    return b;
}

void expectEqualBits(const DynamicBitset& b, const std::vector<bool>& ref)
{
    ASSERT_EQ(b.size(), ref.size());
    std::size_t count = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
        ASSERT_EQ(b.test(i), ref[i]) << "bit " << i << " of " << ref.size();
        count += ref[i] ? 1 : 0;
    }
    EXPECT_EQ(b.count(), count);
    EXPECT_EQ(b.none(), count == 0);
    EXPECT_EQ(b.any(), count != 0);
    std::vector<std::size_t> seen;
    b.forEach([&](std::size_t i) { seen.push_back(i); });
    std::vector<std::size_t> expected;
    for (std::size_t i = 0; i < ref.size(); ++i)
        if (ref[i])
            expected.push_back(i);
    EXPECT_EQ(seen, expected);
}

} // namespace

TEST(Reachability, MatchesDepthFirstSearchOnRandomDags)
{
    const double densities[] = { 0.02, 0.08, 0.2, 0.5, 0.9 };
    for (std::uint64_t seed = 1; seed <= 200; ++seed) {
        const std::size_t n = 1 + seed % 40;
        const double density = densities[seed % 5];
        expectMatchesBruteForce(
            randomDag(n, density, seed), "n=" + std::to_string(n) + " seed=" + std::to_string(seed));
    }
}

TEST(Reachability, CrossesBitsetWordBoundaries)
{
    for (std::size_t n : { 63U, 64U, 65U, 127U, 128U, 129U, 130U, 200U })
        for (double density : { 0.01, 0.03, 0.1 })
            expectMatchesBruteForce(
                randomDag(n, density, n * 31 + static_cast<std::uint64_t>(density * 100)), "n=" + std::to_string(n));
    // A long chain: the first node reaches all 129 others across three words.
    const Reachability chain(chainDag(130));
    EXPECT_EQ(chain.descendants(0).count(), 129U);
    EXPECT_EQ(chain.ancestors(129).count(), 129U);
    EXPECT_TRUE(chain.reaches(0, 129));
    EXPECT_TRUE(chain.reaches(63, 64));
    EXPECT_FALSE(chain.reaches(64, 63));
    EXPECT_EQ(chain.descendants(64).count(), 65U);
}

TEST(Reachability, Comparable)
{
    // 0 -> 1 -> 3, 0 -> 2, and 4 alone.
    const Reachability r(Dag::fromEdges(5, { { 0, 1 }, { 1, 3 }, { 0, 2 } }));
    EXPECT_TRUE(r.comparable(0, 3));
    EXPECT_TRUE(r.comparable(3, 0));
    EXPECT_TRUE(r.comparable(2, 2));
    EXPECT_FALSE(r.comparable(1, 2));
    EXPECT_FALSE(r.comparable(3, 2));
    EXPECT_FALSE(r.comparable(4, 0));
    EXPECT_TRUE(r.reaches(0, 3));
    EXPECT_FALSE(r.reaches(3, 0));
}

TEST(Reachability, RejectsCycles)
{
    EXPECT_THROW(Reachability(Dag::fromEdges(2, { { 0, 1 }, { 1, 0 } })), GraphError);
    EXPECT_THROW(Reachability(Dag::fromEdges(1, { { 0, 0 } })), GraphError);
}

TEST(DynamicBitset, OperationsMatchReference)
{
    for (std::size_t n : { 0U, 1U, 63U, 64U, 65U, 200U })
        for (std::uint64_t seed = 1; seed <= 20; ++seed) {
            SCOPED_TRACE("size " + std::to_string(n) + " seed " + std::to_string(seed));
            const auto ra = randomBits(n, 0.1 * static_cast<double>(seed % 11), seed);
            const auto rb = randomBits(n, 0.1 * static_cast<double>((seed * 3) % 10), seed + 99);
            const DynamicBitset a = fromBools(ra), b = fromBools(rb);
            std::vector<bool> uni(n), inter(n), diff(n);
            bool intersects = false, subset = true;
            for (std::size_t i = 0; i < n; ++i) {
                uni[i] = ra[i] || rb[i];
                inter[i] = ra[i] && rb[i];
                diff[i] = ra[i] && !rb[i];
                intersects = intersects || inter[i];
                subset = subset && (!ra[i] || rb[i]);
            }
            DynamicBitset u = a;
            u |= b;
            expectEqualBits(u, uni);
            DynamicBitset x = a;
            x &= b;
            expectEqualBits(x, inter);
            DynamicBitset d = a;
            d.subtract(b);
            expectEqualBits(d, diff);
            EXPECT_EQ(a.intersects(b), intersects);
            EXPECT_EQ(a.isSubsetOf(b), subset);
            EXPECT_TRUE(a.isSubsetOf(u) && x.isSubsetOf(a) && d.isSubsetOf(a) && !d.intersects(b));
            EXPECT_EQ(a == b, ra == rb);
            // Resetting every bit of a from the top down leaves an empty set equal to a fresh one.
            DynamicBitset r = a;
            for (std::size_t i = n; i > 0; --i)
                r.reset(i - 1);
            expectEqualBits(r, std::vector<bool>(n, false));
            EXPECT_TRUE(r == DynamicBitset(n));
        }
}
