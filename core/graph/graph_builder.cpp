#include "graph/graph_builder.h"

#include "graph/shape_inference.h"
#include "util/error.h"
#include "util/random.h"

#include <atomic>
#include <cmath>

namespace opsched {
namespace {

std::uint64_t nextInstanceId()
{
    static std::atomic<std::uint64_t> counter { 0 };
    return ++counter;
}

std::vector<std::vector<Shape>> termShapesOf(const std::vector<InputTerm>& terms, const std::vector<Tensor>& tensors)
{
    std::vector<std::vector<Shape>> out;
    for (const auto& term : terms) {
        auto& shapes = out.emplace_back();
        for (auto t : term)
            shapes.push_back(tensors[t.value()].shape);
    }
    return out;
}

// Shapes of the operands of an op's first layer (terms, then its weights); empty otherwise.
std::vector<Shape> firstLayerOperands(const std::string& opName, const std::vector<std::vector<Shape>>& termShapes,
    const Layer& first, const std::vector<Tensor>& tensors)
{
    if (!first.takesOperands())
        return {};
    std::vector<Shape> weights;
    for (auto w : first.weights)
        weights.push_back(tensors[w.value()].shape);
    return operandShapes(opName, termShapes, weights);
}

void inferOp(Op& op, std::vector<Tensor>& tensors)
{
    const auto termShapes = termShapesOf(op.inputs, tensors);
    const auto operands = firstLayerOperands(op.name, termShapes, op.layers.front(), tensors);
    Shape in = combinedInputShape(op.name, op.layers.front(), termShapes);
    for (auto& layer : op.layers) {
        inferLayerShape(op.name, layer, in, operands);
        in = layer.output;
    }
    tensors[op.output.value()].shape = in;
}

} // namespace

GraphBuilder::GraphBuilder(std::string modelName, std::optional<std::uint64_t> weightSeed)
    : weightSeed_(weightSeed)
{
    graph_.name_ = std::move(modelName);
}

TensorId GraphBuilder::newTensor(std::string name, Shape shape, DataType dtype, TensorRole role)
{
    if (!tensorNames_.insert(name).second)
        throw GraphError("tensor name '" + name + "' is used twice");
    Tensor t;
    t.id = TensorId(graph_.tensors_.size());
    t.name = std::move(name);
    t.shape = std::move(shape);
    t.dtype = dtype;
    t.role = role;
    graph_.tensors_.push_back(std::move(t));
    graph_.consumers_.emplace_back();
    return graph_.tensors_.back().id;
}

TensorId GraphBuilder::addInput(std::string name, Shape shape, DataType dtype)
{
    for (auto d : shape.dims)
        if (d <= 0)
            throw GraphError("input '" + name + "' has a non-positive dimension: " + shape.toString());
    const auto id = newTensor(std::move(name), std::move(shape), dtype, TensorRole::Input);
    graph_.inputs_.push_back(id);
    return id;
}

TensorId GraphBuilder::addWeight(std::string name, Shape shape, std::shared_ptr<const WeightData> data)
{
    const auto id = newTensor(std::move(name), std::move(shape), DataType::Float32, TensorRole::Weight);
    graph_.tensors_[id.value()].weight = std::move(data);
    return id;
}

const Shape& GraphBuilder::shapeOf(TensorId tensor) const
{
    if (!tensor.valid() || tensor.value() >= graph_.tensors_.size())
        throw GraphError("unknown tensor id");
    return graph_.tensors_[tensor.value()].shape;
}

void GraphBuilder::createMissingWeights(
    const std::string& opName, Layer& layer, const Shape& input, std::size_t layerIndex, std::size_t layerCount)
{
    if (!layer.needsWeights() || !layer.weights.empty())
        return;
    if (!weightSeed_)
        throw GraphError("op '" + opName + "': " + layer.kindName() + " layer has no weights");
    const auto shapes = weightShapes(layer, input);
    const std::string prefix = layerCount > 1 ? opName + "." + std::to_string(layerIndex) : opName;
    // Fan-in scaled uniform values (as PyTorch's default init), seeded by the tensor's name.
    const double fanIn = static_cast<double>(shapes.front().elements() / shapes.front()[0]);
    const float scale = static_cast<float>(1.0 / std::sqrt(fanIn));
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        std::string name = prefix + (i == 0 ? ".weight" : ".bias");
        const auto seed = hashString(name, *weightSeed_);
        layer.weights.push_back(addWeight(std::move(name), shapes[i], WeightData::seeded(seed, scale)));
    }
}

TensorId GraphBuilder::addOp(OpSpec spec)
{
    if (spec.name.empty())
        throw GraphError("an op has no name");
    if (graph_.opByName_.count(spec.name))
        throw GraphError("op name '" + spec.name + "' is used twice");
    if (spec.layers.empty())
        throw GraphError("op '" + spec.name + "' has no layers");
    for (const auto& term : spec.inputs)
        for (auto t : term) {
            if (!t.valid() || t.value() >= graph_.tensors_.size())
                throw GraphError("op '" + spec.name + "' reads a tensor that does not exist");
            if (graph_.tensors_[t.value()].role == TensorRole::Weight)
                throw GraphError(
                    "op '" + spec.name + "' reads weight '" + graph_.tensors_[t.value()].name + "' as an activation");
        }

    Op op;
    op.id = OpId(graph_.ops_.size());
    op.name = std::move(spec.name);
    op.kind = spec.kind;
    op.inputs = std::move(spec.inputs);
    op.layers = std::move(spec.layers);

    // Shapes first (they decide weight shapes), then weights, then the output tensor.
    for (std::size_t i = 1; i < op.layers.size(); ++i)
        if (op.layers[i].takesOperands())
            throw GraphError("op '" + op.name + "': a " + op.layers[i].kindName() + " layer must be the op's first");
    for (const auto& layer : op.layers)
        for (auto w : layer.weights)
            if (!w.valid() || w.value() >= graph_.tensors_.size()
                || graph_.tensors_[w.value()].role != TensorRole::Weight)
                throw GraphError("op '" + op.name + "' names a weight that is not a weight tensor");
    const auto termShapes = termShapesOf(op.inputs, graph_.tensors_);
    const auto operands = firstLayerOperands(op.name, termShapes, op.layers.front(), graph_.tensors_);
    Shape in = combinedInputShape(op.name, op.layers.front(), termShapes);
    for (std::size_t i = 0; i < op.layers.size(); ++i) {
        inferLayerShape(op.name, op.layers[i], in, operands);
        if (op.layers[i].takesOperands()) {
            in = op.layers[i].output;
            continue; // its weights are operands, of any shape that broadcasts
        }
        createMissingWeights(op.name, op.layers[i], in, i, op.layers.size());
        const auto expected = weightShapes(op.layers[i], in);
        if (op.layers[i].weights.size() != expected.size())
            throw GraphError("op '" + op.name + "': layer " + std::to_string(i) + " expects "
                + std::to_string(expected.size()) + " weight tensors");
        for (std::size_t w = 0; w < expected.size(); ++w) {
            const auto& actual = shapeOf(op.layers[i].weights[w]);
            if (actual.elements() != expected[w].elements())
                throw GraphError("op '" + op.name + "': weight " + actual.toString() + " does not fit, expected "
                    + expected[w].toString());
        }
        in = op.layers[i].output;
    }
    op.output = newTensor(op.name + ":out", in, DataType::Float32, TensorRole::Activation);
    graph_.tensors_[op.output.value()].producer = op.id;

    for (auto t : op.inputTensors())
        graph_.consumers_[t.value()].push_back(op.id);
    computeOpCost(op, [this](TensorId t) -> const Tensor& { return graph_.tensors_[t.value()]; });
    graph_.opByName_.emplace(op.name, op.id);
    graph_.ops_.push_back(std::move(op));
    return graph_.ops_.back().output;
}

void GraphBuilder::markOutput(TensorId tensor)
{
    shapeOf(tensor); // validates
    graph_.outputs_.push_back(tensor);
}

Graph GraphBuilder::finish() &&
{
    if (graph_.ops_.empty())
        throw GraphError("model '" + graph_.name_ + "' has no ops");
    if (graph_.outputs_.empty())
        for (const auto& op : graph_.ops_)
            if (graph_.consumers_[op.output.value()].empty())
                graph_.outputs_.push_back(op.output);

    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    for (const auto& op : graph_.ops_)
        for (auto t : op.inputTensors())
            if (auto producer = graph_.tensors_[t.value()].producer; producer.valid())
                edges.emplace_back(producer.value(), op.id.value());
    graph_.dag_ = Dag::fromEdges(graph_.ops_.size(), edges);
    graph_.instanceId_ = nextInstanceId();
    return std::move(graph_);
}

Graph GraphBuilder::rebatch(const Graph& graph, std::int64_t batch)
{
    if (batch < 1)
        throw GraphError("batch size must be at least 1, got " + std::to_string(batch));
    Graph out = graph;
    out.instanceId_ = nextInstanceId();
    for (auto id : out.inputs_)
        out.tensors_[id.value()].shape = out.tensors_[id.value()].shape.withBatch(batch);
    for (auto& op : out.ops_) {
        inferOp(op, out.tensors_);
        computeOpCost(op, [&out](TensorId t) -> const Tensor& { return out.tensors_[t.value()]; });
    }
    return out;
}

Graph GraphBuilder::withStorageType(const Graph& graph, DataType dtype)
{
    Graph out = graph;
    out.instanceId_ = nextInstanceId();
    for (auto& tensor : out.tensors_)
        tensor.dtype = dtype;
    for (auto& op : out.ops_)
        computeOpCost(op, [&out](TensorId t) -> const Tensor& { return out.tensors_[t.value()]; });
    return out;
}

Graph GraphBuilder::withWeight(const Graph& graph, TensorId weight, std::shared_ptr<const WeightData> data)
{
    if (!weight.valid() || weight.value() >= graph.tensors().size() || graph.tensor(weight).role != TensorRole::Weight
        || !data)
        throw GraphError("withWeight: not a weight tensor of '" + graph.name() + "'");
    Graph out = graph;
    out.instanceId_ = nextInstanceId(); // other values: caches keyed by the instance must not match
    out.tensors_[weight.value()].weight = std::move(data);
    return out;
}

Graph GraphBuilder::withLayer(const Graph& graph, OpId op, std::size_t layer, LayerParams params, Activation activation)
{
    if (!op.valid() || op.value() >= graph.opCount() || layer >= graph.op(op).layers.size())
        throw GraphError("withLayer: no such op or layer in '" + graph.name() + "'");
    const Layer& old = graph.op(op).layers[layer];
    if (old.params.index() != params.index())
        throw GraphError("withLayer: op '" + graph.op(op).name + "' layer " + std::to_string(layer) + " is a "
            + old.kindName() + ", not another kind");
    Graph out = graph;
    out.instanceId_ = nextInstanceId();
    Layer& l = out.ops_[op.value()].layers[layer];
    l.params = std::move(params);
    l.activation = activation;
    return out;
}

} // namespace opsched
