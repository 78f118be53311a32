// The backend-independent parts of cpu_executor.h, built with or without oneDNN.
#include "exec/cpu/cpu_executor.h"

#include "util/random.h"

#include <algorithm>

namespace opsched::cpu {

std::vector<std::vector<float>> seededInputs(const Graph& graph, std::uint64_t seed)
{
    std::vector<std::vector<float>> out;
    for (auto id : graph.inputs()) {
        SplitMix64 rng(hashString(graph.tensor(id).name, seed));
        auto& values = out.emplace_back(static_cast<std::size_t>(graph.tensor(id).shape.elements()));
        // Token ids: integers below the smallest table an embedding reads them with.
        std::int64_t rows = 0;
        for (auto consumer : graph.consumers(id)) {
            const Layer& first = graph.op(consumer).layers.front();
            const auto* g = std::get_if<Gather>(&first.params);
            const Op& op = graph.op(consumer);
            // The table: an embedding's weight, or the data of a gather by computed indices.
            const bool asIndices = g
                && (g->dataIsWeight
                    || (op.inputs.size() == 2 && op.inputs.back().size() == 1 && op.inputs.back().front() == id));
            if (asIndices) {
                const Shape& table = g->dataIsWeight ? graph.tensor(first.weights.front()).shape
                                                     : graph.tensor(op.inputs.front().front()).shape;
                const std::int64_t n = table[g->axis < 0 ? g->axis + table.rank() : g->axis];
                rows = rows == 0 ? n : std::min(rows, n);
            }
        }
        for (auto& v : values)
            v = rows > 0 ? static_cast<float>(std::min<std::int64_t>(
                    static_cast<std::int64_t>(rng.uniform() * static_cast<double>(rows)), rows - 1))
                         : static_cast<float>(rng.uniform() * 2.0 - 1.0);
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
