// Partitioned execution (CpuOptions::partitions): the plan's streams on disjoint core sets at
// the same time give the serial outputs, for scheduler plans and many random plans with waits and
// barriers across partitions; launch timings honour every cross-partition wait; bad partitions are
// refused with a clear error.
#include "exec/cpu/cpu_executor.h"
#include "exec/cpu/partition_runner.h"
#include "model/model_ref.h"
#include "reference.h"
#include "schedule/basic_schedulers.h"
#include "schedule/schedulers.h"
#include "sim/sim_device.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

using namespace opsched;
using opsched::test::maxAbsDiff;

namespace {

// Two partitions of one core where the process has two cores, else one.
std::vector<std::vector<int>> partitionsHere()
{
    const auto cores = cpu::availableCores();
    if (cores.size() >= 2)
        return { { cores[0] }, { cores[1] } };
    return { { cores.at(0) } };
}

float scaleOf(const std::vector<std::vector<float>>& outs)
{
    float scale = 1.0F;
    for (const auto& o : outs)
        for (float v : o)
            scale = std::max(scale, std::abs(v));
    return scale;
}

// A random valid plan: a random topological order, random streams, a wait on every dependency
// from another stream, and a few random barriers.
Plan randomPlan(const Graph& g, std::uint32_t streams, std::mt19937& rng)
{
    const std::size_t n = g.opCount();
    std::vector<std::size_t> pending(n);
    for (const auto& op : g.ops())
        pending[op.id.value()] = g.predecessors(op.id).size();
    std::vector<std::size_t> ready;
    for (std::size_t i = 0; i < n; ++i)
        if (pending[i] == 0)
            ready.push_back(i);
    Plan plan;
    plan.streams = streams;
    std::vector<std::uint32_t> launchOf(n);
    while (!ready.empty()) {
        const std::size_t k = std::uniform_int_distribution<std::size_t>(0, ready.size() - 1)(rng);
        const std::size_t id = ready[k];
        ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(k));
        Launch l;
        l.ops = { OpId(static_cast<std::uint32_t>(id)) };
        l.stream = StreamId(std::uniform_int_distribution<std::uint32_t>(0, streams - 1)(rng));
        for (auto p : g.predecessors(OpId(static_cast<std::uint32_t>(id))))
            if (plan.launches[launchOf[p]].stream != l.stream)
                l.waitFor.push_back(launchOf[p]);
        std::sort(l.waitFor.begin(), l.waitFor.end());
        l.waitFor.erase(std::unique(l.waitFor.begin(), l.waitFor.end()), l.waitFor.end());
        launchOf[id] = static_cast<std::uint32_t>(plan.launches.size());
        if (!plan.launches.empty() && std::uniform_int_distribution<int>(0, 9)(rng) == 0)
            plan.barriers.push_back(static_cast<std::uint32_t>(plan.launches.size()));
        plan.launches.push_back(std::move(l));
        for (auto s : g.successors(OpId(static_cast<std::uint32_t>(id))))
            if (--pending[s] == 0)
                ready.push_back(s);
    }
    return plan;
}

// Every cross-partition wait and barrier of the plan shows in the timings: the waiter starts
// after what it waits for ends.
void expectTimingsHonourPlan(const Plan& plan, const std::vector<cpu::LaunchTiming>& t, std::size_t partitions)
{
    ASSERT_EQ(t.size(), plan.launches.size());
    const auto before = launchHappensBefore(plan);
    for (std::size_t i = 0; i < t.size(); ++i) {
        EXPECT_EQ(t[i].launch, i);
        EXPECT_LE(t[i].startNs, t[i].endNs);
        EXPECT_EQ(t[i].partition, static_cast<int>(plan.launches[i].stream.value() % partitions));
        for (std::size_t j = 0; j < i; ++j) {
            if (before[i].test(j)) {
                EXPECT_LE(t[j].endNs, t[i].startNs) << "launch " << i << " started before launch " << j << " ended";
            }
        }
    }
}

TEST(Partitions, SchedulerPlansMatchSerial)
{
    SimulatedStageCost cost(findSimDevice("sim:v100"));
    for (const char* model : { "zoo:googlenet", "zoo:randwire?seed=1" }) {
        const Graph g = loadModel(model);
        const auto inputs = cpu::seededInputs(g, 2);
        cpu::CpuOptions serial;
        serial.threads = 1;
        const auto want = cpu::CpuExecutor(g, compileSchedule(g, sequentialSchedule(g)), serial).run(inputs);
        for (const char* scheduler : { "greedy", "ios", "ios-merge", "nimble" }) {
            const Plan plan = runScheduler(scheduler, g, cost).plan;
            cpu::CpuOptions o;
            o.partitions = partitionsHere();
            cpu::CpuExecutor ex(g, plan, o);
            const auto got = ex.run(inputs);
            EXPECT_LE(maxAbsDiff(got, want), 1e-4F * scaleOf(want)) << model << " " << scheduler;
            EXPECT_EQ(ex.run(inputs), got) << model << " " << scheduler << ": runs differ";
            expectTimingsHonourPlan(plan, ex.lastLaunchTimings(), o.partitions.size());
            const auto problems = ex.layout().check();
            EXPECT_TRUE(problems.empty()) << problems.front();
        }
    }
}

TEST(Partitions, RandomPlansMatchSerial)
{
    std::mt19937 rng(17);
    for (int seed = 0; seed < 12; ++seed) {
        const Graph g = loadModel("zoo:random?ops=30&width=5&seed=" + std::to_string(seed));
        const auto inputs = cpu::seededInputs(g, 4);
        cpu::CpuOptions serial;
        serial.threads = 1;
        const auto want = cpu::CpuExecutor(g, compileSchedule(g, sequentialSchedule(g)), serial).run(inputs);
        for (std::uint32_t streams : { 2U, 3U }) {
            const Plan plan = randomPlan(g, streams, rng);
            ASSERT_TRUE(validate(g, plan).empty()) << validate(g, plan).front();
            cpu::CpuOptions o;
            o.partitions = partitionsHere();
            cpu::CpuExecutor ex(g, plan, o);
            for (int run = 0; run < 3; ++run)
                EXPECT_LE(maxAbsDiff(ex.run(inputs), want), 1e-4F * scaleOf(want))
                    << "seed " << seed << ", " << streams << " streams, run " << run;
            expectTimingsHonourPlan(plan, ex.lastLaunchTimings(), o.partitions.size());
            // The concurrent layout never shares bytes more than the serial one would allow.
            EXPECT_GE(ex.peakArenaBytes(), cpu::CpuExecutor(g, plan, serial).peakArenaBytes() / 4);
        }
    }
}

TEST(Partitions, SerialRunsReportTimingsToo)
{
    const Graph g = loadModel("zoo:squeezenet");
    const Plan plan = compileSchedule(g, sequentialSchedule(g));
    cpu::CpuExecutor ex(g, plan, [] {
        cpu::CpuOptions o;
        o.threads = 1;
        return o;
    }());
    EXPECT_TRUE(ex.lastLaunchTimings().empty());
    ex.run(cpu::seededInputs(g, 1));
    expectTimingsHonourPlan(plan, ex.lastLaunchTimings(), 1);
}

TEST(Partitions, BadPartitionsAreRefused)
{
    const Graph g = loadModel("zoo:squeezenet");
    const Plan plan = compileSchedule(g, sequentialSchedule(g));
    const int core = cpu::availableCores().at(0);
    auto message = [&](std::vector<std::vector<int>> partitions) {
        cpu::CpuOptions o;
        o.partitions = std::move(partitions);
        try {
            cpu::CpuExecutor ex(g, plan, o);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(message({ {} }).find("CPU partition 0 has no cores"), std::string::npos);
    EXPECT_NE(message({ { 100000 } }).find("core 100000 is not available"), std::string::npos);
    EXPECT_NE(message({ { -1 } }).find("core -1 is not available"), std::string::npos);
    EXPECT_NE(message({ { core }, { core } }).find("in another partition too"), std::string::npos);
}

} // namespace
