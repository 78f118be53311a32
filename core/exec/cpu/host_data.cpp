// The backend-independent parts of cpu_executor.h, built with or without oneDNN.
#include "exec/cpu/cpu_executor.h"

#include "util/random.h"

namespace opsched::cpu {

std::vector<std::vector<float>> seededInputs(const Graph& graph, std::uint64_t seed)
{
    std::vector<std::vector<float>> out;
    for (auto id : graph.inputs()) {
        SplitMix64 rng(hashString(graph.tensor(id).name, seed));
        auto& values = out.emplace_back(static_cast<std::size_t>(graph.tensor(id).shape.elements()));
        for (auto& v : values)
            v = static_cast<float>(rng.uniform() * 2.0 - 1.0);
    }
    return out;
}

double checksum(const std::vector<float>& values)
{
    double sum = 0;
    for (float v : values)
        sum += v;
    return sum;
}

} // namespace opsched::cpu
