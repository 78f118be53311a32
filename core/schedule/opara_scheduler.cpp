#include "schedule/opara_scheduler.h"

#include "plan/lowering.h"
#include "sim/kernel_model.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace opsched {

std::vector<StreamId> oparaStreams(const Graph& graph)
{
    const std::size_t n = graph.opCount();
    std::vector<StreamId> streamOf(n);
    // handedOn[p]: a successor of p already runs on p's stream, so p's stream has moved past p.
    std::vector<bool> handedOn(n, false);
    std::uint32_t streams = 0;
    // Lines 2-8: join the first predecessor whose stream v would continue directly.
    for (const OpId v : graph.topologicalOrder()) {
        for (const auto p : graph.predecessors(v))
            if (!handedOn[p]) {
                handedOn[p] = true;
                streamOf[v.value()] = streamOf[p];
                break;
            }
        if (!streamOf[v.value()].valid()) // lines 9-12: a new stream
            streamOf[v.value()] = StreamId(streams++);
    }
    return streamOf;
}

std::vector<OparaOpProfile> oparaProfile(const Graph& graph, const SimDevice& device)
{
    std::vector<OparaOpProfile> profile(graph.opCount());
    for (const auto& op : graph.ops()) {
        OparaOpProfile& p = profile[op.id.value()];
        const auto kernels = kernelsOf(graph, { op.id });
        p.launchesKernels = !kernels.empty();
        double memorySeconds = 0, totalSeconds = 0;
        for (const auto& k : kernels) {
            const double t = soloSeconds(k, device);
            totalSeconds += t;
            if (k.memoryBound)
                memorySeconds += t;
            p.demand = std::max(p.demand, demandedLanes(k, device));
        }
        p.memoryIntensive = totalSeconds > 0 && 2.0 * memorySeconds >= totalSeconds;
    }
    return profile;
}

std::vector<OpId> oparaLaunchOrder(const Graph& graph, const std::vector<OparaOpProfile>& profile)
{
    const std::size_t n = graph.opCount();
    using Entry = std::pair<double, std::uint32_t>; // (demand, op id): least demand, then lowest id
    // Min-heaps through std::push_heap with greater<>.
    std::vector<Entry> mem, comp;
    std::vector<std::uint32_t> views; // ready ops without kernels, a min-heap by id
    const auto push = [&](std::uint32_t v) {
        const auto& p = profile[v];
        if (!p.launchesKernels) {
            views.push_back(v);
            std::push_heap(views.begin(), views.end(), std::greater<> {});
            return;
        }
        auto& list = p.memoryIntensive ? mem : comp;
        list.emplace_back(p.demand, v);
        std::push_heap(list.begin(), list.end(), std::greater<> {});
    };

    // Line 2: the ops with indegree 0.
    std::vector<std::uint32_t> indegree(n);
    for (std::uint32_t v = 0; v < n; ++v) {
        indegree[v] = static_cast<std::uint32_t>(graph.predecessors(OpId(v)).size());
        if (indegree[v] == 0)
            push(v);
    }

    std::vector<OpId> order;
    order.reserve(n);
    bool memoryTurn = true;
    while (!views.empty() || !mem.empty() || !comp.empty()) {
        std::uint32_t v = 0;
        if (!views.empty()) {
            std::pop_heap(views.begin(), views.end(), std::greater<> {});
            v = views.back();
            views.pop_back();
        } else {
            // Lines 4-6: alternate between the lists, skipping an empty one; take its least demand.
            auto& list = (memoryTurn && !mem.empty()) || comp.empty() ? mem : comp;
            memoryTurn = &list == &comp;
            std::pop_heap(list.begin(), list.end(), std::greater<> {});
            v = list.back().second;
            list.pop_back();
        }
        order.emplace_back(v);
        // Lines 7-16: successors whose last dependency this was become ready.
        for (const auto s : graph.successors(OpId(v)))
            if (--indegree[s] == 0)
                push(s);
    }
    return order;
}

Plan planOnStreams(const Graph& graph, const std::vector<StreamId>& streamOf, const std::vector<OpId>& order)
{
    Plan plan;
    plan.streams = 1; // an empty graph still gets a stream
    for (const auto s : streamOf)
        plan.streams = std::max(plan.streams, s.value() + 1);
    plan.launches.reserve(order.size());
    for (const OpId v : order)
        plan.launches.push_back(Launch { { v }, streamOf[v.value()], {} });
    addDependencyWaits(graph, plan);
    return plan;
}

Plan oparaPlan(const Graph& graph, const SimDevice& device, OparaStats* stats)
{
    const auto started = std::chrono::steady_clock::now();
    const auto streamOf = oparaStreams(graph);
    const auto order = oparaLaunchOrder(graph, oparaProfile(graph, device));
    Plan plan = planOnStreams(graph, streamOf, order);
    if (stats) {
        stats->streams = graph.opCount() == 0 ? 0 : plan.streams;
        stats->syncs = plan.waitCount();
        stats->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    }
    return plan;
}

} // namespace opsched
