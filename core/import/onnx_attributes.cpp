#include "import/onnx_attributes.h"

#include "import/import_error.h"

namespace opsched::onnx_import {

const onnx::AttributeProto* Attributes::find(const std::string& name) const
{
    for (const auto& a : node_.attribute())
        if (a.name() == name)
            return &a;
    return nullptr;
}

const onnx::AttributeProto* Attributes::typed(const std::string& name, onnx::AttributeProto::AttributeType type) const
{
    const auto* a = find(name);
    if (a && a->type() != type && a->type() != onnx::AttributeProto::UNDEFINED)
        throw NodeError("attribute '" + name + "' has type " + onnx::AttributeProto::AttributeType_Name(a->type())
            + ", expected " + onnx::AttributeProto::AttributeType_Name(type));
    return a;
}

std::int64_t Attributes::getInt(const std::string& name, std::int64_t fallback) const
{
    const auto* a = typed(name, onnx::AttributeProto::INT);
    return a ? a->i() : fallback;
}

float Attributes::getFloat(const std::string& name, float fallback) const
{
    const auto* a = typed(name, onnx::AttributeProto::FLOAT);
    return a ? a->f() : fallback;
}

std::string Attributes::getString(const std::string& name, const std::string& fallback) const
{
    const auto* a = typed(name, onnx::AttributeProto::STRING);
    return a ? a->s() : fallback;
}

std::vector<std::int64_t> Attributes::getInts(const std::string& name) const
{
    const auto* a = typed(name, onnx::AttributeProto::INTS);
    return a ? std::vector<std::int64_t>(a->ints().begin(), a->ints().end()) : std::vector<std::int64_t> {};
}

std::vector<float> Attributes::getFloats(const std::string& name) const
{
    const auto* a = typed(name, onnx::AttributeProto::FLOATS);
    return a ? std::vector<float>(a->floats().begin(), a->floats().end()) : std::vector<float> {};
}

std::vector<std::string> Attributes::getStrings(const std::string& name) const
{
    const auto* a = typed(name, onnx::AttributeProto::STRINGS);
    return a ? std::vector<std::string>(a->strings().begin(), a->strings().end()) : std::vector<std::string> {};
}

const onnx::TensorProto* Attributes::getTensor(const std::string& name) const
{
    const auto* a = typed(name, onnx::AttributeProto::TENSOR);
    return a ? &a->t() : nullptr;
}

const onnx::GraphProto* Attributes::getGraph(const std::string& name) const
{
    const auto* a = typed(name, onnx::AttributeProto::GRAPH);
    return a ? &a->g() : nullptr;
}

} // namespace opsched::onnx_import
