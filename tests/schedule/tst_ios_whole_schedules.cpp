// IOS against every stage schedule of small DAGs, each evaluated whole the way `evaluate` does
// (lowered to a plan and simulated end to end), not with the search's own stage costs: so a loss
// at a block or part boundary, or a stage cost that does not add up, shows here.
#include "model/model_ref.h"
#include "plan/lowering.h"
#include "schedule/ios_scheduler.h"
#include "schedule/schedulers.h"
#include "sim/simulator.h"

#include "support/schedule_test_support.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <map>
#include <numeric>
#include <string>

using namespace opsched;

namespace {

// Enumerates every sequence of stages: a stage is any non-empty set of the ops left whose
// predecessors all ran earlier or sit in the stage; its groups are its connected components, ops
// in topological order. Keeps the best whole-schedule latency.
class WholeScheduleSearch {
public:
    WholeScheduleSearch(const Graph& g, const SimDevice& device, const SimOptions& options)
        : g_(g)
        , device_(device)
        , options_(options)
        , table_(g)
    {
        const auto order = g.topologicalOrder();
        rank_.resize(g.opCount());
        for (std::uint32_t i = 0; i < order.size(); ++i)
            rank_[order[i].value()] = i;
    }

    double best()
    {
        const std::uint32_t all = (1U << g_.opCount()) - 1;
        Schedule prefix;
        walk(all, prefix);
        return best_;
    }
    std::size_t evaluated() const { return evaluated_; }
    const Schedule& bestSchedule() const { return bestSchedule_; }

private:
    void walk(std::uint32_t remaining, Schedule& prefix)
    {
        if (remaining == 0) {
            ++evaluated_;
            const double t = simulate(g_, compileSchedule(g_, prefix), device_, options_, &table_).latency;
            if (t < best_) {
                best_ = t;
                bestSchedule_ = prefix;
            }
            return;
        }
        for (std::uint32_t s = remaining; s; s = (s - 1) & remaining) {
            if (!runnable(s, remaining))
                continue;
            prefix.stages.push_back(stageOf(s));
            walk(remaining & ~s, prefix);
            prefix.stages.pop_back();
        }
    }

    // Every op of s has its predecessors done (outside remaining) or in s.
    bool runnable(std::uint32_t s, std::uint32_t remaining) const
    {
        for (std::uint32_t v = 0; v < g_.opCount(); ++v)
            if (s >> v & 1U)
                for (auto p : g_.predecessors(OpId(v)))
                    if ((remaining >> p & 1U) && !(s >> p & 1U))
                        return false;
        return true;
    }

    Stage stageOf(std::uint32_t s) const
    {
        Stage stage;
        for (auto& members : test::componentsOf(g_, s)) {
            std::sort(
                members.begin(), members.end(), [&](OpId a, OpId b) { return rank_[a.value()] < rank_[b.value()]; });
            stage.groups.push_back(members);
        }
        std::sort(stage.groups.begin(), stage.groups.end());
        return stage;
    }

    const Graph& g_;
    const SimDevice& device_;
    SimOptions options_;
    KernelTable table_;
    std::vector<std::uint32_t> rank_;
    double best_ = std::numeric_limits<double>::infinity();
    Schedule bestSchedule_;
    std::size_t evaluated_ = 0;
};

std::string describe(const Graph& g, const Schedule& s)
{
    std::string out;
    for (const auto& stage : s.stages) {
        out += "[";
        for (std::size_t i = 0; i < stage.groups.size(); ++i) {
            out += i ? " | " : "";
            for (std::size_t j = 0; j < stage.groups[i].size(); ++j)
                out += (j ? " " : "") + g.op(stage.groups[i][j]).name;
        }
        out += "] ";
    }
    return out;
}

struct Instance {
    int ops, width;
    std::uint64_t seed;
    const char* device;
    bool cudaGraph;
};

std::string nameOf(const ::testing::TestParamInfo<Instance>& info)
{
    const Instance& c = info.param;
    return "ops" + std::to_string(c.ops) + "_width" + std::to_string(c.width) + "_seed" + std::to_string(c.seed) + "_"
        + std::string(c.device).substr(4) + (c.cudaGraph ? "_graph" : "");
}

std::vector<Instance> instances()
{
    std::vector<Instance> out;
    for (const char* device : { "sim:v100", "sim:h100" })
        for (int ops : { 5, 6, 7, 8 })
            for (int width : { 2, 3, 4 })
                for (std::uint64_t seed = 1; seed <= 10; ++seed)
                    out.push_back({ ops, width, seed, device, seed % 3 == 2 });
    return out;
}

class IosAgainstWholeSchedules : public ::testing::TestWithParam<Instance> { };

TEST_P(IosAgainstWholeSchedules, NeverSlowerThanTheBestStageSchedule)
{
    const Instance& c = GetParam();
    const std::string ref = "zoo:random?ops=" + std::to_string(c.ops) + "&width=" + std::to_string(c.width)
        + "&seed=" + std::to_string(c.seed);
    const Graph g = loadModel(ref);
    ASSERT_LE(g.opCount(), 8U) << ref;
    const SimDevice& device = findSimDevice(c.device);
    SimOptions sim;
    sim.cudaGraph = c.cudaGraph;

    WholeScheduleSearch exhaustive(g, device, sim);
    const double best = exhaustive.best();
    ASSERT_GT(exhaustive.evaluated(), 0U);

    for (const IosVariant variant : { IosVariant::Both, IosVariant::Parallel }) {
        SimulatedStageCost cost(device, sim);
        IosOptions o;
        o.variant = variant;
        o.maxGroupOps = 8; // no pruning on graphs of 8 ops: the search sees every stage schedule
        o.maxGroups = 8;
        const IosResult r = iosSchedule(g, cost, o);
        ASSERT_TRUE(validate(g, r.schedule).empty()) << ref;
        const double ios = simulate(g, compileSchedule(g, r.schedule), device, sim).latency;
        const char* name = variant == IosVariant::Both ? "ios" : "ios-parallel";
        EXPECT_LE(ios, best * (1 + 1e-9))
            << ref << " on " << c.device << (c.cudaGraph ? " (graph)" : "") << ": " << name << " " << ios * 1e3
            << " ms " << describe(g, r.schedule) << "vs best of " << exhaustive.evaluated() << " schedules "
            << best * 1e3 << " ms " << describe(g, exhaustive.bestSchedule());

        // The events lowering keeps the launches and drops the joins nothing needs; it can lose (a
        // later stage's kernel then contends with the critical path), so `best` keeps the faster.
        const Plan eventsPlan = lowerSchedule(g, r.schedule, Lowering::Events);
        ASSERT_TRUE(validate(g, eventsPlan).empty()) << ref;
        EXPECT_TRUE(eventsPlan.barriers.empty());
        const double events = simulate(g, eventsPlan, device, sim).latency;
        SchedulerParams params;
        params.r = 8;
        params.s = 8;
        params.lowering = std::nullopt; // best
        const SchedulerOutput out = runScheduler(name, g, cost, params);
        const double chosen = simulate(g, out.plan, device, sim).latency;
        EXPECT_DOUBLE_EQ(chosen, std::min(ios, events)) << ref << " " << name;
        EXPECT_EQ(out.params.at("lowering"), events < ios ? "events" : "barriers");
        EXPECT_LE(chosen, best * (1 + 1e-9)) << ref << " " << name;
    }
}

INSTANTIATE_TEST_SUITE_P(RandomDags, IosAgainstWholeSchedules, ::testing::ValuesIn(instances()), nameOf);

} // namespace
