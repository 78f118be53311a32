#include "map/bounds/simple_bound.h"

#include "graph/reachability.h"

#include <algorithm>
#include <cmath>

namespace opsched::map {

std::vector<std::vector<double>> earliestFinish(const MappingProblem& p, const std::vector<char>& in)
{
    const std::size_t n = p.taskCount(), k = p.deviceCount();
    std::vector<std::vector<double>> finish(n, std::vector<double>(k, kUnsupported));
    const auto topo = *topologicalOrder(p.dag); // a copy: the optional is a temporary
    for (std::uint32_t t : topo) {
        if (!in[t])
            continue;
        for (std::uint32_t u = 0; u < k; ++u) {
            if (!std::isfinite(p.seconds(t, u)))
                continue;
            double start = p.releaseOf(t, u);
            for (std::uint32_t q : p.dag.predecessors[t]) {
                if (!in[q])
                    continue;
                double arrival = kUnsupported;
                for (std::uint32_t v = 0; v < k; ++v)
                    arrival = std::min(arrival, finish[q][v] + p.commSeconds(q, v, u));
                start = std::max(start, arrival);
            }
            finish[t][u] = start + p.seconds(t, u);
        }
    }
    return finish;
}

double simpleLowerBound(const MappingProblem& p, const std::vector<std::uint32_t>& subset)
{
    const std::size_t n = p.taskCount(), k = p.deviceCount();
    std::vector<char> in(n, subset.empty() ? 1 : 0);
    for (std::uint32_t t : subset)
        in[t] = 1;
    const auto finish = earliestFinish(p, in);
    double path = 0, work = 0;
    for (std::uint32_t t = 0; t < n; ++t) {
        if (!in[t])
            continue;
        double fastest = kUnsupported, end = kUnsupported;
        for (std::uint32_t u = 0; u < k; ++u) {
            fastest = std::min(fastest, p.seconds(t, u));
            end = std::min(end, finish[t][u]);
        }
        path = std::max(path, end);
        work += fastest;
    }
    return std::max(path, work / static_cast<double>(k));
}

} // namespace opsched::map
