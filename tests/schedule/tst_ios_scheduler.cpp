// The IOS dynamic program against exhaustive search with the same cost model.
#include "graph/reachability.h"
#include "model/model_ref.h"
#include "schedule/basic_schedulers.h"
#include "schedule/ios_scheduler.h"
#include "sim/simulator.h"

#include "support/schedule_test_support.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <numeric>

using namespace opsched;

namespace {

// Every stage schedule IOS can express: the last stage is any non-empty set of remaining ops
// closed under successors; its groups are its connected components (pruned by r and s).
class BruteForce {
public:
    BruteForce(const Graph& g, StageCostModel& cost, IosVariant variant, std::size_t r, std::size_t s)
        : g_(g)
        , cost_(cost)
        , variant_(variant)
        , r_(r)
        , s_(s)
    {
    }

    double best(std::uint32_t remaining)
    {
        if (remaining == 0)
            return 0;
        if (auto it = memo_.find(remaining); it != memo_.end())
            return it->second;
        double bestCost = std::numeric_limits<double>::infinity();
        for (std::uint32_t e = remaining; e; e = (e - 1) & remaining) {
            if (!closed(e, remaining))
                continue;
            const double stage = stageCost(e);
            if (std::isfinite(stage))
                bestCost = std::min(bestCost, stage + best(remaining & ~e));
        }
        memo_[remaining] = bestCost;
        return bestCost;
    }

private:
    bool closed(std::uint32_t e, std::uint32_t remaining) const
    {
        for (std::uint32_t v = 0; v < g_.opCount(); ++v)
            if (e >> v & 1U)
                for (auto s : g_.successors(OpId(v)))
                    if ((remaining >> s & 1U) && !(e >> s & 1U))
                        return false;
        return true;
    }

    double stageCost(std::uint32_t e)
    {
        Stage stage;
        for (auto& members : test::componentsOf(g_, e)) {
            if (members.size() > r_)
                return std::numeric_limits<double>::infinity();
            stage.groups.push_back(members);
        }
        if (stage.groups.size() > s_)
            return std::numeric_limits<double>::infinity();
        std::sort(stage.groups.begin(), stage.groups.end());
        const bool single = stage.groups.size() == 1 && stage.groups.front().size() == 1;
        const bool singles
            = std::all_of(stage.groups.begin(), stage.groups.end(), [](const auto& gr) { return gr.size() == 1; });
        double best = std::numeric_limits<double>::infinity();
        if (variant_ != IosVariant::Merge || single)
            best = cost_.stageLatency(g_, stage);
        if (variant_ != IosVariant::Parallel && singles && stage.groups.size() > 1) {
            std::vector<OpId> ops;
            for (const auto& gr : stage.groups)
                ops.push_back(gr.front());
            if (mergeProblem(g_, ops).empty()) {
                Stage merged = stage;
                merged.strategy = StageStrategy::Merge;
                best = std::min(best, cost_.stageLatency(g_, merged));
            }
        }
        return best;
    }

    const Graph& g_;
    StageCostModel& cost_;
    IosVariant variant_;
    std::size_t r_, s_;
    std::map<std::uint32_t, double> memo_;
};

struct Case {
    std::string model;
    std::size_t r, s;
    IosVariant variant;
};

class IosOptimality : public ::testing::TestWithParam<Case> { };

TEST_P(IosOptimality, MatchesExhaustiveSearch)
{
    const Case& c = GetParam();
    const Graph g = loadModel(c.model);
    ASSERT_LE(g.opCount(), 10U);
    SimulatedStageCost cost(findSimDevice("sim:v100"));
    IosOptions o;
    o.variant = c.variant;
    o.maxGroupOps = c.r;
    o.maxGroups = c.s;
    o.splitBlocks = false; // search the whole graph at once, as the brute force does
    o.maxPartOps = 64;
    const IosResult result = iosSchedule(g, cost, o);
    ASSERT_TRUE(validate(g, result.schedule).empty()) << validate(g, result.schedule).front();

    BruteForce brute(g, cost, c.variant, c.r, c.s);
    const double optimum = brute.best((1U << g.opCount()) - 1U);
    EXPECT_NEAR(result.latency, optimum, 1e-12) << c.model;

    // The estimate is the latency of the schedule it returns.
    double sum = 0;
    for (const auto& stage : result.schedule.stages)
        sum += cost.stageLatency(g, stage);
    EXPECT_NEAR(sum, result.latency, 1e-12);
}

std::vector<Case> cases()
{
    std::vector<Case> out;
    for (int seed = 1; seed <= 12; ++seed) {
        const int ops = 4 + seed % 5; // 4..8 ops
        const std::string model = "zoo:random?ops=" + std::to_string(ops) + "&width=" + std::to_string(2 + seed % 3)
            + "&seed=" + std::to_string(seed);
        out.push_back({ model, 8, 8, IosVariant::Parallel });
        out.push_back({ model, 2, 2, IosVariant::Parallel });
        out.push_back({ model, 3, 8, IosVariant::Both });
    }
    return out;
}

INSTANTIATE_TEST_SUITE_P(RandomDags, IosOptimality, ::testing::ValuesIn(cases()));

TEST(IosScheduler, MergeFindsMergeableSiblings)
{
    // SqueezeNet's expand1x1 / expand3x3 read the same input with the same stride: ios-merge
    // merges them.
    const Graph g = loadModel("zoo:squeezenet");
    SimulatedStageCost cost(findSimDevice("sim:v100"));
    IosOptions o;
    o.variant = IosVariant::Merge;
    const IosResult r = iosSchedule(g, cost, o);
    ASSERT_TRUE(validate(g, r.schedule).empty());
    std::size_t merges = 0;
    for (const auto& s : r.schedule.stages)
        merges += s.strategy == StageStrategy::Merge ? 1 : 0;
    EXPECT_GT(merges, 0U);
}

TEST(IosScheduler, NoWorseThanSequentialAndGreedyOnTheZoo)
{
    const SimDevice& v100 = findSimDevice("sim:v100");
    for (const char* m : { "zoo:inception_v3", "zoo:squeezenet", "zoo:googlenet", "zoo:randwire" }) {
        const Graph g = loadModel(m);
        SimulatedStageCost cost(v100);
        const IosResult r = iosSchedule(g, cost);
        ASSERT_TRUE(validate(g, r.schedule).empty()) << m;
        const double ios = simulate(g, compileSchedule(g, r.schedule), v100).latency;
        EXPECT_NEAR(ios, r.latency, 1e-9 + 1e-6 * ios) << m << ": the search's estimate is the simulated latency";
        EXPECT_LE(ios, simulate(g, compileSchedule(g, sequentialSchedule(g)), v100).latency) << m;
        EXPECT_LE(ios, simulate(g, compileSchedule(g, greedySchedule(g)), v100).latency) << m;
        EXPECT_GT(r.states, 0U);
        EXPECT_GE(r.transitions, r.states);
    }
}

TEST(IosScheduler, IdenticalPartsAreSearchedOnce)
{
    const Graph g = loadModel("zoo:nasnet_a");
    SimulatedStageCost cost(findSimDevice("sim:v100"));
    IosOptions o;
    o.maxGroupOps = 2;
    o.maxGroups = 4;
    const IosResult r = iosSchedule(g, cost, o);
    EXPECT_TRUE(validate(g, r.schedule).empty());
    // Per repeat, the four normal cells after the first two read alike inputs (3 reuses x 3
    // repeats), less one: small parts are searched together with their neighbour, and in one
    // repeat that joins a cell to the part before it.
    EXPECT_EQ(r.reusedParts, 8U);
    EXPECT_LE(r.largestPart, o.maxPartOps);
}

TEST(IosScheduler, ProgressAndCancellation)
{
    const Graph g = loadModel("zoo:inception_v3");
    SimulatedStageCost cost(findSimDevice("sim:v100"));
    IosOptions o;
    std::size_t calls = 0, lastDone = 0;
    o.progress = [&](const IosProgress& p) {
        ++calls;
        EXPECT_EQ(p.partsDone, lastDone + 1);
        lastDone = p.partsDone;
        EXPECT_LE(p.partsDone, p.partsTotal);
        return true;
    };
    const IosResult r = iosSchedule(g, cost, o);
    EXPECT_EQ(calls, r.parts);

    o.progress = [](const IosProgress& p) { return p.partsDone < 3; };
    EXPECT_THROW(iosSchedule(g, cost, o), Cancelled);
}

TEST(IosScheduler, PartsLargerThan64OpsWork)
{
    const Graph g = loadModel("zoo:random?ops=70&width=1&seed=4");
    SimulatedStageCost cost(findSimDevice("sim:v100"));
    IosOptions o;
    o.maxPartOps = 100;
    const IosResult r = iosSchedule(g, cost, o);
    EXPECT_TRUE(validate(g, r.schedule).empty());
    EXPECT_EQ(r.largestPart, 70U);
}

TEST(IosScheduler, RejectsZeroPruningLimits)
{
    const Graph g = loadModel("zoo:squeezenet");
    SimulatedStageCost cost(findSimDevice("sim:v100"));
    IosOptions o;
    o.maxGroupOps = 0;
    EXPECT_THROW(iosSchedule(g, cost, o), Error);
}

} // namespace
