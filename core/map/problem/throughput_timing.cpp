// Timing a throughput mapping: every batch once its device is free and the batches of its
// predecessors that hold its inputs have finished and their results arrived. The mappers call
// this hundreds of thousands of times per run, so the state lives in flat arrays reused across
// calls on one thread (one allocation per growth, not a few thousand per call).
#include "map/problem/throughput_problem.h"

#include <algorithm>
#include <cmath>

namespace opsched::map {
namespace {

struct Timing {
    const ThroughputProblem* p = nullptr;
    const std::vector<std::uint32_t>* split = nullptr;
    std::size_t n = 0, k = 0;
    std::vector<std::int64_t> first; // [t * k + u]: the block's first input
    std::vector<std::size_t> offset; // [t * k + u]: its first batch in batchStart/batchFinish
    std::vector<double> batchStart, batchFinish;
    std::vector<std::int64_t> previous, nextOnDevice; // blocks before and after on the device
    std::vector<std::uint32_t> waiting;
    std::vector<std::size_t> ready; // FIFO, read from `head`
    std::vector<double> memory;
    double makespan = 0, transferredBytes = 0;
    std::size_t transfers = 0;

    std::int64_t count(std::uint32_t t, std::uint32_t u) const { return p->splits[(*split)[t]][u]; }
    std::int64_t batches(std::uint32_t t, std::uint32_t u) const { return p->batchesOn((*split)[t], u); }
    // Inputs the blocks (a on u) and (b on v) share.
    std::int64_t overlap(std::uint32_t a, std::uint32_t u, std::uint32_t b, std::uint32_t v) const
    {
        const std::int64_t lo = std::max(first[a * k + u], first[b * k + v]);
        const std::int64_t hi = std::min(first[a * k + u] + count(a, u), first[b * k + v] + count(b, v));
        return std::max<std::int64_t>(0, hi - lo);
    }
};

// The batches of (t on u) one after another from `free`. False: a result needs a missing link.
bool timeBlock(Timing& T, std::uint32_t t, std::uint32_t u, double free, std::vector<Transfer>* transfers)
{
    const ThroughputProblem& p = *T.p;
    const std::size_t k = T.k, node = t * k + u;
    const std::int64_t m = T.batches(t, u), h = T.count(t, u) / m;
    const double cost = p.costOf(t, u, h);
    for (std::int64_t j = 0; j < m; ++j) {
        const std::int64_t lo = T.first[node] + j * h, hi = lo + h;
        double s = free;
        for (std::uint32_t q : p.base.dag.predecessors[t])
            for (std::uint32_t w = 0; w < k; ++w) {
                const std::int64_t c = T.count(q, w), qFirst = T.first[q * k + w];
                if (!c || qFirst >= hi || qFirst + c <= lo)
                    continue;
                const std::int64_t hq = c / T.batches(q, w);
                const std::int64_t from = std::max<std::int64_t>(0, (lo - qFirst) / hq);
                const std::int64_t to = std::min<std::int64_t>(c / hq - 1, (hi - 1 - qFirst) / hq);
                for (std::int64_t jq = from; jq <= to; ++jq) {
                    const std::int64_t qlo = qFirst + jq * hq;
                    const std::int64_t shared = std::min(hi, qlo + hq) - std::max(lo, qlo);
                    double arrival = T.batchFinish[T.offset[q * k + w] + static_cast<std::size_t>(jq)];
                    if (w != u) {
                        const Link& link = p.base.links[w][u];
                        if (!link.connected())
                            return false;
                        const double bytes = static_cast<double>(shared) * p.base.tasks[q].outputBytes;
                        const double sent = arrival;
                        arrival += link.latencySeconds + bytes / link.bandwidthBytesPerSecond;
                        if (transfers)
                            transfers->push_back({ q, t, w, u, sent, arrival, bytes });
                        ++T.transfers;
                        T.transferredBytes += bytes;
                    }
                    s = std::max(s, arrival);
                }
            }
        const std::size_t b = T.offset[node] + static_cast<std::size_t>(j);
        T.batchStart[b] = s;
        T.batchFinish[b] = free = s + cost;
    }
    T.makespan = std::max(T.makespan, free);
    return true;
}

// Why the splits cannot run (a split that does not exist, a device without a cost or the memory
// for its batches), or "".
std::string refuseSplits(Timing& T, const ThroughputProblem& p, const ThroughputMapping& m)
{
    const std::size_t n = T.n, k = T.k;
    T.memory.assign(k, 0.0);
    for (std::uint32_t t = 0; t < n; ++t) {
        if (m.split[t] >= p.splits.size())
            return "task " + p.base.tasks[t].name + " names a split that does not exist";
        for (std::uint32_t u = 0; u < k; ++u) {
            const std::int64_t c = p.splits[m.split[t]][u];
            if (c == 0)
                continue;
            if (!std::isfinite(p.blockCost(t, m.split[t], u)))
                return "task " + p.base.tasks[t].name + " cannot run " + std::to_string(c) + " inputs on "
                    + p.base.devices[u].name;
            const MapTask& task = p.base.tasks[t];
            T.memory[u] += static_cast<double>(c) * (task.inputBytes + task.outputBytes) + task.weightBytes;
        }
    }
    for (std::uint32_t u = 0; u < k; ++u)
        if (T.memory[u] > p.base.devices[u].memoryBytes)
            return "the batches mapped to " + p.base.devices[u].name + " need more than its memory";
    return {};
}

// Times every batch into T. Returns the reason the mapping is not a schedule, or "".
std::string timeMapping(
    Timing& T, const ThroughputProblem& p, const ThroughputMapping& m, std::vector<Transfer>* transfers)
{
    if (transfers)
        transfers->clear();
    const std::size_t n = p.base.taskCount(), k = p.base.deviceCount(), nodes = n * k;
    T.p = &p;
    T.split = &m.split;
    T.n = n;
    T.k = k;
    T.makespan = T.transferredBytes = 0;
    T.transfers = 0;
    if (m.split.size() != n || m.order.size() != k)
        return "the mapping does not cover every task and device";
    if (std::string why = refuseSplits(T, p, m); !why.empty())
        return why;
    // Inputs are dealt out in device order; batches laid out block after block.
    T.first.assign(nodes, 0);
    T.offset.assign(nodes + 1, 0);
    for (std::uint32_t t = 0; t < n; ++t)
        for (std::uint32_t u = 0; u < k; ++u) {
            const std::size_t node = t * k + u;
            if (u > 0)
                T.first[node] = T.first[node - 1] + T.count(t, u - 1);
            T.offset[node + 1] = T.offset[node] + static_cast<std::size_t>(T.batches(t, u));
        }
    T.batchStart.assign(T.offset[nodes], 0.0);
    T.batchFinish.assign(T.offset[nodes], 0.0);
    // Blocks (t on u, all of t's batches there) as nodes: Kahn over the blocks' dependencies and
    // device orders decides in which order blocks are timed; each batch is timed on its own.
    T.previous.assign(nodes, -2);
    T.nextOnDevice.assign(nodes, -1);
    for (std::uint32_t u = 0; u < k; ++u) {
        std::int64_t before = -1;
        for (std::uint32_t t : m.order[u]) {
            const std::size_t node = t * k + u;
            if (t >= n || T.count(t, u) == 0 || T.previous[node] != -2)
                return "device " + p.base.devices[u].name + "'s order lists a task without a batch there, or twice";
            T.previous[node] = before;
            if (before >= 0)
                T.nextOnDevice[static_cast<std::size_t>(before)] = static_cast<std::int64_t>(node);
            before = static_cast<std::int64_t>(node);
        }
    }
    T.waiting.assign(nodes, 0);
    T.ready.clear();
    std::size_t blocks = 0;
    for (std::uint32_t t = 0; t < n; ++t)
        for (std::uint32_t u = 0; u < k; ++u) {
            if (T.count(t, u) == 0)
                continue;
            ++blocks;
            const std::size_t node = t * k + u;
            if (T.previous[node] == -2)
                return "task " + p.base.tasks[t].name + "'s batch on " + p.base.devices[u].name
                    + " is missing from the device's order";
            T.waiting[node] = T.previous[node] >= 0 ? 1 : 0;
            for (std::uint32_t q : p.base.dag.predecessors[t])
                for (std::uint32_t w = 0; w < k; ++w)
                    if (T.count(q, w) && T.overlap(q, w, t, u))
                        ++T.waiting[node];
            if (T.waiting[node] == 0)
                T.ready.push_back(node);
        }
    for (std::size_t head = 0; head < T.ready.size(); ++head) {
        const std::size_t node = T.ready[head];
        const auto t = static_cast<std::uint32_t>(node / k), u = static_cast<std::uint32_t>(node % k);
        const std::int64_t prev = T.previous[node];
        const double free = prev >= 0 ? T.batchFinish[T.offset[static_cast<std::size_t>(prev) + 1] - 1] : 0.0;
        if (!timeBlock(T, t, u, free, transfers)) {
            for (std::uint32_t q : p.base.dag.predecessors[t])
                for (std::uint32_t w = 0; w < k; ++w)
                    if (w != u && T.count(q, w) && T.overlap(q, w, t, u) && !p.base.links[w][u].connected())
                        return "no link from " + p.base.devices[w].name + " to " + p.base.devices[u].name;
            return "a missing link";
        }
        for (std::uint32_t c : p.base.dag.successors[t])
            for (std::uint32_t v = 0; v < k; ++v)
                if (T.count(c, v) && T.overlap(t, u, c, v) && --T.waiting[c * k + v] == 0)
                    T.ready.push_back(c * k + v);
        if (const std::int64_t next = T.nextOnDevice[node];
            next >= 0 && --T.waiting[static_cast<std::size_t>(next)] == 0)
            T.ready.push_back(static_cast<std::size_t>(next));
    }
    if (T.ready.size() != blocks)
        return "a device's order contradicts the dependencies";
    return {};
}

Timing& threadTiming()
{
    thread_local Timing timing;
    return timing;
}

} // namespace

ThroughputTimes evaluate(const ThroughputProblem& p, const ThroughputMapping& m, std::vector<Transfer>* transfers)
{
    Timing& T = threadTiming();
    ThroughputTimes out;
    if (std::string why = timeMapping(T, p, m, transfers); !why.empty()) {
        out.problem = std::move(why);
        out.makespan = kUnsupported;
        return out;
    }
    const std::size_t n = T.n, k = T.k;
    out.start.assign(n, std::vector<double>(k, 0.0));
    out.finish = out.start;
    out.batchStart.assign(n, std::vector<std::vector<double>>(k));
    out.batchFinish = out.batchStart;
    for (std::size_t t = 0; t < n; ++t)
        for (std::size_t u = 0; u < k; ++u) {
            const std::size_t node = t * k + u;
            const auto from = static_cast<std::ptrdiff_t>(T.offset[node]);
            const auto to = static_cast<std::ptrdiff_t>(T.offset[node + 1]);
            if (from == to)
                continue;
            out.batchStart[t][u].assign(T.batchStart.begin() + from, T.batchStart.begin() + to);
            out.batchFinish[t][u].assign(T.batchFinish.begin() + from, T.batchFinish.begin() + to);
            out.start[t][u] = out.batchStart[t][u].front();
            out.finish[t][u] = out.batchFinish[t][u].back();
        }
    out.feasible = true;
    out.makespan = T.makespan;
    out.throughput = static_cast<double>(p.inputs) / out.makespan;
    out.transfers = T.transfers;
    out.transferredBytes = T.transferredBytes;
    return out;
}

double throughputMakespan(const ThroughputProblem& p, const ThroughputMapping& m)
{
    Timing& T = threadTiming();
    return timeMapping(T, p, m, nullptr).empty() ? T.makespan : kUnsupported;
}

} // namespace opsched::map
