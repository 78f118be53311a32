// Flows and the critical path of a timeline: from the simulator, and from a plan laid over spans
// (as for stored runs), which must agree; the critical path on hand-made plans.
#include "engine/timeline/timeline_data.h"

#include "model/model_ref.h"
#include "plan/lowering.h"
#include "schedule/schedulers.h"
#include "schedule/stage_cost.h"
#include "sim/sim_device.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

using namespace opsched;

namespace {

bool sameFlows(std::vector<TimelineFlow> a, std::vector<TimelineFlow> b)
{
    auto key = [](const TimelineFlow& f) { return std::make_tuple(f.from, f.to, f.fromRow, f.toRow); };
    auto less = [&](const TimelineFlow& x, const TimelineFlow& y) { return key(x) < key(y); };
    std::sort(a.begin(), a.end(), less);
    std::sort(b.begin(), b.end(), less);
    return a.size() == b.size()
        && std::equal(a.begin(), a.end(), b.begin(), [&](const auto& x, const auto& y) { return key(x) == key(y); });
}

Launch launch(std::uint32_t op, std::uint32_t stream, std::vector<std::uint32_t> waits = {})
{
    return Launch { { OpId(op) }, StreamId(stream), std::move(waits) };
}

} // namespace

TEST(TimelineData, PlanOverSpansAgreesWithTheSimulator)
{
    struct Case {
        std::string scheduler, lowering;
    };
    for (const Case& c :
        { Case { "nimble", "" }, Case { "opara", "" }, Case { "ios", "events" }, Case { "ios", "barriers" } }) {
        SCOPED_TRACE(c.scheduler + " " + c.lowering);
        const Graph g = loadModel("zoo:inception_v3");
        const SimDevice& device = findSimDevice("sim:v100");
        SimulatedStageCost cost(device);
        SchedulerParams params;
        if (!c.lowering.empty())
            params.lowering = parseLowering(c.lowering);
        const SchedulerOutput out = runScheduler(c.scheduler, g, cost, params);
        const TimelineData sim = timelineFromSimulation(g, out.plan, simulate(g, out.plan, device), device);
        EXPECT_FALSE(sim.criticalPath.empty());
        // Every flow goes between two different op rows, forwards in time.
        for (const auto& f : sim.flows) {
            EXPECT_TRUE(f.fromRow != f.toRow);
            EXPECT_TRUE(f.to >= f.from - 1e-12);
        }
        const auto joins
            = std::count_if(sim.flows.begin(), sim.flows.end(), [](const TimelineFlow& f) { return f.join; });
        if (c.lowering == "barriers") {
            // Barriers: no event waits, a join at each stage boundary into the streams of the next stage.
            EXPECT_EQ(static_cast<std::size_t>(joins), sim.flows.size());
            EXPECT_TRUE(joins > 0);
            for (const auto& f : sim.flows) {
                // A join starts when the previous stage ends.
                const auto stage = std::find_if(sim.stages.begin(), sim.stages.end(),
                    [&](const auto& st) { return std::abs(st.second - f.from) < 1e-12; });
                EXPECT_TRUE(stage != sim.stages.end());
            }
        } else {
            EXPECT_EQ(joins, 0);
            EXPECT_FALSE(sim.flows.empty());
        }
        // The critical path ends with the op that ends the run, and its ops follow each other in time.
        double lastEnd = -1, previousStart = -1;
        for (auto op : sim.criticalPath)
            for (std::size_t r = 0; r < sim.rows.rowCount(); r += 2)
                for (const auto& s : sim.rows.row(r))
                    if (s.id == op) {
                        EXPECT_TRUE(s.start >= previousStart - 1e-12);
                        previousStart = s.start;
                        lastEnd = std::max(lastEnd, s.end);
                    }
        EXPECT_EQ(lastEnd, sim.rows.lastEnd());

        // The same plan laid over the same spans, as a stored run of the open model gets it.
        TimelineData stored = sim;
        stored.flows.clear();
        stored.criticalPath.clear();
        addPlanStructure(stored, out.plan);
        EXPECT_TRUE(sameFlows(stored.flows, sim.flows));
        EXPECT_EQ(stored.criticalPath, sim.criticalPath);
    }
}

TEST(TimelineData, EveryCrossStreamInputHasAnArrow)
{
    // Stage plans (greedy, ios) order stages by barriers: one join per stream, checked above.
    for (const std::string scheduler : { "nimble", "opara" }) {
        SCOPED_TRACE(scheduler);
        // An op drawn on one stream whose inputs were all made on other streams has an arrow coming in,
        // also when they reach it through an op that runs no kernel (Inception's concats): Nimble's
        // Mixed_5c.branch5x5_1 on stream 4 had none. Joins into a concat's consumer count too.
        const Graph g = loadModel("zoo:inception_v3");
        const SimDevice& device = findSimDevice("sim:h100");
        SimulatedStageCost cost(device);
        const SchedulerOutput out = runScheduler(scheduler, g, cost, SchedulerParams {});
        const TimelineData sim = timelineFromSimulation(g, out.plan, simulate(g, out.plan, device), device);
        std::vector<std::int64_t> rowOf(g.opCount(), -1);
        std::vector<double> startOf(g.opCount(), 0);
        for (std::size_t r = 0; r < sim.rows.rowCount(); ++r)
            if (sim.rowKind(r) == TimelineRowKind::Ops)
                for (const auto& span : sim.rows.row(r)) {
                    rowOf[span.id] = static_cast<std::int64_t>(r);
                    startOf[span.id] = span.start;
                }
        // The drawn ops an op's inputs come from, looking through undrawn ones.
        std::function<void(std::uint32_t, std::vector<std::uint32_t>&)> drawnInputs
            = [&](std::uint32_t op, std::vector<std::uint32_t>& acc) {
                  for (auto p : g.predecessors(OpId(op))) {
                      if (rowOf[p] >= 0)
                          acc.push_back(p);
                      else
                          drawnInputs(p, acc);
                  }
              };
        int checked = 0;
        for (std::uint32_t op = 0; op < g.opCount(); ++op) {
            if (rowOf[op] < 0)
                continue;
            std::vector<std::uint32_t> inputs;
            drawnInputs(op, inputs);
            const bool allElsewhere = !inputs.empty()
                && std::all_of(inputs.begin(), inputs.end(), [&](std::uint32_t p) { return rowOf[p] != rowOf[op]; });
            if (!allElsewhere)
                continue;
            ++checked;
            const bool arrow = std::any_of(sim.flows.begin(), sim.flows.end(), [&](const TimelineFlow& f) {
                return static_cast<std::int64_t>(f.toRow) == rowOf[op] && std::abs(f.to - startOf[op]) < 1e-12;
            });
            EXPECT_TRUE(arrow) << g.op(OpId(op)).name;
        }
        EXPECT_TRUE(checked > 5);
    }
}

TEST(TimelineData, CriticalPaths)
{
    struct Case {
        const char* name;
        int plan;
        std::vector<double> spans; // start, end per op (op i = launch i)
        std::vector<std::uint32_t> path;
    };
    const Case cases[] = {
        // 0: one stream, a chain: every op.
        { "chain", 0, { 0, 1, 1, 3, 3, 4 }, { 0, 1, 2 } },
        // 1: two streams, op 2 on stream 0 waits for op 1 on stream 1, which is the longer branch.
        { "wait on the longer branch", 1, { 0, 1, 0, 5, 5, 6 }, { 1, 2 } },
        // 1 again, but stream 0's own predecessor ends later than the waited one.
        { "own stream longer", 1, { 0, 7, 0, 5, 7, 8 }, { 0, 2 } },
        // 2: a barrier before op 2: the longest op before it leads there.
        { "barrier", 2, { 0, 2, 0, 4, 4, 5 }, { 1, 2 } },
        // 3: op 1 ran no kernel (a view): the path goes through what it waited for.
        { "through a view", 3, { 0, 3, 1, 0, 3, 4 }, { 0, 2 } },
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        Plan p;
        switch (c.plan) {
        case 0:
            p.streams = 1;
            p.launches = { launch(0, 0), launch(1, 0), launch(2, 0) };
            break;
        case 1:
            p.streams = 2;
            p.launches = { launch(0, 0), launch(1, 1), launch(2, 0, { 1 }) };
            break;
        case 2:
            p.streams = 2;
            p.launches = { launch(0, 0), launch(1, 1), launch(2, 0) };
            p.barriers = { 2 };
            break;
        case 3:
            p.streams = 2;
            p.launches = { launch(0, 0), launch(1, 1, { 0 }), launch(2, 1) };
            break;
        default:
            FAIL() << "no such plan";
        }
        std::vector<double> start, end;
        for (std::size_t i = 0; i < c.spans.size(); i += 2) {
            start.push_back(c.spans[i]);
            end.push_back(c.spans[i + 1]);
        }
        const auto got = criticalPathOps(p, start, end);
        EXPECT_EQ(std::vector<std::uint32_t>(got.begin(), got.end()), c.path);
        // Mismatched inputs give no path rather than garbage.
        EXPECT_TRUE(criticalPathOps(p, {}, {}).empty());
    }
}
