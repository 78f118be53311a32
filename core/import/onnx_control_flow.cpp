// Nodes evaluated at import rather than run (Shape, Size, constants folded), and If whose
// condition is a constant at import (a flag, or a test on static shapes): the taken branch is
// imported in its place, node by node, and its outputs become the If's. Shapes are static here, so
// a branch chosen by a shape test is chosen once; a condition computed from activation values is
// refused by name.
#include "import/import_error.h"
#include "import/onnx_attributes.h"
#include "import/onnx_constant_folding.h"
#include "import/onnx_mapping_support.h"
#include "import/onnx_op_mapping.h"
#include "import/onnx_structure.h"

#include <unordered_set>

namespace opsched::onnx_import {

void foldShapeOf(ImportContext& ctx, const NodeRef& node)
{
    const std::string& in = node.proto->input(0);
    const auto dims
        = ctx.isActivation(in) ? ctx.shapeOf(ctx.activation(in, "data")).dims : ctx.constantDims(in, "data");
    if (node.opType() == "Shape") {
        ctx.setConstant(node.proto->output(0), std::make_shared<ConstTensor>(shapeConstant(*node.proto, dims)));
        return;
    }
    std::int64_t n = 1;
    for (auto d : dims)
        n *= d;
    ctx.setConstant(node.proto->output(0), std::make_shared<ConstTensor>(ConstTensor::ofInts({}, { n })));
}

void foldToConstants(ImportContext& ctx, const NodeRef& node)
{
    std::vector<ConstPtr> inputs;
    for (const auto& in : node.proto->input())
        inputs.push_back(in.empty() ? nullptr : ctx.find(in)->constant);
    const auto outputs = foldNode(*node.proto, inputs, ctx.opset);
    for (int i = 0; i < node.proto->output_size() && static_cast<std::size_t>(i) < outputs.size(); ++i)
        if (!node.proto->output(i).empty())
            ctx.setConstant(node.proto->output(i), outputs[static_cast<std::size_t>(i)]);
}

namespace {

bool allInputsConstant(ImportContext& ctx, const onnx::NodeProto& node)
{
    for (const auto& in : node.input())
        if (!in.empty() && !ctx.isConstant(in))
            return false;
    return true;
}

// One node of a branch: no fusion plan reaches inside a subgraph, so each node is folded or
// mapped on its own.
void importBranchNode(ImportContext& ctx, const NodeRef& node)
{
    const auto& domain = node.proto->domain();
    if (!domain.empty() && domain != "ai.onnx")
        throw NodeError(node.label() + ": operator of domain '" + domain + "' is not supported");
    if (!isKnownOpType(node.opType()))
        throw NodeError(node.label() + ": operator not supported");
    if (node.opType() == "Shape" || node.opType() == "Size") {
        foldShapeOf(ctx, node);
    } else if (node.opType() == "If") {
        mapIf(ctx, node);
    } else if (allInputsConstant(ctx, *node.proto) && isFoldableOpType(node.opType())) {
        foldToConstants(ctx, node);
    } else {
        mapNode(ctx, node);
    }
}

} // namespace

void mapIf(ImportContext& ctx, const NodeRef& node)
{
    const std::string& condName = inputName(node, 0);
    if (!ctx.isConstant(condName))
        throw NodeError("its condition '" + condName
            + "' is computed from activation values at run time; opsched takes an If whose condition is a constant "
              "at import (a flag, or a test on static shapes: give free input dimensions with --shape)");
    const auto cond = ctx.constant(condName, "cond");
    if (cond->size() != 1)
        throw NodeError("its condition has " + std::to_string(cond->size()) + " values; it must be one");
    const bool taken = cond->at(0) != 0.0;
    const onnx::GraphProto* branch = Attributes(*node.proto).getGraph(taken ? "then_branch" : "else_branch");
    if (!branch)
        throw NodeError(std::string("has no ") + (taken ? "then_branch" : "else_branch"));
    if (branch->output_size() != node.proto->output_size())
        throw NodeError("its " + std::string(taken ? "then" : "else") + " branch has "
            + std::to_string(branch->output_size()) + " outputs for " + std::to_string(node.proto->output_size()));
    for (const auto& t : branch->initializer())
        ctx.setConstant(t.name(), std::make_shared<ConstTensor>(decodeTensor(t, t.name())));
    const auto names = nodeNames(*branch);
    for (int i = 0; i < branch->node_size(); ++i) {
        // Named under the If: "/If" and "/rgb/Conv" (PyTorch's scopes) give "/If/rgb/Conv".
        const std::string& own = names[static_cast<std::size_t>(i)];
        const NodeRef inner { &branch->node(i), node.name + (own.starts_with('/') ? "" : "/") + own,
            static_cast<std::size_t>(i) };
        try {
            importBranchNode(ctx, inner);
        } catch (const Error& e) {
            const std::string what = e.what();
            throw NodeError(std::string(taken ? "then" : "else") + " branch, "
                + (what.rfind(inner.label(), 0) == 0 ? what : inner.label() + ": " + what));
        }
    }
    for (int i = 0; i < branch->output_size(); ++i) {
        const std::string& from = branch->output(i).name();
        const std::string& to = node.proto->output(i);
        if (to.empty())
            continue;
        if (ctx.isConstant(from))
            ctx.setConstant(to, ctx.find(from)->constant);
        else
            ctx.setActivation(to, ctx.activation(from, "branch output"));
    }
}

} // namespace opsched::onnx_import
