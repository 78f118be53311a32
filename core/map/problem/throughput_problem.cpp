#include "map/problem/throughput_problem.h"

#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>

namespace opsched::map {

double ThroughputProblem::costOf(std::uint32_t task, std::uint32_t device, std::int64_t count) const
{
    const auto it = std::find(sizes.begin(), sizes.end(), count);
    if (it == sizes.end())
        return kUnsupported;
    return seconds[task][device][static_cast<std::size_t>(it - sizes.begin())];
}

std::int64_t ThroughputProblem::batchesOn(std::size_t split, std::uint32_t device) const
{
    if (!splits[split][device])
        return 0;
    return split < pieces.size() && !pieces[split].empty() ? pieces[split][device] : 1;
}

double ThroughputProblem::blockCost(std::uint32_t task, std::size_t split, std::uint32_t device) const
{
    const std::int64_t count = splits[split][device], m = batchesOn(split, device);
    return m ? static_cast<double>(m) * costOf(task, device, count / m) : 0.0;
}

bool ThroughputProblem::pipelined(std::size_t split) const
{
    for (std::uint32_t u = 0; u < splits[split].size(); ++u)
        if (batchesOn(split, u) > 1)
            return true;
    return false;
}

void addPipelinedSplits(ThroughputProblem& p)
{
    if (p.sizes.empty())
        return;
    const std::int64_t g = p.sizes.front();
    const std::size_t whole = p.splits.size();
    p.pieces.resize(whole);
    for (std::size_t s = 0; s < whole; ++s) {
        if (p.pipelined(s))
            continue;
        std::vector<std::int64_t> m(p.splits[s].size(), 0);
        bool more = false;
        for (std::size_t u = 0; u < m.size(); ++u) {
            const std::int64_t c = p.splits[s][u];
            m[u] = c && c % g == 0 ? c / g : (c ? 1 : 0);
            more = more || m[u] > 1;
        }
        if (!more)
            continue;
        p.splits.push_back(p.splits[s]);
        p.pieces.push_back(std::move(m));
    }
}

void ThroughputProblem::validate() const
{
    base.validate();
    if (inputs < 1)
        throw Error("throughput problem: the number of inputs must be at least 1");
    if (sizes.empty() || splits.empty())
        throw Error("throughput problem: no batch sizes split " + std::to_string(inputs) + " inputs over the devices");
    if (seconds.size() != base.taskCount())
        throw Error("throughput problem: costs for " + std::to_string(seconds.size()) + " of "
            + std::to_string(base.taskCount()) + " tasks");
    for (const auto& perDevice : seconds) {
        if (perDevice.size() != base.deviceCount())
            throw Error("throughput problem: a task's costs do not cover every device");
        for (const auto& perSize : perDevice)
            if (perSize.size() != sizes.size())
                throw Error("throughput problem: a task's costs do not cover every batch size");
    }
    if (pieces.size() > splits.size())
        throw Error("throughput problem: more batch counts than splits");
    for (std::size_t s = 0; s < pieces.size(); ++s)
        for (std::size_t u = 0; u < pieces[s].size() && u < splits[s].size(); ++u)
            if (splits[s][u] && (pieces[s][u] < 1 || splits[s][u] % pieces[s][u] != 0))
                throw Error("throughput problem: a split's batches on a device are not equal");
}

std::vector<std::int64_t> paperBatchSizes(std::int64_t inputs)
{
    std::vector<std::int64_t> out;
    for (int quarter = 1; quarter <= 4; ++quarter)
        if ((inputs * quarter) % 4 == 0 && inputs * quarter / 4 >= 1)
            out.push_back(inputs * quarter / 4);
    if (out.empty() || out.back() != inputs)
        out.push_back(inputs);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

std::vector<std::vector<std::int64_t>> enumerateSplits(
    std::int64_t inputs, const std::vector<std::int64_t>& sizes, std::size_t devices)
{
    std::vector<std::vector<std::int64_t>> out;
    std::vector<std::int64_t> current(devices, 0);
    std::function<void(std::size_t, std::int64_t)> rec = [&](std::size_t u, std::int64_t left) {
        if (u == devices) {
            if (left == 0)
                out.push_back(current);
            return;
        }
        current[u] = 0;
        rec(u + 1, left);
        for (std::int64_t s : sizes)
            if (s <= left) {
                current[u] = s;
                rec(u + 1, left - s);
            }
        current[u] = 0;
    };
    rec(0, inputs);
    return out;
}

namespace {

// Where each op's inputs sit: first input of its block (all its batches) on each device.
struct InputLayout {
    std::vector<std::vector<std::int64_t>> first; // [task][device]
    const ThroughputProblem* p = nullptr;
    const std::vector<std::uint32_t>* split = nullptr;

    std::int64_t count(std::uint32_t t, std::uint32_t u) const { return p->splits[(*split)[t]][u]; }
    std::int64_t batches(std::uint32_t t, std::uint32_t u) const { return p->batchesOn((*split)[t], u); }
    // Inputs the blocks (a on u) and (b on v) share.
    std::int64_t overlap(std::uint32_t a, std::uint32_t u, std::uint32_t b, std::uint32_t v) const
    {
        const std::int64_t lo = std::max(first[a][u], first[b][v]);
        const std::int64_t hi = std::min(first[a][u] + count(a, u), first[b][v] + count(b, v));
        return std::max<std::int64_t>(0, hi - lo);
    }
};

InputLayout layoutOf(const ThroughputProblem& p, const std::vector<std::uint32_t>& split)
{
    InputLayout l;
    l.p = &p;
    l.split = &split;
    const std::size_t n = p.base.taskCount(), k = p.base.deviceCount();
    l.first.assign(n, std::vector<std::int64_t>(k, 0));
    for (std::uint32_t t = 0; t < n; ++t)
        for (std::uint32_t u = 1; u < k; ++u)
            l.first[t][u] = l.first[t][u - 1] + p.splits[split[t]][u - 1];
    return l;
}

// The batches of (t on u) one after another from `free`, each once the batches of the
// predecessors holding its inputs have finished and their results arrived. False: no link.
bool timeBlock(const ThroughputProblem& p, const InputLayout& l, std::uint32_t t, std::uint32_t u, double free,
    ThroughputTimes& out, std::vector<Transfer>* transfers)
{
    const std::size_t k = p.base.deviceCount();
    const std::int64_t m = l.batches(t, u), h = l.count(t, u) / m;
    const double cost = p.costOf(t, u, h);
    auto& bs = out.batchStart[t][u];
    auto& bf = out.batchFinish[t][u];
    bs.assign(static_cast<std::size_t>(m), 0.0);
    bf.assign(static_cast<std::size_t>(m), 0.0);
    for (std::int64_t j = 0; j < m; ++j) {
        const std::int64_t lo = l.first[t][u] + j * h, hi = lo + h;
        double s = free;
        for (std::uint32_t q : p.base.dag.predecessors[t])
            for (std::uint32_t w = 0; w < k; ++w) {
                const std::int64_t c = l.count(q, w);
                if (!c || l.first[q][w] >= hi || l.first[q][w] + c <= lo)
                    continue;
                const std::int64_t hq = c / l.batches(q, w);
                const std::int64_t from = std::max<std::int64_t>(0, (lo - l.first[q][w]) / hq);
                const std::int64_t to = std::min<std::int64_t>(c / hq - 1, (hi - 1 - l.first[q][w]) / hq);
                for (std::int64_t jq = from; jq <= to; ++jq) {
                    const std::int64_t qlo = l.first[q][w] + jq * hq;
                    const std::int64_t shared = std::min(hi, qlo + hq) - std::max(lo, qlo);
                    double arrival = out.batchFinish[q][w][static_cast<std::size_t>(jq)];
                    if (w != u) {
                        const Link& link = p.base.links[w][u];
                        if (!link.connected())
                            return false;
                        const double bytes = static_cast<double>(shared) * p.base.tasks[q].outputBytes;
                        const double sent = arrival;
                        arrival += link.latencySeconds + bytes / link.bandwidthBytesPerSecond;
                        if (transfers)
                            transfers->push_back({ q, t, w, u, sent, arrival, bytes });
                        ++out.transfers;
                        out.transferredBytes += bytes;
                    }
                    s = std::max(s, arrival);
                }
            }
        bs[static_cast<std::size_t>(j)] = s;
        bf[static_cast<std::size_t>(j)] = free = s + cost;
    }
    out.start[t][u] = bs.front();
    out.finish[t][u] = bf.back();
    out.makespan = std::max(out.makespan, bf.back());
    return true;
}

} // namespace

ThroughputTimes evaluate(const ThroughputProblem& p, const ThroughputMapping& m, std::vector<Transfer>* transfers)
{
    if (transfers)
        transfers->clear();
    const std::size_t n = p.base.taskCount(), k = p.base.deviceCount();
    ThroughputTimes out;
    auto fail = [&](std::string why) {
        out.feasible = false;
        out.problem = std::move(why);
        out.makespan = kUnsupported;
        return out;
    };
    if (m.split.size() != n || m.order.size() != k)
        return fail("the mapping does not cover every task and device");
    std::vector<double> memory(k, 0.0);
    for (std::uint32_t t = 0; t < n; ++t) {
        if (m.split[t] >= p.splits.size())
            return fail("task " + p.base.tasks[t].name + " names a split that does not exist");
        for (std::uint32_t u = 0; u < k; ++u) {
            const std::int64_t c = p.splits[m.split[t]][u];
            if (c == 0)
                continue;
            if (!std::isfinite(p.blockCost(t, m.split[t], u)))
                return fail("task " + p.base.tasks[t].name + " cannot run " + std::to_string(c) + " inputs on "
                    + p.base.devices[u].name);
            const MapTask& task = p.base.tasks[t];
            memory[u] += static_cast<double>(c) * (task.inputBytes + task.outputBytes) + task.weightBytes;
        }
    }
    for (std::uint32_t u = 0; u < k; ++u)
        if (memory[u] > p.base.devices[u].memoryBytes)
            return fail("the batches mapped to " + p.base.devices[u].name + " need more than its memory");
    const InputLayout l = layoutOf(p, m.split);
    // Blocks (t on u, all of t's batches there) as nodes: Kahn over the blocks' dependencies and
    // device orders decides in which order blocks are timed; each batch is timed on its own.
    const std::size_t nodes = n * k;
    std::vector<std::int64_t> previous(nodes, -2), nextOnDevice(nodes, -1);
    for (std::uint32_t u = 0; u < k; ++u) {
        std::int64_t before = -1;
        for (std::uint32_t t : m.order[u]) {
            const std::size_t node = t * k + u;
            if (t >= n || l.count(t, u) == 0 || previous[node] != -2)
                return fail(
                    "device " + p.base.devices[u].name + "'s order lists a task without a batch there, or twice");
            previous[node] = before;
            if (before >= 0)
                nextOnDevice[static_cast<std::size_t>(before)] = static_cast<std::int64_t>(node);
            before = static_cast<std::int64_t>(node);
        }
    }
    std::vector<std::uint32_t> waiting(nodes, 0);
    std::size_t blocks = 0;
    for (std::uint32_t t = 0; t < n; ++t)
        for (std::uint32_t u = 0; u < k; ++u) {
            if (l.count(t, u) == 0)
                continue;
            ++blocks;
            const std::size_t node = t * k + u;
            if (previous[node] == -2)
                return fail("task " + p.base.tasks[t].name + "'s batch on " + p.base.devices[u].name
                    + " is missing from the device's order");
            waiting[node] = previous[node] >= 0 ? 1 : 0;
            for (std::uint32_t q : p.base.dag.predecessors[t])
                for (std::uint32_t w = 0; w < k; ++w)
                    if (l.count(q, w) && l.overlap(q, w, t, u))
                        ++waiting[node];
        }
    out.start.assign(n, std::vector<double>(k, 0.0));
    out.finish = out.start;
    out.batchStart.assign(n, std::vector<std::vector<double>>(k));
    out.batchFinish = out.batchStart;
    std::deque<std::size_t> ready;
    for (std::size_t node = 0; node < nodes; ++node)
        if (l.count(static_cast<std::uint32_t>(node / k), static_cast<std::uint32_t>(node % k)) && waiting[node] == 0)
            ready.push_back(node);
    std::size_t done = 0;
    while (!ready.empty()) {
        const std::size_t node = ready.front();
        ready.pop_front();
        ++done;
        const auto t = static_cast<std::uint32_t>(node / k), u = static_cast<std::uint32_t>(node % k);
        const double free = previous[node] >= 0
            ? out.finish[static_cast<std::size_t>(previous[node]) / k][static_cast<std::size_t>(previous[node]) % k]
            : 0.0;
        if (!timeBlock(p, l, t, u, free, out, transfers)) {
            for (std::uint32_t q : p.base.dag.predecessors[t])
                for (std::uint32_t w = 0; w < k; ++w)
                    if (w != u && l.count(q, w) && l.overlap(q, w, t, u) && !p.base.links[w][u].connected())
                        return fail("no link from " + p.base.devices[w].name + " to " + p.base.devices[u].name);
            return fail("a missing link");
        }
        for (std::uint32_t c : p.base.dag.successors[t])
            for (std::uint32_t v = 0; v < k; ++v)
                if (l.count(c, v) && l.overlap(t, u, c, v) && --waiting[c * k + v] == 0)
                    ready.push_back(c * k + v);
        if (nextOnDevice[node] >= 0 && --waiting[static_cast<std::size_t>(nextOnDevice[node])] == 0)
            ready.push_back(static_cast<std::size_t>(nextOnDevice[node]));
    }
    if (done != blocks)
        return fail("a device's order contradicts the dependencies");
    out.feasible = true;
    out.throughput = static_cast<double>(p.inputs) / out.makespan;
    return out;
}

ThroughputMapping throughputWithOrder(
    const ThroughputProblem& p, const std::vector<std::uint32_t>& split, const std::vector<std::uint32_t>& priority)
{
    ThroughputMapping m;
    m.split = split;
    m.order.assign(p.base.deviceCount(), {});
    for (std::uint32_t t : priority)
        for (std::uint32_t u = 0; u < p.base.deviceCount(); ++u)
            if (t < split.size() && split[t] < p.splits.size() && p.splits[split[t]][u] > 0)
                m.order[u].push_back(t);
    return m;
}

ThroughputMapping throughputEarliestStart(
    const ThroughputProblem& p, const std::vector<std::uint32_t>& split, const std::vector<std::uint32_t>& priority)
{
    const std::size_t n = p.base.taskCount(), k = p.base.deviceCount();
    ThroughputMapping m;
    m.split = split;
    m.order.assign(k, {});
    std::vector<std::size_t> rank(n, 0);
    for (std::size_t i = 0; i < priority.size(); ++i)
        rank[priority[i]] = i;
    std::vector<std::vector<std::int64_t>> first(n, std::vector<std::int64_t>(k, 0));
    for (std::uint32_t t = 0; t < n; ++t)
        for (std::uint32_t u = 1; u < k; ++u)
            first[t][u] = first[t][u - 1] + p.splits[split[t]][u - 1];
    auto count = [&](std::uint32_t t, std::uint32_t u) { return p.splits[split[t]][u]; };
    auto overlap = [&](std::uint32_t a, std::uint32_t u, std::uint32_t b, std::uint32_t v) {
        const std::int64_t lo = std::max(first[a][u], first[b][v]);
        const std::int64_t hi = std::min(first[a][u] + count(a, u), first[b][v] + count(b, v));
        return std::max<std::int64_t>(0, hi - lo);
    };
    // A task's batches become ready together: once every batch of every predecessor is placed
    // (a superset of the overlapping ones, which keeps this simple and still a valid order).
    std::vector<std::uint32_t> waiting(n);
    for (std::uint32_t t = 0; t < n; ++t)
        waiting[t] = static_cast<std::uint32_t>(p.base.dag.predecessors[t].size());
    std::vector<std::vector<double>> finish(n, std::vector<double>(k, 0.0));
    std::vector<double> free(k, 0.0);
    std::vector<std::pair<std::uint32_t, std::uint32_t>> ready; // (task, device) batches
    std::vector<std::uint32_t> left(n, 0);
    auto release = [&](std::uint32_t t) {
        for (std::uint32_t u = 0; u < k; ++u)
            if (count(t, u)) {
                ready.emplace_back(t, u);
                ++left[t];
            }
    };
    for (std::uint32_t t = 0; t < n; ++t)
        if (!waiting[t])
            release(t);
    auto earliest = [&](std::uint32_t t, std::uint32_t u) {
        double s = free[u];
        for (std::uint32_t q : p.base.dag.predecessors[t])
            for (std::uint32_t w = 0; w < k; ++w) {
                const std::int64_t shared = count(q, w) ? overlap(q, w, t, u) : 0;
                if (!shared)
                    continue;
                double arrival = finish[q][w];
                if (w != u) {
                    const Link& link = p.base.links[w][u];
                    if (!link.connected())
                        return kUnsupported;
                    arrival += link.latencySeconds
                        + static_cast<double>(shared) * p.base.tasks[q].outputBytes / link.bandwidthBytesPerSecond;
                }
                s = std::max(s, arrival);
            }
        return s;
    };
    while (!ready.empty()) {
        std::size_t pick = 0;
        double pickStart = kUnsupported;
        for (std::size_t i = 0; i < ready.size(); ++i) {
            const double s = earliest(ready[i].first, ready[i].second);
            if (s < pickStart || (s == pickStart && rank[ready[i].first] < rank[ready[pick].first])) {
                pickStart = s;
                pick = i;
            }
        }
        if (!std::isfinite(pickStart))
            return ThroughputMapping { split, std::vector<std::vector<std::uint32_t>>(k) };
        const auto [t, u] = ready[pick];
        ready.erase(ready.begin() + static_cast<std::ptrdiff_t>(pick));
        const double cost = p.blockCost(t, split[t], u);
        if (!std::isfinite(cost))
            return ThroughputMapping { split, std::vector<std::vector<std::uint32_t>>(k) };
        finish[t][u] = pickStart + cost;
        free[u] = finish[t][u];
        m.order[u].push_back(t);
        if (--left[t] == 0)
            for (std::uint32_t c : p.base.dag.successors[t])
                if (--waiting[c] == 0)
                    release(c);
    }
    return m;
}

} // namespace opsched::map
