// The shape of the ONNX graph before any op is mapped: node names, a topological order, values
// that nothing produces, cycles, and op types opsched does not know.
#pragma once

#include <onnx/onnx_pb.h>

#include <string>
#include <vector>

namespace opsched::onnx_import {

struct NodeRef {
    const onnx::NodeProto* proto = nullptr;
    std::string name; // unique: the node's own name, or "<OpType>_<index>" when it has none
    std::size_t index = 0; // position in the file
    const std::string& opType() const { return proto->op_type(); }
    // "'conv1' (Conv)" for messages.
    std::string label() const;
};

// Values a node's subgraphs (If's branches) read from the enclosing scope: inputs the node has
// without listing them, for ordering and counting readers.
std::vector<std::string> implicitInputs(const onnx::NodeProto& node);

// Unique names for the graph's nodes, by file position.
std::vector<std::string> nodeNames(const onnx::GraphProto& graph);

// Puts the graph's nodes in a stable topological order (file order where it already is one) and
// returns them with their names. Throws ImportError listing every value that nothing produces,
// or naming one cycle (nodes whose inputs never become available).
std::vector<NodeRef> sortNodes(onnx::GraphProto& graph);

// Throws ImportError listing every node whose op type opsched cannot import, each with its name and
// the model's opset, and saying what would make the model import.
void checkOpTypes(const std::vector<NodeRef>& nodes, int opset);

// Op types the importer maps to IR ops or folds as constants.
bool isKnownOpType(const std::string& opType);

} // namespace opsched::onnx_import
