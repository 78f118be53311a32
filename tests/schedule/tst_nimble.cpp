// Nimble's stream assignment against the paper's claims (Section 4.2), checked by exhaustive
// search on small graphs: maximum logical concurrency, the fewest streams among assignments whose
// streams are MEG paths (Theorem 2: exactly the assignments matchings produce), and the fewest
// cross-stream synchronisations among all assignments with maximum logical concurrency
// (Theorems 3-4: |MEG edges| - |maximum matching|).
#include "graph/reachability.h"
#include "graph/transitive_reduction.h"
#include "graph/width.h"
#include "model/model_ref.h"
#include "schedule/nimble_scheduler.h"
#include "sim/sim_device.h"
#include "sim/simulator.h"
#include "util/random.h"
#include "zoo/net_builder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

using namespace opsched;

namespace {

// A random DAG of n same-shape convs: op i reads the sum of each earlier op with probability
// `density` (the model input when it picks none), so sources, sinks and transitive edges all occur.
Graph randomGraph(std::size_t n, double density, std::uint64_t seed)
{
    SplitMix64 rng(seed);
    zoo::NetBuilder b("nimble-random", seed);
    const auto x = b.input("x", Shape { 1, 8, 8, 8 });
    std::vector<TensorId> outs;
    for (std::size_t i = 0; i < n; ++i) {
        InputTerm term;
        for (const auto t : outs)
            if (rng.uniform() < density)
                term.push_back(t);
        if (term.empty())
            term.push_back(x);
        outs.push_back(b.conv("op" + std::to_string(i), { term }, 8, 3, 1, 1));
    }
    return std::move(b).finish();
}

// A chain of n convs, or n convs that all read the input and nothing else.
Graph chainGraph(std::size_t n, bool independent)
{
    zoo::NetBuilder b(independent ? "independent" : "chain", 1);
    const auto x = b.input("x", Shape { 1, 8, 8, 8 });
    auto t = x;
    for (std::size_t i = 0; i < n; ++i)
        t = b.conv("op" + std::to_string(i), { { independent ? x : t } }, 8, 3, 1, 1);
    return std::move(b).finish();
}

std::vector<std::uint32_t> streamOf(const Graph& g, const Plan& plan)
{
    std::vector<std::uint32_t> s(g.opCount());
    for (const auto& l : plan.launches)
        for (const auto op : l.ops)
            s[op.value()] = l.stream.value();
    return s;
}

// Ground truth for a graph of at most 8 ops, from plain DFS and the definitions alone.
struct Truth {
    std::size_t n = 0;
    std::vector<std::vector<char>> reach; // reach[u][v]: a path u -> v of length >= 1
    std::vector<std::vector<char>> meg; // meg[u][v]: edge u -> v and no longer path u -> v
    std::size_t megEdges = 0;
};

Truth truthOf(const Graph& g)
{
    Truth t;
    t.n = g.opCount();
    t.reach.assign(t.n, std::vector<char>(t.n, 0));
    for (std::uint32_t s = 0; s < t.n; ++s) {
        std::vector<std::uint32_t> stack(g.dag().successors[s].begin(), g.dag().successors[s].end());
        while (!stack.empty()) {
            const auto u = stack.back();
            stack.pop_back();
            if (t.reach[s][u])
                continue;
            t.reach[s][u] = 1;
            stack.insert(stack.end(), g.dag().successors[u].begin(), g.dag().successors[u].end());
        }
    }
    t.meg.assign(t.n, std::vector<char>(t.n, 0));
    for (std::uint32_t u = 0; u < t.n; ++u)
        for (const auto v : g.dag().successors[u]) {
            bool longer = false;
            for (std::uint32_t w = 0; w < t.n; ++w)
                longer = longer || (t.reach[u][w] && t.reach[w][v]);
            if (!longer) {
                t.meg[u][v] = 1;
                ++t.megEdges;
            }
        }
    return t;
}

// Every way to split 0..n-1 into streams (restricted growth strings: Bell(8) = 4140 for n = 8).
void forEachPartition(std::size_t n, const std::function<void(const std::vector<std::uint32_t>&, std::uint32_t)>& f)
{
    std::vector<std::uint32_t> block(n, 0);
    std::function<void(std::size_t, std::uint32_t)> rec = [&](std::size_t i, std::uint32_t blocks) {
        if (i == n) {
            f(block, blocks);
            return;
        }
        for (std::uint32_t b = 0; b <= blocks && b < n; ++b) {
            block[i] = b;
            rec(i + 1, std::max(blocks, b + 1));
        }
    };
    rec(0, 0);
}

// Maximum logical concurrency: ops that share a stream are joined by a path.
bool maxConcurrency(const Truth& t, const std::vector<std::uint32_t>& block)
{
    for (std::uint32_t u = 0; u < t.n; ++u)
        for (std::uint32_t v = u + 1; v < t.n; ++v)
            if (block[u] == block[v] && !t.reach[u][v] && !t.reach[v][u])
                return false;
    return true;
}

// The op launched before v on its stream (ops are stored topologically, so launch order is id
// order), or none.
std::uint32_t streamPredecessor(const std::vector<std::uint32_t>& block, std::uint32_t v)
{
    for (std::uint32_t u = v; u-- > 0;)
        if (block[u] == block[v])
            return u;
    return std::numeric_limits<std::uint32_t>::max();
}

// Every stream is a path of the MEG (consecutive ops joined by a MEG edge).
bool streamsAreMegPaths(const Truth& t, const std::vector<std::uint32_t>& block)
{
    for (std::uint32_t v = 0; v < t.n; ++v)
        if (const auto u = streamPredecessor(block, v); u < t.n && !t.meg[u][v])
            return false;
    return true;
}

// The fewest synchronisations that make `block` safe: every subset of cross-stream pairs joined by
// a path (a wait that adds no false dependency) is tried as the set of waits, and a set is enough
// when stream order plus the waits order every edge of the graph.
std::size_t bruteMinSyncs(const Graph& g, const Truth& t, const std::vector<std::uint32_t>& block)
{
    std::vector<std::pair<std::uint32_t, std::uint32_t>> candidates;
    for (std::uint32_t u = 0; u < t.n; ++u)
        for (std::uint32_t v = u + 1; v < t.n; ++v)
            if (block[u] != block[v] && t.reach[u][v])
                candidates.emplace_back(u, v);
    std::size_t best = std::numeric_limits<std::size_t>::max();
    for (std::uint32_t mask = 0; mask < (1U << candidates.size()); ++mask) {
        const auto size = static_cast<std::size_t>(std::popcount(mask));
        if (size >= best)
            continue;
        std::vector<std::uint32_t> before(t.n, 0); // bitmask of ops guaranteed to end before v starts
        for (std::uint32_t v = 0; v < t.n; ++v) {
            if (const auto u = streamPredecessor(block, v); u < t.n)
                before[v] |= before[u] | (1U << u);
            for (std::size_t c = 0; c < candidates.size(); ++c)
                if ((mask >> c & 1U) && candidates[c].second == v)
                    before[v] |= before[candidates[c].first] | (1U << candidates[c].first);
        }
        bool safe = true;
        for (std::uint32_t v = 0; v < t.n && safe; ++v)
            for (const auto u : g.dag().predecessors[v])
                safe = safe && (before[v] >> u & 1U);
        if (safe)
            best = size;
    }
    return best;
}

void expectValid(const Graph& g, const Plan& plan, const std::string& what)
{
    const auto problems = validate(g, plan);
    EXPECT_TRUE(problems.empty()) << what << ": " << (problems.empty() ? "" : problems.front());
    EXPECT_TRUE(plan.barriers.empty()) << what;
}

// The stats agree with the plan and with Theorem 3 (syncs = |MEG edges| - |matching|, where the
// matching has n - streams edges).
void expectConsistentStats(const Graph& g, const Plan& plan, const NimbleStats& stats, const std::string& what)
{
    EXPECT_EQ(stats.streams, plan.streams) << what;
    EXPECT_EQ(stats.syncs, plan.waitCount()) << what;
    EXPECT_EQ(stats.megEdges, transitiveReduction(g.dag()).edgeCount()) << what;
    EXPECT_EQ(stats.syncs + g.opCount(), stats.megEdges + stats.streams) << what;
    EXPECT_GE(stats.seconds, 0.0) << what;
}

// No two ops that no path joins share a stream; streams are numbered in order of first launch.
void expectMaxConcurrency(const Graph& g, const Plan& plan, const std::string& what)
{
    const Reachability reach(g.dag());
    const auto stream = streamOf(g, plan);
    for (std::uint32_t u = 0; u < g.opCount(); ++u)
        for (std::uint32_t v = u + 1; v < g.opCount(); ++v)
            if (stream[u] == stream[v]) {
                ASSERT_TRUE(reach.comparable(u, v))
                    << what << ": independent ops " << u << " and " << v << " share stream " << stream[u];
            }
    std::uint32_t opened = 0;
    for (const auto& l : plan.launches) {
        ASSERT_LE(l.stream.value(), opened) << what << ": stream numbers skip ahead";
        opened = std::max(opened, l.stream.value() + 1);
    }
    EXPECT_EQ(opened, plan.streams) << what;
}

struct SmallCase {
    std::size_t n;
    double density;
    std::uint64_t seed;
};

std::vector<SmallCase> smallCases(std::size_t maxOps)
{
    std::vector<SmallCase> cases;
    for (std::size_t n = 1; n <= maxOps; ++n)
        for (const double density : { 0.2, 0.4, 0.7 })
            for (std::uint64_t seed = 1; seed <= 4; ++seed)
                cases.push_back({ n, density, seed * 1000 + n });
    return cases;
}

std::string describe(const SmallCase& c)
{
    return "n=" + std::to_string(c.n) + " density=" + std::to_string(c.density) + " seed=" + std::to_string(c.seed);
}

TEST(Nimble, SmallRandomGraphsGetValidPlansWithMaximumConcurrency)
{
    for (const auto& c : smallCases(8)) {
        const Graph g = randomGraph(c.n, c.density, c.seed);
        NimbleStats stats;
        const Plan plan = nimblePlan(g, &stats);
        expectValid(g, plan, describe(c));
        expectMaxConcurrency(g, plan, describe(c));
        expectConsistentStats(g, plan, stats, describe(c));
    }
    for (int seed = 1; seed <= 10; ++seed) {
        const std::string ref
            = "zoo:random?ops=8&width=" + std::to_string(1 + seed % 4) + "&seed=" + std::to_string(seed);
        const Graph g = loadModel(ref);
        NimbleStats stats;
        const Plan plan = nimblePlan(g, &stats);
        expectValid(g, plan, ref);
        expectMaxConcurrency(g, plan, ref);
        expectConsistentStats(g, plan, stats, ref);
    }
}

// Theorem 2 pairs matchings with assignments whose streams are MEG paths (a stream may only step
// along a MEG edge); the maximum matching leaves the fewest such streams, n - |M|. Ordinary chains
// of the order (Dilworth) can need fewer, so the plan's count is also at least the width.
TEST(Nimble, StreamCountIsMinimalAmongMegPathAssignments)
{
    for (const auto& c : smallCases(8)) {
        const Graph g = randomGraph(c.n, c.density, c.seed);
        const Truth t = truthOf(g);
        const Plan plan = nimblePlan(g);
        const auto own = streamOf(g, plan);
        EXPECT_TRUE(streamsAreMegPaths(t, own)) << describe(c);

        std::uint32_t best = std::numeric_limits<std::uint32_t>::max();
        forEachPartition(t.n, [&](const std::vector<std::uint32_t>& block, std::uint32_t blocks) {
            if (blocks < best && maxConcurrency(t, block) && streamsAreMegPaths(t, block))
                best = blocks;
        });
        EXPECT_EQ(plan.streams, best) << describe(c);
        EXPECT_GE(plan.streams, computeWidth(g.dag()).width) << describe(c);
    }
}

// Theorem 4: among all assignments with maximum logical concurrency (streams any chains of the
// order, not only MEG paths), none can be made safe with fewer waits than the plan has; and the
// plan's own assignment needs every wait it has (Theorem 3).
TEST(Nimble, SyncCountIsMinimalAmongMaxConcurrencyAssignments)
{
    for (const auto& c : smallCases(6)) {
        const Graph g = randomGraph(c.n, c.density, c.seed);
        const Truth t = truthOf(g);
        NimbleStats stats;
        const Plan plan = nimblePlan(g, &stats);
        EXPECT_EQ(stats.megEdges, t.megEdges) << describe(c);
        EXPECT_EQ(bruteMinSyncs(g, t, streamOf(g, plan)), plan.waitCount()) << describe(c);

        std::size_t best = std::numeric_limits<std::size_t>::max();
        forEachPartition(t.n, [&](const std::vector<std::uint32_t>& block, std::uint32_t) {
            if (maxConcurrency(t, block))
                best = std::min(best, bruteMinSyncs(g, t, block));
        });
        EXPECT_EQ(plan.waitCount(), best) << describe(c);
        EXPECT_EQ(plan.waitCount(), t.megEdges - (t.n - plan.streams)) << describe(c);
    }
}

TEST(Nimble, ChainRunsOnOneStreamWithoutSyncs)
{
    const Graph g = chainGraph(6, false);
    NimbleStats stats;
    const Plan plan = nimblePlan(g, &stats);
    expectValid(g, plan, "chain");
    EXPECT_EQ(plan.streams, 1U);
    EXPECT_EQ(plan.waitCount(), 0U);
    EXPECT_EQ(stats.megEdges, 5U);
}

TEST(Nimble, IndependentOpsEachGetAStream)
{
    for (const std::size_t k : { 1U, 2U, 5U }) {
        const Graph g = chainGraph(k, true);
        NimbleStats stats;
        const Plan plan = nimblePlan(g, &stats);
        expectValid(g, plan, "independent");
        EXPECT_EQ(plan.streams, k);
        EXPECT_EQ(plan.waitCount(), 0U);
        EXPECT_EQ(stats.megEdges, 0U);
    }
}

// a -> b -> c plus the redundant a -> c: one stream, and the edge the MEG drops needs no wait.
TEST(Nimble, TransitiveEdgesNeedNoSync)
{
    zoo::NetBuilder b("triangle", 1);
    const auto x = b.input("x", Shape { 1, 8, 8, 8 });
    const auto a = b.conv("a", { { x } }, 8, 1);
    const auto bb = b.conv("b", { { a } }, 8, 1);
    b.conv("c", { { a, bb } }, 8, 1);
    const Graph g = std::move(b).finish();
    NimbleStats stats;
    const Plan plan = nimblePlan(g, &stats);
    expectValid(g, plan, "triangle");
    EXPECT_EQ(plan.streams, 1U);
    EXPECT_EQ(plan.waitCount(), 0U);
    EXPECT_EQ(stats.megEdges, 2U);
}

// a, b -> c -> d, e: c can extend only one incoming and one outgoing path, so Nimble uses three
// streams although the width is two ({a, c, d} and {b, e} would do, at the same two syncs).
TEST(Nimble, MayUseMoreStreamsThanTheWidth)
{
    zoo::NetBuilder b("bowtie", 1);
    const auto x = b.input("x", Shape { 1, 8, 8, 8 });
    const auto a = b.conv("a", { { x } }, 8, 1);
    const auto bb = b.conv("b", { { x } }, 8, 3, 1, 1);
    const auto c = b.conv("c", { { a, bb } }, 8, 1);
    b.conv("d", { { c } }, 8, 1);
    b.conv("e", { { c } }, 8, 3, 1, 1);
    const Graph g = std::move(b).finish();
    NimbleStats stats;
    const Plan plan = nimblePlan(g, &stats);
    expectValid(g, plan, "bowtie");
    EXPECT_EQ(computeWidth(g.dag()).width, 2U);
    EXPECT_EQ(plan.streams, 3U);
    EXPECT_EQ(plan.waitCount(), 2U);
    EXPECT_EQ(stats.megEdges, 4U);
}

class NimbleOnZoo : public ::testing::TestWithParam<const char*> { };

TEST_P(NimbleOnZoo, ValidDeterministicAndSimulates)
{
    const Graph g = loadModel(GetParam());
    NimbleStats stats;
    const Plan plan = nimblePlan(g, &stats);
    expectValid(g, plan, GetParam());
    expectMaxConcurrency(g, plan, GetParam());
    expectConsistentStats(g, plan, stats, GetParam());
    EXPECT_EQ(nimblePlan(g), plan);

    // Nimble replays a captured CUDA graph.
    const SimResult sim = simulate(g, plan, findSimDevice("sim:v100"), SimOptions { .cudaGraph = true });
    EXPECT_TRUE(std::isfinite(sim.latency)) << GetParam();
    EXPECT_GT(sim.latency, 0.0) << GetParam();
}

INSTANTIATE_TEST_SUITE_P(Zoo, NimbleOnZoo,
    ::testing::Values("zoo:inception_v3", "zoo:randwire", "zoo:nasnet_a", "zoo:squeezenet", "zoo:googlenet",
        "zoo:random?ops=1000&width=8&seed=1"));

} // namespace
