#include "import/onnx_newer_opsets.h"

#include "import/import_error.h"
#include "import/onnx_attributes.h"
#include "import/onnx_tensor.h"

#include <onnx/defs/schema.h>
#include <onnx/defs/shape_inference.h>

#include <algorithm>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>

namespace opsched::onnx_import {
namespace {

// Ops of the checked copy that ONNX 1.12 has no schema for live here, with schemas of ours.
constexpr const char* kCheckDomain = "ai.opsched.checks";
constexpr const char* kOpaque = "Opaque";

void sameShapeAsInput(onnx::InferenceContext& ctx)
{
    onnx::propagateShapeAndTypeFromFirstInput(ctx);
}

// Outputs typed like the first input, unshaped: what an op whose shape rule is newer than opset 17
// leaves for the nodes after it.
void typedLikeFirstInput(onnx::InferenceContext& ctx)
{
    for (std::size_t i = 0; i < ctx.getNumOutputs(); ++i)
        onnx::propagateElemTypeFromInputToOutput(ctx, 0, i);
}

onnx::OpSchema floatOp(const char* name)
{
    onnx::OpSchema s;
    s.SetName(name)
        .SetDomain(kCheckDomain)
        .SinceVersion(1)
        .Input(0, "X", "", "T")
        .Output(0, "Y", "", "T")
        .TypeConstraint("T", { "tensor(float)", "tensor(double)", "tensor(float16)", "tensor(bfloat16)" }, "")
        .TypeAndShapeInferenceFunction(sameShapeAsInput);
    return s;
}

void registerSchemasOnce()
{
    static std::once_flag once;
    std::call_once(once, [] {
        auto& ranges = onnx::OpSchemaRegistry::DomainToVersionRange::Instance();
        if (!ranges.Map().count(kCheckDomain))
            ranges.AddDomainToVersion(kCheckDomain, 1, 1);
        auto mish = floatOp("Mish"); // opset 18
        auto gelu = floatOp("Gelu"); // opset 20
        gelu.Attr("approximate", "none or tanh", onnx::AttributeProto::STRING, std::string("none"));
        auto groupNorm = floatOp("GroupNormalization"); // opsets 18 and 21
        groupNorm.Input(1, "scale", "", "T")
            .Input(2, "bias", "", "T")
            .Attr("epsilon", "", onnx::AttributeProto::FLOAT, 1e-5F)
            .Attr("num_groups", "", onnx::AttributeProto::INT, true)
            .Attr("stash_type", "", onnx::AttributeProto::INT, std::int64_t { 1 });
        onnx::OpSchema opaque;
        opaque.SetName(kOpaque)
            .SetDomain(kCheckDomain)
            .SinceVersion(1)
            .AllowUncheckedAttributes()
            .Input(0, "inputs", "", "T", onnx::OpSchema::Variadic, false, 1)
            .Output(0, "outputs", "", "T", onnx::OpSchema::Variadic, false, 1)
            .TypeConstraint("T", onnx::OpSchema::all_tensor_types_with_bfloat(), "")
            .TypeAndShapeInferenceFunction(typedLikeFirstInput);
        for (auto* schema : { &mish, &gelu, &groupNorm, &opaque })
            onnx::OpSchemaRegistry::OpSchemaRegisterOnce registered(*schema);
    });
}

bool isDefaultDomain(const onnx::NodeProto& node)
{
    return node.domain().empty() || node.domain() == "ai.onnx";
}

void removeAttribute(onnx::NodeProto& node, const std::string& name)
{
    auto* attrs = node.mutable_attribute();
    attrs->erase(
        std::remove_if(attrs->begin(), attrs->end(), [&](const auto& a) { return a.name() == name; }), attrs->end());
}

// Constants a node of one graph can read: its initializers and the outputs of its Constant nodes.
class GraphConstants {
public:
    explicit GraphConstants(const onnx::GraphProto& graph)
    {
        for (const auto& t : graph.initializer())
            tensors_[t.name()] = &t;
        for (const auto& node : graph.node())
            if (node.op_type() == "Constant" && isDefaultDomain(node) && node.output_size() == 1)
                constantNodes_[node.output(0)] = &node;
    }

    // The integer values of `name`, or false when it is not a constant of this graph.
    bool ints(const std::string& name, std::vector<std::int64_t>& out) const
    {
        try {
            if (const auto t = tensors_.find(name); t != tensors_.end()) {
                out = decodeTensor(*t->second, name).toInts();
                return true;
            }
            const auto c = constantNodes_.find(name);
            if (c == constantNodes_.end())
                return false;
            const Attributes attrs(*c->second);
            if (const auto* value = attrs.getTensor("value")) {
                out = decodeTensor(*value, name).toInts();
                return true;
            }
            if (attrs.has("value_ints")) {
                out = attrs.getInts("value_ints");
                return true;
            }
            if (attrs.has("value_int")) {
                out = { attrs.getInt("value_int", 0) };
                return true;
            }
        } catch (const Error&) {
            // Not readable as integers: the importer reports it on the original node.
        }
        return false;
    }

private:
    std::unordered_map<std::string, const onnx::TensorProto*> tensors_;
    std::unordered_map<std::string, const onnx::NodeProto*> constantNodes_;
};

// The node keeps its inputs and outputs, nothing else: checked for dataflow, outputs typed like its
// first input and unshaped. Empty (omitted optional) inputs are dropped.
void makeOpaque(onnx::NodeProto& node)
{
    std::vector<std::string> inputs;
    for (const auto& in : node.input())
        if (!in.empty())
            inputs.push_back(in);
    node.clear_input();
    for (auto& in : inputs)
        node.add_input(std::move(in));
    node.set_op_type(kOpaque);
    node.set_domain(kCheckDomain);
}

bool allOnes(const std::vector<std::int64_t>& v)
{
    return std::all_of(v.begin(), v.end(), [](std::int64_t x) { return x == 1; });
}

const std::set<std::string>& reductionsWithAxesInput()
{
    static const std::set<std::string> ops { "ReduceL1", "ReduceL2", "ReduceLogSum", "ReduceLogSumExp", "ReduceMax",
        "ReduceMean", "ReduceMin", "ReduceProd", "ReduceSumSquare" };
    return ops;
}

// Opset 18: the axes of these reductions are an input; at 13 they are an attribute.
void lowerReduction(onnx::NodeProto& node, const GraphConstants& constants)
{
    const Attributes attrs(node);
    const bool noop = attrs.getInt("noop_with_empty_axes", 0) != 0;
    const std::string axesName = node.input_size() > 1 ? node.input(1) : std::string();
    std::vector<std::int64_t> axes;
    if (!axesName.empty() && !constants.ints(axesName, axes)) {
        makeOpaque(node);
        return;
    }
    removeAttribute(node, "noop_with_empty_axes");
    while (node.input_size() > 1)
        node.mutable_input()->RemoveLast();
    if (axes.empty() && noop) {
        node.set_op_type("Identity");
        node.clear_attribute();
        return;
    }
    if (!axes.empty()) {
        auto* a = node.add_attribute();
        a->set_name("axes");
        a->set_type(onnx::AttributeProto::INTS);
        for (auto axis : axes)
            a->add_ints(axis);
    }
}

void lowerNode(onnx::NodeProto& node, const GraphConstants& constants)
{
    const std::string& op = node.op_type();
    const Attributes attrs(node);
    if (op == "Mish" || op == "Gelu" || op == "GroupNormalization") {
        node.set_domain(kCheckDomain);
    } else if (reductionsWithAxesInput().count(op)) {
        lowerReduction(node, constants);
    } else if (op == "Split") {
        if (attrs.has("num_outputs")) // the last part may be smaller: no opset-13 form
            makeOpaque(node);
    } else if (op == "Pad") {
        if (node.input_size() > 3 && !node.input(3).empty()) // axes
            makeOpaque(node);
    } else if (op == "Resize") {
        const bool someAxes = attrs.has("axes");
        const bool keepAspect = attrs.getString("keep_aspect_ratio_policy", "stretch") != "stretch";
        if (someAxes || keepAspect) {
            makeOpaque(node);
            return;
        }
        removeAttribute(node, "antialias");
        removeAttribute(node, "keep_aspect_ratio_policy");
    } else if (op == "AveragePool" || op == "LpPool") {
        // Dilations (AveragePool 19, LpPool 18) and LpPool's ceil_mode (18) change the output shape.
        if (!allOnes(attrs.getInts("dilations")) || (op == "LpPool" && attrs.getInt("ceil_mode", 0) != 0)) {
            makeOpaque(node);
            return;
        }
        removeAttribute(node, "dilations");
        if (op == "LpPool")
            removeAttribute(node, "ceil_mode");
    } else if (op == "Cast" || op == "CastLike") {
        removeAttribute(node, "saturate"); // opset 19: only float8 targets read it
    }
}

void lowerGraph(onnx::GraphProto& graph)
{
    const GraphConstants constants(graph);
    for (auto& node : *graph.mutable_node()) {
        for (auto& a : *node.mutable_attribute()) {
            if (a.has_g())
                lowerGraph(*a.mutable_g());
            for (auto& g : *a.mutable_graphs())
                lowerGraph(g);
        }
        if (isDefaultDomain(node))
            lowerNode(node, constants);
    }
}

// Moves the initializers of `from` into `to` for its lifetime and back afterwards, also when the
// check throws: the copy shares the weights instead of duplicating them.
class BorrowedInitializers {
public:
    BorrowedInitializers(onnx::GraphProto& from, onnx::GraphProto& to)
        : from_(from)
        , to_(to)
    {
        to_.mutable_initializer()->Swap(from_.mutable_initializer());
    }
    ~BorrowedInitializers() { from_.mutable_initializer()->Swap(to_.mutable_initializer()); }
    BorrowedInitializers(const BorrowedInitializers&) = delete;
    BorrowedInitializers& operator=(const BorrowedInitializers&) = delete;

private:
    onnx::GraphProto& from_;
    onnx::GraphProto& to_;
};

} // namespace

void checkInOpset17Terms(onnx::ModelProto& model, int opset, const std::function<void(onnx::ModelProto&)>& check)
{
    if (opset <= kNewestCheckedOpset) {
        check(model);
        return;
    }
    registerSchemasOnce();
    onnx::ModelProto copy;
    {
        // Copy everything but the weights.
        onnx::GraphProto weights;
        weights.mutable_initializer()->Swap(model.mutable_graph()->mutable_initializer());
        copy = model;
        model.mutable_graph()->mutable_initializer()->Swap(weights.mutable_initializer());
    }
    BorrowedInitializers borrowed(*model.mutable_graph(), *copy.mutable_graph());
    copy.set_ir_version(std::min<std::int64_t>(copy.ir_version(), 8));
    for (auto& entry : *copy.mutable_opset_import())
        if (entry.domain().empty() || entry.domain() == "ai.onnx")
            entry.set_version(kNewestCheckedOpset);
    auto* ours = copy.add_opset_import();
    ours->set_domain(kCheckDomain);
    ours->set_version(1);
    lowerGraph(*copy.mutable_graph());
    check(copy);
}

} // namespace opsched::onnx_import
