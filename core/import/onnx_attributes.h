// Typed access to a node's attributes, with defaults for the ones the node leaves out.
#pragma once

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace opsched::onnx_import {

class Attributes {
public:
    explicit Attributes(const onnx::NodeProto& node)
        : node_(node)
    {
    }

    bool has(const std::string& name) const { return find(name) != nullptr; }
    // Each throws NodeError when the attribute exists with another type.
    std::int64_t getInt(const std::string& name, std::int64_t fallback) const;
    float getFloat(const std::string& name, float fallback) const;
    std::string getString(const std::string& name, const std::string& fallback) const;
    std::vector<std::int64_t> getInts(const std::string& name) const; // empty when absent
    std::vector<float> getFloats(const std::string& name) const;
    std::vector<std::string> getStrings(const std::string& name) const; // empty when absent
    const onnx::TensorProto* getTensor(const std::string& name) const;
    const onnx::GraphProto* getGraph(const std::string& name) const; // null when absent

private:
    const onnx::AttributeProto* find(const std::string& name) const;
    const onnx::AttributeProto* typed(const std::string& name, onnx::AttributeProto::AttributeType type) const;
    const onnx::NodeProto& node_;
};

} // namespace opsched::onnx_import
