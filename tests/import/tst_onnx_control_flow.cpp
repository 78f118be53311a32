// If nodes: the branch a constant condition takes is imported in the If's place (values are checked
// end to end by cli.user_branchy_dynamic_* against PyTorch); a condition known only at run time,
// or an unsupported op in the taken branch, is refused naming the node.
#include "onnx_model_maker.h"

#include "graph/graph.h"
#include "import/onnx_importer.h"
#include "util/error.h"

#include <gtest/gtest.h>

using namespace opsched;
using opsched::test::countOpsOfKind;
using opsched::test::importError;
using opsched::test::ModelMaker;

namespace {

// A branch graph with one output `out` of `dims`, made of `nodes` (op, inputs, output, name).
struct BranchNode {
    std::string op;
    std::vector<std::string> inputs;
    std::string output, name;
};

onnx::GraphProto branch(const std::string& name, const std::vector<BranchNode>& nodes, const std::string& out,
    const std::vector<std::int64_t>& dims)
{
    onnx::GraphProto g;
    g.set_name(name);
    for (const auto& n : nodes) {
        auto* p = g.add_node();
        p->set_op_type(n.op);
        p->set_name(n.name);
        for (const auto& in : n.inputs)
            p->add_input(in);
        p->add_output(n.output);
    }
    auto* o = g.add_output();
    o->set_name(out);
    o->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    for (auto d : dims)
        o->mutable_type()->mutable_tensor_type()->mutable_shape()->add_dim()->set_dim_value(d);
    return g;
}

onnx::NodeProto& ifNode(ModelMaker& m, const std::string& cond, const onnx::GraphProto& thenBranch,
    const onnx::GraphProto& elseBranch, const std::string& out, const std::string& name = "choose")
{
    auto& node = m.node("If", { cond }, { out }, name);
    for (const auto& [attr, g] :
        { std::pair { "then_branch", &thenBranch }, std::pair { "else_branch", &elseBranch } }) {
        auto* a = node.add_attribute();
        a->set_name(attr);
        a->set_type(onnx::AttributeProto::GRAPH);
        *a->mutable_g() = *g;
    }
    return node;
}

void boolConstant(ModelMaker& m, const std::string& name, bool value)
{
    auto* t = m.graph().add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::BOOL);
    t->add_int32_data(value ? 1 : 0);
}

TEST(OnnxControlFlow, AConstantConditionImportsTheTakenBranchOnly)
{
    for (bool flag : { true, false }) {
        ModelMaker m;
        m.input("x", { 1, 3, 4, 4 }).output("y", { 1, 3, 4, 4 });
        boolConstant(m, "flag", flag);
        // The untaken branch may hold what opsched cannot import (Acos here).
        const auto untaken = branch("untaken", { { "Acos", { "x" }, "h", "acos" } }, "h", { 1, 3, 4, 4 });
        const auto thenBranch
            = flag ? branch("then", { { "Relu", { "x" }, "r", "relu" } }, "r", { 1, 3, 4, 4 }) : untaken;
        const auto elseBranch
            = flag ? untaken : branch("else", { { "Sigmoid", { "x" }, "s", "sigmoid" } }, "s", { 1, 3, 4, 4 });
        ifNode(m, "flag", thenBranch, elseBranch, "y");
        const Graph g = importOnnx(m.save());
        ASSERT_EQ(g.opCount(), 1U) << "flag " << flag;
        const auto& op = g.ops().front();
        EXPECT_EQ(op.name, flag ? "choose/relu" : "choose/sigmoid");
        EXPECT_EQ(g.tensor(g.outputs().front()).shape, (Shape { 1, 3, 4, 4 }));
    }
}

TEST(OnnxControlFlow, AShapeTestDecidesAtImportAndNestedIfsFollow)
{
    // cond = Shape(x)[1] == 3, computed at import; the then branch holds another If on a flag.
    ModelMaker m;
    m.input("x", { 1, 3, 4, 4 }).output("y", { 1, 3, 4, 4 }).ints("one", { 1 }).ints("three", { 3 });
    boolConstant(m, "no", false);
    m.node("Shape", { "x" }, { "shape" }, "shape");
    m.node("Gather", { "shape", "one" }, { "channels" }, "channels");
    m.node("Equal", { "channels", "three" }, { "is_rgb" }, "is_rgb");
    m.node("Squeeze", { "is_rgb" }, { "cond" }, "cond");
    const auto inner = branch("inner", { { "Tanh", { "x" }, "t", "tanh" } }, "t", { 1, 3, 4, 4 });
    const auto other = branch("other", { { "Relu", { "x" }, "u", "relu" } }, "u", { 1, 3, 4, 4 });
    onnx::GraphProto thenBranch = branch("then", {}, "n", { 1, 3, 4, 4 });
    {
        ModelMaker holder; // builds the nested If node, then moves it into the branch
        ifNode(holder, "no", inner, other, "n", "nested");
        *thenBranch.add_node() = holder.graph().node(0);
    }
    const auto elseBranch = branch("else", { { "Sigmoid", { "x" }, "s", "sigmoid" } }, "s", { 1, 3, 4, 4 });
    ifNode(m, "cond", thenBranch, elseBranch, "y");
    const Graph g = importOnnx(m.save());
    ASSERT_EQ(g.opCount(), 1U);
    EXPECT_EQ(g.ops().front().name, "choose/nested/relu");
}

TEST(OnnxControlFlow, AValueReadOnlyInsideABranchKeepsItsProducer)
{
    // conv -> relu would fuse into one op, but the branch reads the convolution's own output.
    ModelMaker m;
    m.input("x", { 1, 2, 4, 4 }).output("y0", { 1, 2, 4, 4 }).output("y1", { 1, 2, 4, 4 }).ramp("w", { 2, 2, 1, 1 });
    boolConstant(m, "flag", true);
    m.node("Conv", { "x", "w" }, { "c" }, "conv");
    m.node("Relu", { "c" }, { "y0" }, "relu");
    const auto thenBranch = branch("then", { { "Add", { "c", "c" }, "d", "double" } }, "d", { 1, 2, 4, 4 });
    const auto elseBranch = branch("else", { { "Neg", { "c" }, "e", "negate" } }, "e", { 1, 2, 4, 4 });
    ifNode(m, "flag", thenBranch, elseBranch, "y1");
    const Graph g = importOnnx(m.save());
    EXPECT_EQ(g.outputs().size(), 2U);
    EXPECT_EQ(countOpsOfKind(g, OpKind::Conv), 1U);
    EXPECT_TRUE(g.findOp("choose/double").has_value());
}

TEST(OnnxControlFlow, WhatCannotBeDecidedOrImportedIsRefusedByName)
{
    {
        // A condition computed from activation values.
        ModelMaker m;
        m.input("x", { 1 }).output("y", { 1 }).weight("zero", { 1 }, { 0.0F });
        m.node("Greater", { "x", "zero" }, { "positive" }, "positive");
        m.node("Squeeze", { "positive" }, { "cond" }, "cond");
        const auto a = branch("then", { { "Relu", { "x" }, "r", "relu" } }, "r", { 1 });
        const auto b = branch("else", { { "Neg", { "x" }, "n", "neg" } }, "n", { 1 });
        ifNode(m, "cond", a, b, "y");
        const auto message = importError(m.save());
        EXPECT_CONTAINS(message, "'choose' (If)");
        EXPECT_CONTAINS(message, "its condition 'cond' is computed from activation values at run time");
    }
    {
        // An op opsched does not import, in the branch that is taken.
        ModelMaker m;
        m.input("x", { 1, 3, 4, 4 }).output("y", { 1, 3, 4, 4 });
        boolConstant(m, "flag", true);
        const auto a = branch("then", { { "Acos", { "x" }, "h", "acos" } }, "h", { 1, 3, 4, 4 });
        const auto b = branch("else", { { "Relu", { "x" }, "r", "relu" } }, "r", { 1, 3, 4, 4 });
        ifNode(m, "flag", a, b, "y");
        const auto message = importError(m.save());
        EXPECT_CONTAINS(message, "then branch, 'choose/acos' (Acos): operator not supported");
    }
}

} // namespace
