#include "graph/graph.h"

#include "graph/graph_builder.h"

namespace opsched {

std::optional<OpId> Graph::findOp(std::string_view name) const
{
    auto it = opByName_.find(std::string(name));
    if (it == opByName_.end())
        return std::nullopt;
    return it->second;
}

std::int64_t Graph::batch() const
{
    return inputs_.empty() ? 1 : tensor(inputs_.front()).shape.batch();
}

std::vector<OpId> Graph::topologicalOrder() const
{
    // The builder only accepts ops whose inputs exist, so storage order is topological.
    std::vector<OpId> order;
    order.reserve(ops_.size());
    for (std::size_t i = 0; i < ops_.size(); ++i)
        order.emplace_back(i);
    return order;
}

double Graph::totalFlops() const
{
    double sum = 0;
    for (const auto& op : ops_)
        sum += op.cost.flops;
    return sum;
}

double Graph::totalBytes() const
{
    double sum = 0;
    for (const auto& op : ops_)
        sum += op.cost.bytes();
    return sum;
}

std::int64_t Graph::weightCount() const
{
    std::int64_t n = 0;
    for (const auto& t : tensors_)
        if (t.role == TensorRole::Weight)
            n += t.shape.elements();
    return n;
}

Graph Graph::withBatch(std::int64_t batch) const
{
    return GraphBuilder::rebatch(*this, batch);
}

} // namespace opsched
