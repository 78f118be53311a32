// Builds a Graph op by op, in topological order (every input must exist when an op is added, so a
// built graph cannot hold a cycle). Infers shapes and costs as it goes and reports problems with
// the op's name.
#pragma once

#include "graph/graph.h"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

namespace opsched {

struct OpSpec {
    std::string name;
    OpKind kind = OpKind::Identity;
    std::vector<InputTerm> inputs;
    std::vector<Layer> layers; // params, activation, optional weights; shapes are inferred
};

class GraphBuilder {
public:
    // With a weight seed, layers that need weights and have none get seeded random ones; without
    // one, such layers are an error (imported models bring their own).
    explicit GraphBuilder(std::string modelName, std::optional<std::uint64_t> weightSeed = std::nullopt);

    TensorId addInput(std::string name, Shape shape, DataType dtype = DataType::Float32);
    TensorId addWeight(std::string name, Shape shape, std::shared_ptr<const WeightData> data);
    // Returns the op's output tensor. Throws GraphError naming the op on any inconsistency.
    TensorId addOp(OpSpec spec);
    void markOutput(TensorId tensor);

    const Shape& shapeOf(TensorId tensor) const;
    std::size_t opCount() const { return graph_.ops_.size(); }

    // Graph outputs default to the tensors no op reads. Throws GraphError for an empty graph.
    Graph finish() &&;

    // A copy of the graph with a new batch size; shapes and costs inferred again.
    static Graph rebatch(const Graph& graph, std::int64_t batch);

    // A copy of the graph whose inputs, weights and activations are stored as `dtype`, costs
    // (bytes moved) computed again: cost-only studies at another precision (zoo:gpt3?dtype=fp16).
    // The executors compute in float32 only; such a graph is for costing and mapping.
    static Graph withStorageType(const Graph& graph, DataType dtype);

    // A copy of the graph with one weight's values replaced (same shape, same name): run --check's
    // documented fault injection perturbs a weight this way. Throws GraphError when `weight` is
    // not a weight tensor.
    static Graph withWeight(const Graph& graph, TensorId weight, std::shared_ptr<const WeightData> data);

    // A copy of the graph with one layer's parameters and activation replaced by ones of the same
    // kind (shapes and costs unchanged): the fault injection's kernel faults (a GELU approximated,
    // a layer norm's epsilon) are made this way. Throws GraphError when the op or layer does not
    // exist or the replacement is another kind of layer.
    static Graph withLayer(const Graph& graph, OpId op, std::size_t layer, LayerParams params, Activation activation);

private:
    void createMissingWeights(
        const std::string& opName, Layer& layer, const Shape& input, std::size_t layerIndex, std::size_t layerCount);
    TensorId newTensor(std::string name, Shape shape, DataType dtype, TensorRole role);

    Graph graph_;
    std::optional<std::uint64_t> weightSeed_;
    std::unordered_set<std::string> tensorNames_;
};

} // namespace opsched
