#include "map/problem/throughput_problem.h"

#include "util/error.h"

#include <algorithm>
#include <cmath>
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
    std::vector<std::int64_t> first(n * k, 0); // [t * k + u]: the block's first input
    for (std::uint32_t t = 0; t < n; ++t)
        for (std::uint32_t u = 1; u < k; ++u)
            first[t * k + u] = first[t * k + u - 1] + p.splits[split[t]][u - 1];
    auto count = [&](std::uint32_t t, std::uint32_t u) { return p.splits[split[t]][u]; };
    auto overlap = [&](std::uint32_t a, std::uint32_t u, std::uint32_t b, std::uint32_t v) {
        const std::int64_t lo = std::max(first[a * k + u], first[b * k + v]);
        const std::int64_t hi = std::min(first[a * k + u] + count(a, u), first[b * k + v] + count(b, v));
        return std::max<std::int64_t>(0, hi - lo);
    };
    // A task's batches become ready together: once every batch of every predecessor is placed
    // (a superset of the overlapping ones, which keeps this simple and still a valid order).
    std::vector<std::uint32_t> waiting(n);
    for (std::uint32_t t = 0; t < n; ++t)
        waiting[t] = static_cast<std::uint32_t>(p.base.dag.predecessors[t].size());
    std::vector<double> finish(n * k, 0.0);
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
                double arrival = finish[q * k + w];
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
        finish[t * k + u] = pickStart + cost;
        free[u] = finish[t * k + u];
        m.order[u].push_back(t);
        if (--left[t] == 0)
            for (std::uint32_t c : p.base.dag.successors[t])
                if (--waiting[c] == 0)
                    release(c);
    }
    return m;
}

} // namespace opsched::map
