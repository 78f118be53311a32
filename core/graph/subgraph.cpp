#include "graph/subgraph.h"

#include "graph/graph_builder.h"
#include "util/error.h"

#include <unordered_map>

namespace opsched {

Subgraph extractSubgraph(const Graph& graph, const std::vector<OpId>& ops, const std::string& name)
{
    if (ops.empty())
        throw GraphError("subgraph '" + name + "' has no ops");
    std::vector<char> inSet(graph.opCount(), 0);
    for (OpId op : ops) {
        if (!op.valid() || op.value() >= graph.opCount())
            throw GraphError("subgraph '" + name + "': op id out of range");
        if (inSet[op.value()])
            throw GraphError("subgraph '" + name + "': op '" + graph.op(op).name + "' is listed twice");
        inSet[op.value()] = 1;
    }

    GraphBuilder builder(name); // no weight seed: every weight comes from `graph`
    std::unordered_map<std::uint32_t, TensorId> local; // original tensor -> subgraph tensor
    std::vector<TensorId> inputs;
    auto mapped = [&](TensorId t) -> TensorId {
        if (auto it = local.find(t.value()); it != local.end())
            return it->second;
        const Tensor& tensor = graph.tensor(t);
        TensorId id;
        if (tensor.role == TensorRole::Weight) {
            id = builder.addWeight(tensor.name, tensor.shape, tensor.weight);
        } else {
            // An activation of the set that is not there yet was read before its producer.
            if (tensor.producer.valid() && inSet[tensor.producer.value()])
                throw GraphError("subgraph '" + name + "': op order reads '" + tensor.name + "' before op '"
                    + graph.op(tensor.producer).name + "' produces it");
            id = builder.addInput(tensor.name, tensor.shape, tensor.dtype);
            inputs.push_back(t);
        }
        local.emplace(t.value(), id);
        return id;
    };

    for (OpId id : ops) {
        const Op& op = graph.op(id);
        OpSpec spec;
        spec.name = op.name;
        spec.kind = op.kind;
        for (const auto& term : op.inputs) {
            InputTerm mappedTerm;
            for (TensorId t : term)
                mappedTerm.push_back(mapped(t));
            spec.inputs.push_back(std::move(mappedTerm));
        }
        spec.layers = op.layers;
        for (auto& layer : spec.layers)
            for (auto& w : layer.weights)
                w = mapped(w);
        local.emplace(op.output.value(), builder.addOp(std::move(spec)));
    }

    // Outputs: values of the set read outside it, and graph outputs, in op order.
    std::vector<char> isGraphOutput(graph.tensors().size(), 0);
    for (TensorId t : graph.outputs())
        isGraphOutput[t.value()] = 1;
    std::vector<TensorId> outputs;
    for (OpId id : ops) {
        const TensorId t = graph.op(id).output;
        bool needed = isGraphOutput[t.value()] != 0;
        for (OpId reader : graph.consumers(t))
            needed = needed || !inSet[reader.value()];
        if (needed) {
            builder.markOutput(local.at(t.value()));
            outputs.push_back(t);
        }
    }
    return Subgraph { std::move(builder).finish(), ops, std::move(inputs), std::move(outputs) };
}

} // namespace opsched
