// Models of opsets 18 to 22: ONNX 1.12 checks them in opset-17 terms, the importer reads them with
// their own opset's meaning (values: tests/cli/newer_opset_checks.cmake against PyTorch), and what
// opsched cannot represent is refused naming the node and the reason.
#include "onnx_model_maker.h"

#include "graph/graph.h"
#include "import/onnx_importer.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <variant>

using namespace opsched;
using opsched::test::countOpsOfKind;
using opsched::test::importError;
using opsched::test::ModelMaker;

namespace {

TEST(NewerOpsets, ReadsOpsets18To22AndRefusesNewerOnes)
{
    for (int opset : { 18, 19, 20, 21, 22 }) {
        ModelMaker m(opset);
        m.model().set_ir_version(opset >= 21 ? 10 : opset >= 19 ? 9 : 8);
        m.input("x", { 1, 4, 3, 3 }).output("y", { 1, 4, 1, 1 }).ints("axes", { 2, 3 });
        m.node("ReduceMean", { "x", "axes" }, { "y" }, "mean");
        const Graph g = importOnnx(m.save());
        ASSERT_EQ(g.opCount(), 1U) << "opset " << opset;
        EXPECT_EQ(g.tensor(g.outputs().front()).shape, (Shape { 1, 4, 1, 1 })) << "opset " << opset;
    }
    ModelMaker future(23);
    future.input("x", { 1, 3 }).output("y");
    future.node("Relu", { "x" }, { "y" }, "relu");
    EXPECT_CONTAINS(importError(future.save()), "opset 23 is newer than opsched reads (opsets 7 to 22)");
}

TEST(NewerOpsets, TheCheckerAndShapeInferenceStillRunOnNewerModels)
{
    // A reduction with an axes input feeding an Add of another shape: strict inference of the
    // opset-17 form sees the mismatch.
    ModelMaker m(18);
    m.input("x", { 1, 4, 3, 3 }).input("z", { 1, 5 }).output("y", { 1, 5 }).ints("axes", { 2, 3 });
    m.node("ReduceMean", { "x", "axes" }, { "r" }, "mean");
    ModelMaker::attr(m.node("ReduceMean", { "r", "axes" }, { "q" }, "again"), "keepdims", std::int64_t { 0 });
    m.node("Add", { "q", "z" }, { "y" }, "add");
    EXPECT_CONTAINS(importError(m.save()), "shape inference fails");

    ModelMaker dangling(21);
    dangling.model().set_ir_version(10);
    dangling.input("x", { 1, 4 }).output("y", { 1, 4 });
    dangling.node("Gelu", { "nowhere" }, { "y" }, "gelu");
    EXPECT_CONTAINS(importError(dangling.save()), "nowhere");
}

TEST(NewerOpsets, NewOpsMapToOneOpEach)
{
    ModelMaker m(21);
    m.model().set_ir_version(10);
    m.input("x", { 1, 6, 4, 4 }).output("y", { 1, 6, 4, 4 });
    m.ramp("scale", { 6 }).ramp("bias", { 6 });
    ModelMaker::attr(
        m.node("GroupNormalization", { "x", "scale", "bias" }, { "g" }, "gn"), "num_groups", std::int64_t { 3 });
    m.node("Mish", { "g" }, { "h" }, "mish");
    ModelMaker::attr(m.node("Gelu", { "h" }, { "y" }, "gelu"), "approximate", std::string("tanh"));
    const Graph g = importOnnx(m.save());
    ASSERT_EQ(g.opCount(), 3U);
    EXPECT_EQ(g.op(*g.findOp("gn")).kind, OpKind::LayerNorm);
    const auto& gelu = g.op(*g.findOp("gelu"));
    EXPECT_EQ(gelu.kind, OpKind::Gelu);
    EXPECT_EQ(std::get<Eltwise>(gelu.lastLayer().params).activation.kind, ActivationKind::GeluTanh);
}

TEST(NewerOpsets, DecomposedLayerNormWithAxesInputsIsOneOp)
{
    ModelMaker m(18);
    m.input("x", { 1, 3, 4 }).weight("eps", {}, { 1e-5F }).weight("two", {}, { 2.0F }).output("y", { 1, 3, 4 });
    m.weight("scale", { 4 }, { 1, 2, 3, 4 }).weight("bias", { 4 }, { 0, 0, 0, 1 }).ints("last", { -1 });
    m.node("ReduceMean", { "x", "last" }, { "m" }, "ln.mean");
    m.node("Sub", { "x", "m" }, { "d" }, "ln.sub");
    m.node("Pow", { "d", "two" }, { "p" }, "ln.pow");
    m.node("ReduceMean", { "p", "last" }, { "v" }, "ln.var");
    m.node("Add", { "v", "eps" }, { "e" }, "ln.eps");
    m.node("Sqrt", { "e" }, { "s" }, "ln.sqrt");
    m.node("Div", { "d", "s" }, { "n" }, "ln.div");
    m.node("Mul", { "n", "scale" }, { "a" }, "ln.scale");
    m.node("Add", { "a", "bias" }, { "y" }, "ln.bias");
    const Graph g = importOnnx(m.save());
    ASSERT_EQ(g.opCount(), 1U);
    EXPECT_EQ(countOpsOfKind(g, OpKind::LayerNorm), 1U);
}

TEST(NewerOpsets, WhatOpschedCannotRepresentIsRefusedByName)
{
    {
        ModelMaker m(19);
        m.input("x", { 1, 2, 8, 8 }).output("y");
        auto& pool = m.node("AveragePool", { "x" }, { "y" }, "dilated_pool");
        ModelMaker::attr(pool, "kernel_shape", std::vector<std::int64_t> { 3, 3 });
        ModelMaker::attr(pool, "dilations", std::vector<std::int64_t> { 2, 2 });
        const auto message = importError(m.save());
        EXPECT_CONTAINS(message, "'dilated_pool'");
        EXPECT_CONTAINS(message, "pooling with dilations is not supported");
    }
    {
        ModelMaker m(19);
        m.input("x", { 1, 2, 4, 4 }).output("y").ints("pads", { 0, 0, 1, 1, 0, 0, 1, 1 });
        ModelMaker::attr(m.node("Pad", { "x", "pads" }, { "y" }, "wrap_pad"), "mode", std::string("wrap"));
        EXPECT_CONTAINS(importError(m.save()), "pad mode 'wrap' is not supported");
    }
    {
        ModelMaker m(18);
        m.input("x", { 1, 2, 8, 8 }).output("y").weight("scales", { 4 }, { 1, 1, 0.5F, 0.5F });
        auto& resize = m.node("Resize", { "x", "", "scales" }, { "y" }, "antialiased");
        ModelMaker::attr(resize, "mode", std::string("linear"));
        ModelMaker::attr(resize, "antialias", std::int64_t { 1 });
        EXPECT_CONTAINS(importError(m.save()), "antialias=1");
    }
    {
        // Opset 18 gives GroupNormalization's scale per group; a per-channel one is the opset-21 form.
        ModelMaker m(18);
        m.input("x", { 1, 6, 4, 4 }).output("y", { 1, 6, 4, 4 }).ramp("scale", { 6 }).ramp("bias", { 6 });
        ModelMaker::attr(
            m.node("GroupNormalization", { "x", "scale", "bias" }, { "y" }, "gn"), "num_groups", std::int64_t { 3 });
        EXPECT_CONTAINS(importError(m.save()), "at opset 18 it holds one value per group (3)");
    }
    {
        ModelMaker m(20);
        m.input("x", { 1, 4 }).output("y", { 1, 4 });
        ModelMaker::attr(m.node("Gelu", { "x" }, { "y" }, "gelu"), "approximate", std::string("fast"));
        EXPECT_CONTAINS(importError(m.save()), "unknown approximate 'fast'");
    }
    {
        ModelMaker m(18);
        m.input("x", { 1, 7, 4 }).output("a", { 1, 3, 4 }).output("b", { 1, 4, 4 });
        auto& split = m.node("Split", { "x" }, { "a", "b" }, "split");
        ModelMaker::attr(split, "num_outputs", std::int64_t { 3 });
        ModelMaker::attr(split, "axis", std::int64_t { 1 });
        EXPECT_CONTAINS(importError(m.save()), "num_outputs 3 does not match its 2 outputs");
    }
}

TEST(NewerOpsets, PadOverAxesAndSplitByNumOutputsTakeTheirShapes)
{
    ModelMaker m(18);
    m.input("x", { 1, 5, 4 }).output("a", { 1, 3, 7 }).output("b", { 1, 2, 7 });
    m.ints("pads", { 2, 1 }).ints("axes", { -1 });
    m.node("Pad", { "x", "pads", "", "axes" }, { "p" }, "pad_last");
    auto& split = m.node("Split", { "p" }, { "a", "b" }, "split");
    ModelMaker::attr(split, "num_outputs", std::int64_t { 2 });
    ModelMaker::attr(split, "axis", std::int64_t { 1 });
    const Graph g = importOnnx(m.save());
    ASSERT_EQ(g.outputs().size(), 2U);
    EXPECT_EQ(g.tensor(g.outputs()[0]).shape, (Shape { 1, 3, 7 }));
    EXPECT_EQ(g.tensor(g.outputs()[1]).shape, (Shape { 1, 2, 7 }));
}

} // namespace
