#include "import/onnx_import_context.h"

#include "import/import_error.h"

namespace opsched::onnx_import {

ImportContext::ImportContext(GraphBuilder& b, const onnx::GraphProto& graph, const FusionPlan& p, int opsetVersion,
    const std::vector<NodeRef>& nodes)
    : builder(b)
    , plan(p)
    , opset(opsetVersion)
{
    for (const auto& t : graph.initializer())
        initializers_.emplace(t.name(), &t);
    for (const auto& v : graph.input())
        if (!initializers_.count(v.name()))
            tensorNames_.insert(v.name());
    for (const auto& n : nodes)
        opNames_.insert(n.name);
}

const Value* ImportContext::find(const std::string& name)
{
    if (auto it = values_.find(name); it != values_.end())
        return &it->second;
    auto init = initializers_.find(name);
    if (init == initializers_.end())
        return nullptr;
    Value v;
    v.kind = Value::Kind::Constant;
    v.constant = std::make_shared<ConstTensor>(decodeTensor(*init->second, "initializer '" + name + "'"));
    return &(values_[name] = std::move(v));
}

void ImportContext::setActivation(const std::string& name, TensorId tensor)
{
    Value v;
    v.kind = Value::Kind::Activation;
    v.tensor = tensor;
    values_[name] = v;
}

void ImportContext::setConstant(const std::string& name, ConstPtr value)
{
    Value v;
    v.kind = Value::Kind::Constant;
    v.constant = std::move(value);
    values_[name] = std::move(v);
}

void ImportContext::setGraphInput(const std::string& name, TensorId tensor)
{
    setActivation(name, tensor);
    graphInputs_.insert(tensor);
}

void ImportContext::setFailed(const std::string& name)
{
    values_[name] = Value {};
}

TensorId ImportContext::activation(const std::string& name, const std::string& role)
{
    const Value* v = name.empty() ? nullptr : find(name);
    if (!v)
        throw NodeError("has no " + role + " input");
    if (v->kind != Value::Kind::Activation)
        throw NodeError("its " + role + " input '" + name + "' is a constant; opsched needs an activation there");
    return v->tensor;
}

ConstPtr ImportContext::constant(const std::string& name, const std::string& role)
{
    const Value* v = name.empty() ? nullptr : find(name);
    if (!v)
        throw NodeError("has no " + role + " input");
    if (v->kind != Value::Kind::Constant)
        throw NodeError(
            "its " + role + " input '" + name + "' is computed at run time; opsched needs a constant there");
    return v->constant;
}

std::vector<std::int64_t> ImportContext::constantDims(const std::string& name, const std::string& role)
{
    if (!values_.count(name))
        if (auto init = initializers_.find(name); init != initializers_.end())
            return { init->second->dims().begin(), init->second->dims().end() };
    return constant(name, role)->dims;
}

std::optional<Value::Kind> ImportContext::kindOf(const std::string& name) const
{
    if (auto it = values_.find(name); it != values_.end())
        return it->second.kind;
    if (initializers_.count(name))
        return Value::Kind::Constant;
    return std::nullopt;
}

bool ImportContext::isConstant(const std::string& name)
{
    return kindOf(name) == Value::Kind::Constant;
}

bool ImportContext::isActivation(const std::string& name)
{
    return kindOf(name) == Value::Kind::Activation;
}

bool ImportContext::isUsed(const std::string& name) const
{
    if (name.empty())
        return false;
    auto it = plan.consumers.find(name);
    return it != plan.consumers.end() && it->second > 0;
}

std::string ImportContext::uniqueTensorName(const std::string& base)
{
    // Op outputs are named "<op>:out" by the builder; keep weights clear of that pattern.
    std::string name = base.ends_with(":out") ? base + ".w" : base;
    for (int k = 2; tensorNames_.count(name); ++k)
        name = base + "#" + std::to_string(k);
    tensorNames_.insert(name);
    return name;
}

TensorId ImportContext::weightOf(const std::string& valueName)
{
    if (auto it = weightByValue_.find(valueName); it != weightByValue_.end())
        return it->second;
    std::vector<std::int64_t> dims;
    std::vector<float> values;
    auto init = initializers_.find(valueName);
    if (!values_.count(valueName) && init != initializers_.end()) {
        ConstTensor t = decodeTensor(*init->second, "initializer '" + valueName + "'");
        dims = std::move(t.dims);
        values = t.integer ? t.toFloats() : std::move(t.floats);
    } else {
        const auto value = constant(valueName, "weight");
        dims = value->dims;
        values = value->toFloats();
    }
    const auto id
        = builder.addWeight(uniqueTensorName(valueName), Shape(std::move(dims)), WeightData::stored(std::move(values)));
    weightByValue_.emplace(valueName, id);
    return id;
}

TensorId ImportContext::newWeight(const std::string& name, Shape shape, std::vector<float> values)
{
    return builder.addWeight(uniqueTensorName(name), std::move(shape), WeightData::stored(std::move(values)));
}

std::string ImportContext::derivedOpName(const std::string& base)
{
    std::string name = base;
    for (int k = 2; opNames_.count(name); ++k)
        name = base + "#" + std::to_string(k);
    opNames_.insert(name);
    return name;
}

std::vector<std::int64_t> ImportContext::batchAwareTarget(std::vector<std::int64_t> target, const Shape& input) const
{
    if (!target.empty() && input.rank() > 0 && input[0] == batch && target[0] > 0
        && (target[0] == batch || target[0] == modelBatch))
        target[0] = 0;
    return target;
}

} // namespace opsched::onnx_import
