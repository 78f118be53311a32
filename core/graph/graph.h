// The operator graph: immutable once built. Transformations (a new batch size, operator merge)
// build a new Graph through GraphBuilder.
#pragma once

#include "graph/dag.h"
#include "graph/op.h"
#include "graph/tensor.h"

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace opsched {

class GraphBuilder;

class Graph {
public:
    const std::string& name() const { return name_; }

    std::size_t opCount() const { return ops_.size(); }
    const std::vector<Op>& ops() const { return ops_; }
    const Op& op(OpId id) const { return ops_[id.value()]; }
    std::optional<OpId> findOp(std::string_view name) const;

    const std::vector<Tensor>& tensors() const { return tensors_; }
    const Tensor& tensor(TensorId id) const { return tensors_[id.value()]; }

    const std::vector<TensorId>& inputs() const { return inputs_; }
    const std::vector<TensorId>& outputs() const { return outputs_; }
    std::int64_t batch() const;

    // Op-level dependencies (deduplicated, sorted by id).
    std::span<const std::uint32_t> predecessors(OpId id) const { return dag_.predecessors[id.value()]; }
    std::span<const std::uint32_t> successors(OpId id) const { return dag_.successors[id.value()]; }
    const Dag& dag() const { return dag_; }
    // Ops that read a tensor.
    const std::vector<OpId>& consumers(TensorId id) const { return consumers_[id.value()]; }

    // Stable topological order (ops are stored in one, so this is 0..n-1 for built graphs).
    std::vector<OpId> topologicalOrder() const;

    double totalFlops() const;
    double totalBytes() const;
    std::int64_t weightCount() const; // parameters (elements)

    // The same model at another batch size: shapes and costs are inferred again.
    Graph withBatch(std::int64_t batch) const;

    // Distinct for every graph built or rebatched in this process (copies share it: same content),
    // so caches can tell graphs apart where an address could be reused.
    std::uint64_t instanceId() const { return instanceId_; }

private:
    friend class GraphBuilder;
    Graph() = default;

    std::string name_;
    std::uint64_t instanceId_ = 0;
    std::vector<Op> ops_;
    std::vector<Tensor> tensors_;
    std::vector<TensorId> inputs_;
    std::vector<TensorId> outputs_;
    std::vector<std::vector<OpId>> consumers_;
    Dag dag_;
    std::unordered_map<std::string, OpId> opByName_;
};

} // namespace opsched
