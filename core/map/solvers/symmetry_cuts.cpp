#include "map/solvers/symmetry_cuts.h"

#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <numeric>

namespace opsched::map {
namespace {

using SameData = std::function<bool(std::uint32_t, std::uint32_t)>;

bool sameLink(const Link& a, const Link& b)
{
    return a.bandwidthBytesPerSecond == b.bandwidthBytesPerSecond && a.latencySeconds == b.latencySeconds;
}

// Whether relabelling devices by `perm` (an involution) maps every link onto an equal one.
bool linksInvariant(const MappingProblem& p, const std::vector<std::uint32_t>& perm)
{
    const std::size_t k = p.deviceCount();
    for (std::uint32_t u = 0; u < k; ++u)
        for (std::uint32_t v = 0; v < k; ++v)
            if (u != v && !sameLink(p.links[u][v], p.links[perm[u]][perm[v]]))
                return false;
    return true;
}

// Per-device data of the latency problem: costs, release times, memory.
bool sameLatencyData(const MappingProblem& p, std::uint32_t u, std::uint32_t v)
{
    if (p.devices[u].memoryBytes != p.devices[v].memoryBytes)
        return false;
    for (std::uint32_t t = 0; t < p.taskCount(); ++t) {
        const double a = p.seconds(t, u), b = p.seconds(t, v);
        if (!(a == b || (std::isinf(a) && std::isinf(b))) || p.releaseOf(t, u) != p.releaseOf(t, v))
            return false;
    }
    return true;
}

// Groups 0..count-1 by a transposition test (an equivalence: transpositions that are symmetries
// generate the whole symmetric group of each class).
std::vector<std::vector<std::uint32_t>> classesOf(std::size_t count, const SameData& swappable)
{
    std::vector<std::vector<std::uint32_t>> out;
    std::vector<bool> placed(count, false);
    for (std::uint32_t a = 0; a < count; ++a) {
        if (placed[a])
            continue;
        std::vector<std::uint32_t> cls { a };
        for (std::uint32_t b = a + 1; b < count; ++b)
            if (!placed[b] && swappable(a, b)) {
                cls.push_back(b);
                placed[b] = true;
            }
        if (cls.size() >= 2)
            out.push_back(std::move(cls));
    }
    return out;
}

SymmetryClasses find(const MappingProblem& p, const SameData& sameData)
{
    const std::size_t k = p.deviceCount();
    auto identity = [&] {
        std::vector<std::uint32_t> perm(k);
        std::iota(perm.begin(), perm.end(), 0U);
        return perm;
    };
    SymmetryClasses out;
    // Nodes as given by the topology; a node's devices in index order.
    std::map<int, std::vector<std::uint32_t>> byNode;
    for (std::uint32_t u = 0; u < k; ++u)
        if (p.devices[u].node >= 0)
            byNode[p.devices[u].node].push_back(u);
    std::vector<std::vector<std::uint32_t>> nodes;
    for (auto& [id, list] : byNode)
        nodes.push_back(list);
    const auto nodeClasses = classesOf(nodes.size(), [&](std::uint32_t a, std::uint32_t b) {
        if (nodes[a].size() != nodes[b].size())
            return false;
        auto perm = identity();
        for (std::size_t i = 0; i < nodes[a].size(); ++i) {
            if (!sameData(nodes[a][i], nodes[b][i]))
                return false;
            perm[nodes[a][i]] = nodes[b][i];
            perm[nodes[b][i]] = nodes[a][i];
        }
        return linksInvariant(p, perm);
    });
    for (const auto& cls : nodeClasses) {
        std::vector<std::vector<std::uint32_t>> blocks;
        for (std::uint32_t n : cls)
            blocks.push_back(nodes[n]);
        out.nodes.push_back(std::move(blocks));
    }
    const bool ordersNodes = !out.nodes.empty();
    for (auto cls : classesOf(k, [&](std::uint32_t u, std::uint32_t v) {
             if (ordersNodes && p.devices[u].node != p.devices[v].node)
                 return false; // see the header: devices are ordered within their node then
             auto perm = identity();
             std::swap(perm[u], perm[v]);
             return sameData(u, v) && linksInvariant(p, perm);
         }))
        out.devices.push_back(std::move(cls));
    return out;
}

} // namespace

double SymmetryClasses::compression() const
{
    double out = 1;
    auto factorial = [](std::size_t n) {
        double f = 1;
        for (std::size_t i = 2; i <= n; ++i)
            f *= static_cast<double>(i);
        return f;
    };
    for (const auto& c : devices)
        out = std::min(1e300, out * factorial(c.size()));
    for (const auto& c : nodes)
        out = std::min(1e300, out * factorial(c.size()));
    return out;
}

const char* toString(Symmetry s)
{
    switch (s) {
    case Symmetry::None:
        return "none";
    case Symmetry::Tasks:
        return "tasks";
    case Symmetry::Time:
        return "time";
    case Symmetry::Batches:
        return "batches";
    }
    return "none";
}

Symmetry parseSymmetry(const std::string& text)
{
    for (Symmetry s : { Symmetry::None, Symmetry::Tasks, Symmetry::Time, Symmetry::Batches })
        if (text == toString(s))
            return s;
    throw Error("--symmetry: '" + text + "' is not one of none, tasks, time, batches");
}

SymmetryClasses findSymmetries(const MappingProblem& p)
{
    return find(p, [&](std::uint32_t u, std::uint32_t v) { return sameLatencyData(p, u, v); });
}

SymmetryClasses findSymmetries(const ThroughputProblem& p)
{
    return find(p.base, [&](std::uint32_t u, std::uint32_t v) {
        if (p.base.devices[u].memoryBytes != p.base.devices[v].memoryBytes)
            return false;
        for (const auto& task : p.seconds)
            for (std::size_t s = 0; s < task[u].size(); ++s)
                if (!(task[u][s] == task[v][s] || (std::isinf(task[u][s]) && std::isinf(task[v][s]))))
                    return false;
        return true;
    });
}

std::vector<SymmetryRow> symmetryRows(const SymmetryClasses& classes, const std::vector<DeviceForm>& perDevice)
{
    std::vector<SymmetryRow> out;
    // q(first) - q(second) <= 0 for each consecutive pair.
    auto add = [&](const std::vector<std::uint32_t>& first, const std::vector<std::uint32_t>& second) {
        std::map<int, double> coef;
        for (std::uint32_t u : first)
            for (const auto& [col, c] : perDevice[u])
                coef[col] += c;
        for (std::uint32_t u : second)
            for (const auto& [col, c] : perDevice[u])
                coef[col] -= c;
        SymmetryRow row;
        for (const auto& [col, c] : coef)
            if (c != 0) {
                row.cols.push_back(col);
                row.coefs.push_back(c);
            }
        if (!row.cols.empty())
            out.push_back(std::move(row));
    };
    for (const auto& cls : classes.nodes)
        for (std::size_t i = 0; i + 1 < cls.size(); ++i)
            add(cls[i], cls[i + 1]);
    for (const auto& cls : classes.devices)
        for (std::size_t i = 0; i + 1 < cls.size(); ++i)
            add({ cls[i] }, { cls[i + 1] });
    return out;
}

std::vector<DeviceForm> latencyForms(const MappingProblem& p, const std::vector<std::vector<int>>& x, Symmetry symmetry)
{
    std::vector<DeviceForm> out(p.deviceCount());
    for (std::uint32_t t = 0; t < p.taskCount(); ++t)
        for (std::uint32_t u = 0; u < p.deviceCount(); ++u)
            if (x[t][u] >= 0)
                out[u].emplace_back(x[t][u], symmetry == Symmetry::Time ? p.seconds(t, u) * 1e3 : 1.0);
    return out;
}

std::vector<std::uint32_t> canonicalPermutation(const SymmetryClasses& classes, const std::vector<double>& value)
{
    const std::size_t k = value.size();
    std::vector<std::uint32_t> perm(k); // perm[old device] = new device
    std::iota(perm.begin(), perm.end(), 0U);
    std::vector<double> moved = value; // values after the node step, by new device
    for (const auto& cls : classes.nodes) {
        std::vector<std::size_t> rank(cls.size());
        std::iota(rank.begin(), rank.end(), 0);
        auto sum = [&](std::size_t n) {
            double s = 0;
            for (std::uint32_t u : cls[n])
                s += value[u];
            return s;
        };
        std::stable_sort(rank.begin(), rank.end(), [&](std::size_t a, std::size_t b) { return sum(a) < sum(b); });
        // The node with the i-th smallest sum takes slot i.
        for (std::size_t slot = 0; slot < cls.size(); ++slot)
            for (std::size_t i = 0; i < cls[slot].size(); ++i) {
                perm[cls[rank[slot]][i]] = cls[slot][i];
                moved[cls[slot][i]] = value[cls[rank[slot]][i]];
            }
    }
    std::vector<std::uint32_t> second(k); // after the node step: device -> device
    std::iota(second.begin(), second.end(), 0U);
    for (const auto& cls : classes.devices) {
        std::vector<std::uint32_t> sorted = cls;
        std::stable_sort(
            sorted.begin(), sorted.end(), [&](std::uint32_t a, std::uint32_t b) { return moved[a] < moved[b]; });
        for (std::size_t i = 0; i < cls.size(); ++i)
            second[sorted[i]] = cls[i];
    }
    for (auto& p : perm)
        p = second[p];
    return perm;
}

Mapping permuteMapping(const Mapping& mapping, const std::vector<std::uint32_t>& newDevice)
{
    Mapping out;
    out.device.resize(mapping.device.size());
    for (std::size_t t = 0; t < mapping.device.size(); ++t)
        out.device[t] = newDevice[mapping.device[t]];
    out.order.assign(mapping.order.size(), {});
    for (std::size_t u = 0; u < mapping.order.size(); ++u)
        out.order[newDevice[u]] = mapping.order[u];
    return out;
}

std::vector<double> latencyValues(const MappingProblem& p, const Mapping& mapping, Symmetry symmetry)
{
    std::vector<double> out(p.deviceCount(), 0.0);
    for (std::uint32_t t = 0; t < mapping.device.size(); ++t)
        out[mapping.device[t]] += symmetry == Symmetry::Time ? p.seconds(t, mapping.device[t]) * 1e3 : 1.0;
    return out;
}

SymmetryClasses orientedBy(const SymmetryClasses& classes, const std::vector<double>& value)
{
    SymmetryClasses out = classes;
    auto sum = [&](const std::vector<std::uint32_t>& block) {
        double s = 0;
        for (std::uint32_t u : block)
            s += value[u];
        return s;
    };
    for (auto& cls : out.nodes)
        std::stable_sort(cls.begin(), cls.end(), [&](const auto& a, const auto& b) { return sum(a) < sum(b); });
    for (auto& cls : out.devices)
        std::stable_sort(cls.begin(), cls.end(), [&](std::uint32_t a, std::uint32_t b) { return value[a] < value[b]; });
    return out;
}

std::vector<DeviceForm> throughputForms(const ThroughputProblem& p, const std::vector<std::vector<int>>& z,
    Symmetry symmetry, const std::function<double(std::size_t, std::size_t, std::size_t)>& cost)
{
    const std::size_t k = p.base.deviceCount();
    std::vector<DeviceForm> out(k);
    for (std::size_t i = 0; i < z.size(); ++i)
        for (std::size_t s = 0; s < z[i].size(); ++s)
            for (std::size_t u = 0; u < k; ++u) {
                if (z[i][s] < 0 || !p.splits[s][u])
                    continue;
                const double c = symmetry == Symmetry::Time ? cost(i, s, u)
                    : symmetry == Symmetry::Tasks           ? static_cast<double>(p.splits[s][u])
                                                  : static_cast<double>(p.batchesOn(s, static_cast<std::uint32_t>(u)));
                out[u].emplace_back(z[i][s], c);
            }
    return out;
}

std::vector<double> throughputValues(const ThroughputProblem& p, const ThroughputMapping& mapping, Symmetry symmetry,
    const std::function<double(std::size_t, std::size_t, std::size_t)>& cost)
{
    // The forms evaluated at the mapping: z[i][s] = 1 for its split, with column = task index.
    std::vector<std::vector<int>> z(mapping.split.size(), std::vector<int>(p.splits.size(), -1));
    for (std::size_t i = 0; i < mapping.split.size(); ++i)
        z[i][mapping.split[i]] = 0;
    std::vector<double> out(p.base.deviceCount(), 0.0);
    const auto forms = throughputForms(p, z, symmetry, cost);
    for (std::size_t u = 0; u < forms.size(); ++u)
        for (const auto& [col, c] : forms[u])
            out[u] += c;
    return out;
}

} // namespace opsched::map
