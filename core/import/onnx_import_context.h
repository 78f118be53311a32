// State shared by the node mappings while one model is imported: what each ONNX value has become
// (an IR activation, a constant, or nothing because its producer failed), weights, op names and
// the batch size.
#pragma once

#include "graph/graph_builder.h"
#include "import/onnx_graph_rewriter.h"
#include "import/onnx_tensor.h"

#include <onnx/onnx_pb.h>

#include <array>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>

namespace opsched::onnx_import {

struct Value {
    enum class Kind : std::uint8_t { Activation, Constant, Failed };
    Kind kind = Kind::Failed;
    TensorId tensor; // activations
    ConstPtr constant; // constants
};

class ImportContext {
public:
    ImportContext(GraphBuilder& builder, const onnx::GraphProto& graph, const FusionPlan& plan, int opset,
        const std::vector<NodeRef>& nodes);

    GraphBuilder& builder;
    const FusionPlan& plan;
    const int opset;
    std::int64_t modelBatch = 1; // dimension 0 of the model's inputs as stored
    std::int64_t batch = 1; // the batch imported at

    // nullptr for a name no one has defined (or ""); initializers are decoded on first use.
    const Value* find(const std::string& name);
    // What `name` is, without decoding anything; nullopt when no one defined it.
    std::optional<Value::Kind> kindOf(const std::string& name) const;
    void setActivation(const std::string& name, TensorId tensor);
    void setConstant(const std::string& name, ConstPtr value);
    void setFailed(const std::string& name);
    // A graph input: an activation no op produces.
    void setGraphInput(const std::string& name, TensorId tensor);
    bool isGraphInput(TensorId tensor) const { return graphInputs_.count(tensor) > 0; }

    // Node inputs by role; NodeError when the input is missing or of the other kind.
    TensorId activation(const std::string& name, const std::string& role);
    ConstPtr constant(const std::string& name, const std::string& role);
    // The dimensions of a constant, without decoding an initializer's data.
    std::vector<std::int64_t> constantDims(const std::string& name, const std::string& role);
    bool isConstant(const std::string& name);
    bool isActivation(const std::string& name);
    const Shape& shapeOf(TensorId tensor) const { return builder.shapeOf(tensor); }

    bool isUsed(const std::string& name) const;
    bool isGraphOutput(const std::string& name) const { return plan.graphOutputs.count(name) > 0; }

    // The constant `valueName` as a weight tensor, shared by every op that uses it unchanged. An
    // initializer nothing else decoded goes straight into the weight (one copy of big models).
    TensorId weightOf(const std::string& valueName);
    // A weight holding values computed during import (folded BatchNorm, transposed Gemm weights).
    TensorId newWeight(const std::string& name, Shape shape, std::vector<float> values);
    // An op name derived from a node's ("<node>:bias"), unique among nodes and generated names.
    std::string derivedOpName(const std::string& base);

    // A reshape target whose dimension 0 is the batch copies it (0) instead, so that the graph
    // can be rebatched later; this is what a static shape chain folded at import time needs.
    std::vector<std::int64_t> batchAwareTarget(std::vector<std::int64_t> target, const Shape& input) const;

    TensorId addOp(OpSpec spec) { return builder.addOp(std::move(spec)); }

    // Activations that hold integers in ONNX (integer inputs, casts to integer types, comparisons
    // and sums or products of such): their Div must truncate, as ONNX's integer Div does.
    void markInteger(const std::string& name) { integerValues_.insert(name); }
    bool isInteger(const std::string& name)
    {
        if (isConstant(name))
            return constant(name, "operand")->integer;
        return integerValues_.count(name) > 0;
    }

    // Padding {top, left, bottom, right} of a Pad folded into the node `name` (a Conv or AveragePool).
    void setFoldedPads(const std::string& name, std::array<std::int64_t, 4> pads) { foldedPads_[name] = pads; }
    std::array<std::int64_t, 4> foldedPads(const std::string& name) const
    {
        auto it = foldedPads_.find(name);
        return it == foldedPads_.end() ? std::array<std::int64_t, 4> {} : it->second;
    }
    bool hasFoldedPads(const std::string& name) const { return foldedPads_.count(name) > 0; }

private:
    std::string uniqueTensorName(const std::string& base);

    std::unordered_map<std::string, Value> values_;
    std::unordered_map<std::string, const onnx::TensorProto*> initializers_;
    std::unordered_map<std::string, TensorId> weightByValue_;
    std::unordered_set<std::string> tensorNames_;
    std::unordered_set<std::string> opNames_;
    std::unordered_set<TensorId> graphInputs_;
    std::unordered_map<std::string, std::array<std::int64_t, 4>> foldedPads_;
    std::unordered_set<std::string> integerValues_;
};

} // namespace opsched::onnx_import
