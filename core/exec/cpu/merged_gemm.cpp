#include "exec/cpu/merged_gemm.h"

#include "plan/schedule.h"

#include <algorithm>

namespace opsched::cpu {

std::optional<MergedGemmGeometry> mergedGemmGeometry(const Graph& graph, const std::vector<OpId>& ops)
{
    if (ops.size() < 2 || !mergeProblem(graph, ops).empty())
        return std::nullopt;
    const Op& first = graph.op(ops.front());
    if (!std::holds_alternative<MatMul>(first.layers.front().params))
        return std::nullopt;
    MergedGemmGeometry g;
    g.outDims = graph.tensor(first.output).shape.dims;
    g.outDims.back() = 0;
    for (auto id : ops) {
        const Op& op = graph.op(id);
        const Shape& w = graph.tensor(op.layers.front().weights.front()).shape;
        if (g.k != 0 && w[0] != g.k)
            return std::nullopt;
        g.k = w[0];
        g.columns.push_back(w[1]);
        g.outDims.back() += w[1];
    }
    return g;
}

StackedWeights stackGemmWeights(const Graph& graph, const std::vector<OpId>& ops, const MergedGemmGeometry& geometry)
{
    const std::int64_t total = geometry.outDims.back();
    StackedWeights s;
    s.weights.assign(static_cast<std::size_t>(geometry.k * total), 0.0F);
    s.bias.assign(static_cast<std::size_t>(total), 0.0F);
    std::int64_t c0 = 0;
    for (std::size_t j = 0; j < ops.size(); ++j) {
        const Layer& layer = graph.op(ops[j]).layers.front();
        const std::int64_t n = geometry.columns[j];
        const auto w = weightValues(graph, layer.weights.front());
        for (std::int64_t r = 0; r < geometry.k; ++r)
            std::copy_n(w.begin() + r * n, n, s.weights.begin() + r * total + c0);
        if (std::get<MatMul>(layer.params).bias) {
            const auto b = weightValues(graph, layer.weights.back());
            std::copy(b.begin(), b.end(), s.bias.begin() + c0);
        }
        c0 += n;
    }
    return s;
}

} // namespace opsched::cpu
