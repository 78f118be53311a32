// Throughput as a pipeline: several batches per op and device (pipelined splits), each batch
// waiting only for the batches holding its inputs, so devices overlap different inputs; the
// throughput lower bound (the paper's recursion with L - b + 1) never above the exhaustive
// optimum; MILP-SPLIT never worse than the batched heuristics; the mappers' makespan-only
// evaluation equal to the full one.
#include "map/bounds/lower_bound.h"
#include "map/bounds/throughput_bound.h"
#include "map/problem/throughput_problem.h"
#include "map/registry/mappers.h"
#include "map_test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace opsched::map {
namespace {

// Costs grow sub-linearly with the batch: t(p) = t(1) * (0.4 + 0.6 p); pipelined twins added.
ThroughputProblem pipelinedProblem(const MappingProblem& base, std::int64_t inputs, double fixed = 0.4)
{
    ThroughputProblem p;
    p.base = base;
    p.inputs = inputs;
    p.sizes = paperBatchSizes(inputs);
    p.splits = enumerateSplits(inputs, p.sizes, base.deviceCount());
    addPipelinedSplits(p);
    p.seconds.assign(base.taskCount(), std::vector<std::vector<double>>(base.deviceCount()));
    for (std::uint32_t t = 0; t < base.taskCount(); ++t)
        for (std::uint32_t u = 0; u < base.deviceCount(); ++u)
            for (std::int64_t s : p.sizes)
                p.seconds[t][u].push_back(base.seconds(t, u) * (fixed + (1 - fixed) * static_cast<double>(s)));
    p.validate();
    return p;
}

std::uint32_t findSplit(const ThroughputProblem& p, const std::vector<std::int64_t>& counts, bool pipelined)
{
    for (std::uint32_t s = 0; s < p.splits.size(); ++s)
        if (p.splits[s] == counts && p.pipelined(s) == pipelined)
            return s;
    ADD_FAILURE() << "no such split";
    return 0;
}

TEST(ThroughputPipeline, PipelinedTwins)
{
    ThroughputProblem p;
    p.inputs = 16;
    p.sizes = paperBatchSizes(16);
    p.splits = enumerateSplits(16, p.sizes, 3);
    ASSERT_EQ(p.splits.size(), 15u);
    addPipelinedSplits(p);
    // Every split of 16 over 3 devices has some device above 4 inputs: 15 twins.
    ASSERT_EQ(p.splits.size(), 30u);
    for (std::size_t s = 15; s < 30; ++s) {
        EXPECT_TRUE(p.pipelined(s));
        for (std::uint32_t u = 0; u < 3; ++u)
            EXPECT_EQ(p.batchesOn(s, u), p.splits[s][u] / 4);
    }
    // One input: one batch size, nothing to pipeline; L = 1 stays the latency model.
    ThroughputProblem one;
    one.inputs = 1;
    one.sizes = paperBatchSizes(1);
    one.splits = enumerateSplits(1, one.sizes, 3);
    addPipelinedSplits(one);
    EXPECT_EQ(one.splits.size(), 3u);
}

// a -> b, a only on dev0, b only on dev1, 4 inputs. Whole batches: b waits for all of a. Pipelined:
// b's batch of input i starts when a's batch of input i has arrived, so the devices overlap.
TEST(ThroughputPipeline, BatchesFlowThroughDevices)
{
    MappingProblem base;
    base.devices = { { "dev0" }, { "dev1" } };
    base.links.assign(2, std::vector<Link>(2));
    base.links[0][1] = { 1e9, 1e-4 }; // 1 GB/s, 0.1 ms
    base.links[1][0] = { 1e9, 1e-4 };
    base.dag = Dag::fromEdges(2, { { 0, 1 } });
    base.tasks = { { "a", { 1e-3, kUnsupported }, 0, 1e6, 0 }, { "b", { kUnsupported, 1e-3 }, 1e6, 1e6, 0 } };
    ThroughputProblem p = pipelinedProblem(base, 4, 0.0); // t(s) = s ms: batching gains nothing
    const std::uint32_t whole0 = findSplit(p, { 4, 0 }, false), whole1 = findSplit(p, { 0, 4 }, false);
    const std::uint32_t pipe0 = findSplit(p, { 4, 0 }, true), pipe1 = findSplit(p, { 0, 4 }, true);
    const std::vector<std::uint32_t> order { 0, 1 };
    const ThroughputTimes whole = evaluate(p, throughputWithOrder(p, { whole0, whole1 }, order));
    ASSERT_TRUE(whole.feasible) << whole.problem;
    // 4 ms of a, 4 MB over the link (0.1 ms + 4 ms), 4 ms of b.
    EXPECT_NEAR(whole.makespan, 4e-3 + 4.1e-3 + 4e-3, 1e-12);
    EXPECT_EQ(whole.transfers, 1u);
    const ThroughputTimes piped = evaluate(p, throughputWithOrder(p, { pipe0, pipe1 }, order));
    ASSERT_TRUE(piped.feasible) << piped.problem;
    // a's batches end at 1, 2, 3, 4 ms; each input's result arrives 1.1 ms later; b runs 1 ms each.
    ASSERT_EQ(piped.batchStart[1][1].size(), 4u);
    for (std::size_t j = 0; j < 4; ++j) {
        EXPECT_NEAR(piped.batchFinish[0][0][j], (j + 1) * 1e-3, 1e-12);
        EXPECT_NEAR(piped.batchStart[1][1][j], (j + 1) * 1e-3 + 1.1e-3, 1e-12);
    }
    EXPECT_NEAR(piped.makespan, 4e-3 + 1.1e-3 + 1e-3, 1e-12);
    EXPECT_EQ(piped.transfers, 4u);
    // Only a pipelined: b (one batch) waits for every input, but transfers overlap a's later batches.
    const ThroughputTimes half = evaluate(p, throughputWithOrder(p, { pipe0, whole1 }, order));
    EXPECT_NEAR(half.makespan, 4e-3 + 1.1e-3 + 4e-3, 1e-12);
}

// With a fixed cost per batch, pipelining is not free: the exhaustive optimum over whole and
// pipelined splits is never above the one over whole splits alone, and below it somewhere.
TEST(ThroughputPipeline, PipelinesPayWhereDevicesCanOverlap)
{
    int better = 0;
    for (std::uint64_t seed = 1; seed <= 4; ++seed) {
        const auto base = test::randomProblem(700 + seed, 4, 2, 0.5);
        ThroughputProblem piped = pipelinedProblem(base, 4, 0.2);
        ThroughputProblem whole = piped;
        whole.splits.resize(5);
        whole.pieces.resize(5);
        const double a = test::exhaustiveThroughput(piped), b = test::exhaustiveThroughput(whole);
        EXPECT_LE(a, b + 1e-15) << "seed " << seed;
        better += a < b * (1 - 1e-9);
        std::printf("seed %llu: optimum %.4f ms with pipelined splits, %.4f ms without\n",
            static_cast<unsigned long long>(seed), a * 1e3, b * 1e3);
    }
    EXPECT_GE(better, 1);
}

// The bound (with the recursion) is never above the exhaustive optimum, on random, fork-join
// and modular graphs, homogeneous and not, with pipelined splits.
TEST(ThroughputPipeline, BoundNeverAboveTheExhaustiveOptimum)
{
    std::vector<std::pair<std::string, MappingProblem>> cases;
    for (std::uint64_t seed = 1; seed <= 2; ++seed) {
        cases.push_back({ "random, 4 ops", test::randomProblem(800 + seed, 4, 2, 0.5) });
        cases.push_back({ "fork-join, 4 ops", test::forkJoinProblem(810 + seed, 2, 1, 2) });
        cases.push_back({ "modular, 4 ops", test::modularProblem(820 + seed, 1, 2, 2) });
        cases.push_back({ "chain, 4 ops", test::randomProblem(830 + seed, 4, 2, 1.0) });
    }
    const std::size_t plain = cases.size();
    for (std::size_t i = 0; i < plain; ++i) {
        auto h = cases[i];
        test::makeHeterogeneous(h.second, 50 + i);
        h.first += ", heterogeneous";
        cases.push_back(std::move(h));
    }
    double worst = 1, best = 0;
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const auto p = pipelinedProblem(cases[i].second, 4);
        const double optimum = test::exhaustiveThroughput(p), bound = throughputLowerBound(p),
                     recursive = throughputRecursiveBound(p);
        ASSERT_TRUE(std::isfinite(optimum)) << cases[i].first;
        EXPECT_LE(bound, optimum * (1 + 1e-12)) << "case " << i << ": " << cases[i].first;
        EXPECT_LE(recursive, bound * (1 + 1e-12)); // throughputLowerBound includes it
        EXPECT_GT(recursive, 0.0);
        worst = std::min(worst, bound / optimum);
        best = std::max(best, bound / optimum);
        std::printf("case %2zu %-32s optimum %.4f ms, bound / optimum %.4f (recursion alone %.4f)\n", i,
            cases[i].first.c_str(), optimum * 1e3, bound / optimum, recursive / optimum);
    }
    std::printf("bound / optimum from %.4f to %.4f\n", worst, best);
}

// On a chain (one topological order, so the exhaustive optimum is cheap at L = 8) the recursion
// over single-op modules and over the default cuts stays below the optimum.
TEST(ThroughputPipeline, RecursionOnAChainStaysBelowTheOptimum)
{
    auto base = test::randomProblem(900, 5, 2, 0.0);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (std::uint32_t i = 0; i + 1 < 5; ++i)
        edges.emplace_back(i, i + 1);
    base.dag = Dag::fromEdges(5, edges);
    const auto p = pipelinedProblem(base, 8);
    std::vector<std::vector<std::uint32_t>> single;
    for (std::uint32_t i = 0; i < 5; ++i)
        single.push_back({ i });
    const double optimum = test::exhaustiveThroughput(p), recursive = throughputRecursiveBound(p);
    EXPECT_LE(throughputRecursiveBound(p, single), optimum * (1 + 1e-12));
    EXPECT_LE(recursive, optimum * (1 + 1e-12));
    EXPECT_LE(throughputLowerBound(p), optimum * (1 + 1e-12));
    std::printf("chain of 5, L = 8: optimum %.4f ms, recursive bound %.4f ms, whole bound %.4f ms\n", optimum * 1e3,
        recursive * 1e3, throughputLowerBound(p) * 1e3);
}

// MILP-SPLIT (node-limited MILP windows, iteration-limited SA and EA) is never worse than any
// batched heuristic on modular graphs with pipelined splits on offer.
TEST(ThroughputPipeline, SplitNeverWorseThanTheHeuristics)
{
    MapperOptions o;
    o.maxNodes = 1;
    o.timeLimitSeconds = 600; // a safety net: nodes and iterations are the limits
    for (std::uint64_t seed = 1; seed <= 1; ++seed) { // one: each MILP window's root costs seconds
        const auto base = test::modularProblem(seed, 2, 2, 2);
        const auto p = pipelinedProblem(base, 4);
        const auto split = runThroughputMapper("milp-split", p, o);
        ASSERT_TRUE(split.times.feasible);
        EXPECT_NEAR(split.times.makespan, evaluate(p, split.mapping).makespan, 1e-15);
        EXPECT_LE(throughputLowerBound(p), split.times.makespan * (1 + 1e-12));
        for (const char* h : { "bd", "met", "greedy", "heft", "sa", "ea" }) {
            const auto r = runThroughputMapper(h, p, o);
            EXPECT_LE(split.times.makespan, r.times.makespan * (1 + 1e-12)) << h << ", seed " << seed;
        }
    }
}

// throughputMakespan() (the mappers' inner loop) and evaluate() time the same schedules, on
// problems of changing sizes (its buffers are reused across calls), and agree on which mappings
// are not schedules; evaluate()'s batches are laid out as the split says.
TEST(ThroughputPipeline, MakespanAloneMatchesTheFullEvaluation)
{
    for (std::uint64_t seed = 1; seed <= 24; ++seed) {
        const std::size_t n = 4 + (seed * 7) % 9;
        const auto base = test::randomProblem(seed, n, 2 + seed % 2);
        const auto p = pipelinedProblem(base, 4);
        SplitMix64 rng(seed * 53);
        std::vector<std::uint32_t> split(n);
        for (auto& s : split)
            s = static_cast<std::uint32_t>(rng.below(p.splits.size()));
        const auto bfs = breadthFirstOrder(base.dag);
        for (const ThroughputMapping& m :
            { throughputWithOrder(p, split, bfs), throughputEarliestStart(p, split, bfs) }) {
            const ThroughputTimes t = evaluate(p, m);
            ASSERT_TRUE(t.feasible) << "seed " << seed << ": " << t.problem;
            EXPECT_EQ(throughputMakespan(p, m), t.makespan) << "seed " << seed;
            double last = 0;
            for (std::uint32_t task = 0; task < n; ++task)
                for (std::uint32_t u = 0; u < base.deviceCount(); ++u) {
                    const auto batches = static_cast<std::size_t>(p.batchesOn(split[task], u));
                    ASSERT_EQ(t.batchStart[task][u].size(), batches);
                    ASSERT_EQ(t.batchFinish[task][u].size(), batches);
                    if (!batches)
                        continue;
                    EXPECT_EQ(t.start[task][u], t.batchStart[task][u].front());
                    EXPECT_EQ(t.finish[task][u], t.batchFinish[task][u].back());
                    last = std::max(last, t.finish[task][u]);
                }
            EXPECT_EQ(last, t.makespan);
        }
        // A device order that leaves out one of its batches: neither evaluation takes it.
        ThroughputMapping broken = throughputWithOrder(p, split, bfs);
        for (auto& order : broken.order)
            if (!order.empty()) {
                order.pop_back();
                break;
            }
        EXPECT_FALSE(evaluate(p, broken).feasible);
        EXPECT_EQ(throughputMakespan(p, broken), kUnsupported);
    }
}

// One long piece (a source, three mixing chains of ten, a sink: 32 tasks), past the size where
// each further (entry, exit) pair is priced near its ends only: still never worse than a batched
// heuristic, and what the pieces and their polish found beats the heuristics' pool on most seeds.
TEST(ThroughputPipeline, LongPiecesNeverWorseThanTheHeuristics)
{
    MapperOptions o;
    o.maxNodes = 1;
    o.timeLimitSeconds = 600; // a safety net: nodes and iterations are the limits
    int ownWins = 0;
    const int cases = 3;
    for (std::uint64_t seed = 1; seed <= cases; ++seed) {
        const auto base = test::forkJoinProblem(seed, 3, 10, 3);
        const auto p = pipelinedProblem(base, 4);
        const auto split = runThroughputMapper("milp-split", p, o);
        ASSERT_TRUE(split.times.feasible);
        EXPECT_NEAR(split.times.makespan, evaluate(p, split.mapping).makespan, 1e-15);
        for (const char* h : { "bd", "met", "greedy", "heft", "sa", "ea" }) {
            const auto r = runThroughputMapper(h, p, o);
            EXPECT_LE(split.times.makespan, r.times.makespan * (1 + 1e-12)) << h << ", seed " << seed;
        }
        ownWins += split.note.find("was better") == std::string::npos;
        std::printf("seed %llu: %.4f ms; %s\n", static_cast<unsigned long long>(seed), split.times.makespan * 1e3,
            split.note.c_str());
    }
    EXPECT_GE(ownWins, 2);
}

} // namespace
} // namespace opsched::map
