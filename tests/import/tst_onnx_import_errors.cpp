// Bad ONNX input: every case is an opsched::Error naming the file and the problem, never a crash.
#include "onnx_model_maker.h"

#include "import/onnx_importer.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <functional>

#include <fstream>
#include <iterator>
#include <random>

using namespace opsched;
using opsched::test::importError;
using opsched::test::ModelMaker;

namespace {

ModelMaker reluModel()
{
    ModelMaker m;
    m.input("x", { 1, 3, 4, 4 }).output("y");
    m.node("Relu", { "x" }, { "y" }, "relu");
    return m;
}

TEST(OnnxImportErrors, MissingFileAndDirectory)
{
    EXPECT_CONTAINS(importError("/nonexistent/model.onnx"), "no such file");
    EXPECT_CONTAINS(importError(::testing::TempDir()), "is a directory");
}

TEST(OnnxImportErrors, NotAProtobuf)
{
    const auto path = ModelMaker::writeBytes("this is not an ONNX protobuf\n", "text");
    const auto message = importError(path);
    EXPECT_CONTAINS(message, "not an ONNX model");
    EXPECT_CONTAINS(message, path);
    EXPECT_CONTAINS(importError(ModelMaker::writeBytes("", "empty")), "empty");
}

TEST(OnnxImportErrors, TruncatedFile)
{
    ModelMaker m = reluModel();
    m.ramp("unused", { 64, 64 }); // enough bytes to cut in the middle of
    const std::string bytes = m.model().SerializeAsString();
    for (std::size_t cut : { bytes.size() / 2, bytes.size() - 3 })
        EXPECT_CONTAINS(importError(ModelMaker::writeBytes(bytes.substr(0, cut), "cut")), "truncated");
}

TEST(OnnxImportErrors, CheckerFailure)
{
    ModelMaker m;
    m.input("x", { 1, 3 }).output("y");
    m.node("Relu", { "x", "x" }, { "y" }, "relu"); // Relu takes one input
    EXPECT_CONTAINS(importError(m.save()), "ONNX checker");
}

TEST(OnnxImportErrors, ShapeInferenceFailure)
{
    ModelMaker m;
    m.input("a", { 1, 3 }).input("b", { 1, 4 }).output("y", { 1, 4 });
    m.node("Add", { "a", "b" }, { "y" }, "add");
    EXPECT_CONTAINS(importError(m.save()), "shape inference");
}

TEST(OnnxImportErrors, CycleIsNamed)
{
    ModelMaker m;
    m.input("x", { 1, 3 }).output("y");
    m.node("Add", { "x", "b" }, { "a" }, "first");
    m.node("Relu", { "a" }, { "b" }, "second");
    m.node("Relu", { "a" }, { "y" }, "out");
    const auto message = importError(m.save());
    EXPECT_CONTAINS(message, "cycle");
    EXPECT_CONTAINS(message, "'first' (Add)");
    EXPECT_CONTAINS(message, "'second' (Relu)");
}

TEST(OnnxImportErrors, MissingInputsAreAllListed)
{
    ModelMaker m;
    m.input("x", { 1, 3 }).output("y").output("lost");
    m.node("Add", { "x", "ghost" }, { "a" }, "add");
    m.node("Mul", { "a", "phantom" }, { "y" }, "mul");
    const auto message = importError(m.save());
    EXPECT_CONTAINS(message, "'add' (Add) reads 'ghost'");
    EXPECT_CONTAINS(message, "'mul' (Mul) reads 'phantom'");
    EXPECT_CONTAINS(message, "graph output 'lost'");
}

TEST(OnnxImportErrors, UnsortedNodesAreSorted)
{
    ModelMaker m;
    m.input("x", { 1, 3 }).output("y", { 1, 3 });
    m.node("Relu", { "a" }, { "y" }, "second");
    m.node("Sigmoid", { "x" }, { "a" }, "first");
    const Graph g = importOnnx(m.save());
    EXPECT_EQ(g.op(OpId(0)).name, "first");
}

TEST(OnnxImportErrors, FreeDimensionsComeFromTheGivenShapes)
{
    ModelMaker m;
    m.input("x", { 1, 3, -1, -1 }, onnx::TensorProto::FLOAT, "side")
        .input("t", { 1, -1 }, onnx::TensorProto::FLOAT, "len");
    m.output("y").output("z");
    m.node("Relu", { "x" }, { "y" }, "relu");
    m.node("Sigmoid", { "t" }, { "z" }, "sigmoid");
    const std::string path = m.save();
    const Graph g = importOnnx(path, 2, { { "x", { 2, 3, 5, 7 } }, { "t", { 2, 11 } } });
    EXPECT_EQ(g.tensor(g.inputs()[0]).shape, (Shape { 2, 3, 5, 7 }));
    EXPECT_EQ(g.tensor(g.inputs()[1]).shape, (Shape { 2, 11 }));
    EXPECT_EQ(g.tensor(g.outputs()[0]).shape, (Shape { 2, 3, 5, 7 }));
    // Each problem named: the input left out, a name that is no input, an unnamed shape on a
    // model with two inputs, a fixed dimension contradicted, the batch, the rank.
    auto error = [&](const InputShapes& shapes) {
        try {
            (void)importOnnx(path, 1, shapes);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("(imported)");
    };
    EXPECT_CONTAINS(error({ { "x", { 1, 3, 5, 7 } } }), "input 't': dimension 1 is free ('len' in 1xlen)");
    EXPECT_CONTAINS(error({ { "x", { 1, 3, 5, 7 } }, { "t", { 1, 4 } }, { "q", { 1 } } }),
        "--shape names 'q', which is not an input of the model (inputs: 'x', 't')");
    EXPECT_CONTAINS(error({ { "", { 1, 3, 5, 7 } } }), "--shape without a name needs a model with one input");
    EXPECT_CONTAINS(
        error({ { "x", { 1, 4, 5, 7 } }, { "t", { 1, 4 } } }), "dimension 1 = 4, but the model fixes it at 3");
    EXPECT_CONTAINS(
        error({ { "x", { 3, 3, 5, 7 } }, { "t", { 1, 4 } } }), "dimension 0 (the batch) = 3, the batch is 1");
    EXPECT_CONTAINS(error({ { "x", { 1, 3, 5 } }, { "t", { 1, 4 } } }), "--shape gives 3 dimensions; the input has 4");

    // The free inputs a window asks for, as the file declares them.
    const auto free = declaredInputs(path);
    ASSERT_EQ(free.size(), 2U);
    EXPECT_EQ(declaredText(free[0]), "1x3xsidexside");
    EXPECT_EQ(exampleText(free[0], 4), "4x3xSIDExSIDE");
}

TEST(OnnxImportErrors, ShapesThatCannotBeInferred)
{
    ModelMaker symbolic;
    symbolic.input("x", { 1, 3, -1, 8 }, onnx::TensorProto::FLOAT, "height").output("y");
    symbolic.node("Relu", { "x" }, { "y" }, "relu");
    EXPECT_CONTAINS(importError(symbolic.save()),
        "input 'x': dimension 2 is free ('height' in 1x3xheightx8); give the input's shape with --shape "
        "x=1x3xHEIGHTx8");

    ModelMaker shapeless;
    shapeless.output("y");
    shapeless.graph().add_input()->set_name("x");
    shapeless.graph().mutable_input(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    shapeless.node("Relu", { "x" }, { "y" }, "relu");
    EXPECT_CONTAINS(importError(shapeless.save()), "'shape'"); // the checker insists

    ModelMaker runtimeShape; // the reshape target comes from the data
    runtimeShape.input("x", { 1, 6 }).input("s", { 2 }, onnx::TensorProto::INT64).output("y", { 2, 3 });
    runtimeShape.node("Reshape", { "x", "s" }, { "y" }, "reshape");
    const auto message = importError(runtimeShape.save());
    EXPECT_CONTAINS(message, "'reshape' (Reshape)");
    EXPECT_CONTAINS(message, "shape");
}

TEST(OnnxImportErrors, AbsurdDimensions)
{
    ModelMaker m;
    m.input("x", { 1, 3, 1000000, 1000000 }).output("y");
    m.node("Relu", { "x" }, { "y" }, "relu");
    EXPECT_CONTAINS(importError(m.save()), "too large");

    ModelMaker grow; // a reshape target far beyond anything the IR holds
    grow.input("x", { 1, 4 }).ints("t", { 1, 4, 4294967296LL * 4 }).output("y");
    grow.node("Reshape", { "x", "t" }, { "y" }, "reshape");
    EXPECT_CONTAINS(importError(grow.save()), "'reshape' (Reshape)");
}

TEST(OnnxImportErrors, UnsupportedOpsAreAllListedAtOnce)
{
    ModelMaker m;
    m.input("x", { 1, 3, 4, 4 }).output("y").output("z");
    m.node("Unique", { "x" }, { "a" }, "unique_1");
    m.node("Acos", { "a" }, { "b" }, "");
    m.node("Relu", { "b" }, { "y" }, "relu");
    m.node("FusedThing", { "x" }, { "z" }, "custom").set_domain("com.example");
    const auto message = importError(m.save());
    EXPECT_CONTAINS(message, "3 nodes are not supported");
    EXPECT_CONTAINS(message, "'unique_1' (Unique)");
    EXPECT_CONTAINS(message, "'Acos_1' (Acos)");
    EXPECT_CONTAINS(message, "'custom' (FusedThing)");
    EXPECT_CONTAINS(message, "com.example");
    // Each with the opset, and what would make the model import.
    EXPECT_CONTAINS(message, "'unique_1' (Unique): operator not supported (ai.onnx opset 13)");
    EXPECT_CONTAINS(message, "opsched imports the operators docs/cli.md lists");
    EXPECT_CONTAINS(message, "custom domain");
}

TEST(OnnxImportErrors, UnsupportedConfigurationsAreAllListedAtOnce)
{
    ModelMaker m;
    m.input("x", { 1, 3, 20, 20 }).output("p").output("i").output("t");
    auto& pool = m.node("MaxPool", { "x" }, { "p" }, "pool"); // a dilated window of 81 positions
    ModelMaker::attr(pool, "kernel_shape", std::vector<std::int64_t> { 9, 9 });
    ModelMaker::attr(pool, "dilations", std::vector<std::int64_t> { 2, 2 });
    auto& argmax = m.node("MaxPool", { "x" }, { "q", "i" }, "argmax");
    ModelMaker::attr(argmax, "kernel_shape", std::vector<std::int64_t> { 2, 2 });
    m.graph().mutable_output(1)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
    m.graph().mutable_output(2)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
    m.node("NonZero", { "x" }, { "t" }, "nonzero"); // an op opsched only evaluates on constants
    const auto message = importError(m.save());
    EXPECT_CONTAINS(message, "3 problems");
    EXPECT_CONTAINS(message, "'pool' (MaxPool): dilated pooling over 81 window positions (at most 64");
    EXPECT_CONTAINS(message, "'argmax' (MaxPool): the Indices output of MaxPool is not supported");
    EXPECT_CONTAINS(message, "'nonzero' (NonZero): is only supported on constants");
}

TEST(OnnxImportErrors, FailuresDoNotCascade)
{
    ModelMaker m;
    m.input("x", { 1, 3, 20, 20 }).output("y");
    auto& pool = m.node("MaxPool", { "x" }, { "p" }, "pool");
    ModelMaker::attr(pool, "kernel_shape", std::vector<std::int64_t> { 9, 9 });
    ModelMaker::attr(pool, "dilations", std::vector<std::int64_t> { 2, 2 });
    m.node("Relu", { "p" }, { "y" }, "after");
    const auto message = importError(m.save());
    EXPECT_CONTAINS(message, "1 problem importing");
    EXPECT_EQ(message.find("'after'"), std::string::npos) << message;
}

TEST(OnnxImportErrors, OpsetsOutOfRange)
{
    ModelMaker future = reluModel();
    future.model().mutable_opset_import(0)->set_version(23);
    EXPECT_CONTAINS(importError(future.save()), "opset 23 is newer");

    ModelMaker old(6); // Add changed (broadcasting) in opset 7: upgraded on import
    old.input("a", { 1, 3 }).input("b", { 1, 3 }).output("y");
    old.node("Add", { "a", "b" }, { "y" }, "add");
    EXPECT_EQ(importOnnx(old.save()).opCount(), 1U);

    ModelMaker stuck(6); // a broadcast from an axis of an operand whose shape is unknown: not upgraded
    stuck.input("a", { 1, 3, 2 }).output("y");
    auto* b = stuck.graph().add_input();
    b->set_name("b");
    b->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::FLOAT);
    auto& add = stuck.node("Add", { "a", "b" }, { "y" }, "add");
    ModelMaker::attr(add, "broadcast", std::int64_t { 1 });
    ModelMaker::attr(add, "axis", std::int64_t { 1 });
    EXPECT_CONTAINS(importError(stuck.save()),
        "opset 6 is older than opsched reads (opsets 7 to 22), and these ops "
        "changed since: Add; ONNX's version converter could not");

    ModelMaker unknown(6); // an op ONNX does not know: named as unsupported, not as a converter failure
    unknown.input("a", { 1, 3 }).input("b", { 1, 3 }).output("y");
    unknown.node("Add", { "a", "b" }, { "s" }, "add");
    unknown.node("FooBar", { "s" }, { "y" }, "foo");
    const std::string message = importError(unknown.save());
    EXPECT_CONTAINS(message, "'foo' (FooBar): operator not supported (ai.onnx opset 6)");
    EXPECT_EQ(message.find("converter"), std::string::npos) << message;

    ModelMaker unchanged(6); // Relu kept its opset-6 definition: fine
    unchanged.input("x", { 1, 3 }).output("y");
    unchanged.node("Relu", { "x" }, { "y" }, "relu");
    EXPECT_EQ(importOnnx(unchanged.save()).opCount(), 1U);
}

TEST(OnnxImportErrors, ConstantOutputsAndBadBatch)
{
    ModelMaker m;
    m.input("x", { 1, 3 }).weight("c", { 2 }, { 1, 2 }).output("y").output("k");
    m.node("Relu", { "x" }, { "y" }, "relu");
    m.node("Identity", { "c" }, { "k" }, "const_out");
    EXPECT_CONTAINS(importError(m.save()), "graph output 'k' is a constant");
    EXPECT_CONTAINS(importError(reluModel().save(), -2), "batch size must be positive");
}

TEST(OnnxImportErrors, DamagedInitializer)
{
    ModelMaker m;
    m.input("x", { 1, 2, 4, 4 }).ramp("W", { 3, 2, 1, 1 }).output("y");
    m.graph().mutable_initializer(0)->mutable_float_data()->RemoveLast();
    m.node("Conv", { "x", "W" }, { "y" }, "conv");
    const auto message = importError(m.save());
    EXPECT_CONTAINS(message, "initializer");
}

// Random byte damage to a real model: every result is a graph or an opsched::Error.
TEST(OnnxImportErrors, DamagedBytesNeverCrash)
{
    std::ifstream in(std::string(OPSCHED_TEST_DATA_DIR) + "/two_branch.onnx", std::ios::binary);
    const std::string original((std::istreambuf_iterator<char>(in)), {});
    ASSERT_GT(original.size(), 1000U);
    std::mt19937 rng(12345);
    int imported = 0, refused = 0;
    for (int round = 0; round < 150; ++round) {
        std::string bytes = original;
        for (int k = std::uniform_int_distribution<int>(1, 4)(rng); k > 0; --k)
            bytes[std::uniform_int_distribution<std::size_t>(0, bytes.size() - 1)(rng)]
                = static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng));
        try {
            importOnnx(ModelMaker::writeBytes(bytes, "damaged"));
            ++imported;
        } catch (const Error&) {
            ++refused;
        }
    }
    EXPECT_EQ(imported + refused, 150);
    EXPECT_GT(refused, 0);
}

} // namespace

// LSTM, GRU and RNN unroll over a static sequence; what would need run-time lengths or states the
// unrolled form cannot hold is refused by name.
TEST(OnnxImportErrors, RecurrentLayersRefuseWhatTheUnrolledFormCannotHold)
{
    const auto lstm = [](const std::function<void(ModelMaker&, std::vector<std::string>&, onnx::NodeProto*&)>& edit) {
        ModelMaker m(14);
        m.input("x", { 3, 1, 2 }).output("y");
        m.weight("W", { 1, 8, 2 }, std::vector<float>(16, 0.1F)).weight("R", { 1, 8, 2 }, std::vector<float>(16, 0.1F));
        std::vector<std::string> inputs { "x", "W", "R" };
        onnx::NodeProto* node = nullptr;
        edit(m, inputs, node);
        node = &m.node("LSTM", inputs, { "y" }, "lstm");
        ModelMaker::attr(*node, "hidden_size", std::int64_t { 2 });
        edit(m, inputs, node);
        return importError(m.save());
    };
    // Lengths computed by the model, and lengths shorter than the sequence.
    EXPECT_CONTAINS(lstm([](ModelMaker& m, std::vector<std::string>& in, onnx::NodeProto*& n) {
        if (n)
            return;
        m.input("lengths", { 1 }, onnx::TensorProto::INT32);
        in.insert(in.end(), { "", "lengths" });
    }),
        "'lstm' (LSTM): sequence_lens computed at run time (variable sequence lengths) is not supported");
    EXPECT_CONTAINS(lstm([](ModelMaker& m, std::vector<std::string>& in, onnx::NodeProto*& n) {
        if (n)
            return;
        m.ints("lengths", { 2 });
        in.insert(in.end(), { "", "lengths" });
    }),
        "sequence_lens holds 2, but only lengths equal to the sequence (3) are supported");
    // A constant initial state other than zeros.
    EXPECT_CONTAINS(lstm([](ModelMaker& m, std::vector<std::string>& in, onnx::NodeProto*& n) {
        if (n)
            return;
        m.weight("h0", { 1, 1, 2 }, { 0.5F, 0.0F });
        in.insert(in.end(), { "", "", "h0" });
    }),
        "initial_h is a constant other than zeros");
    // An activation function opsched has no kernel for, and weights of the wrong size.
    EXPECT_CONTAINS(lstm([](ModelMaker&, std::vector<std::string>&, onnx::NodeProto*& n) {
        if (!n)
            return;
        auto* a = n->add_attribute();
        a->set_name("activations");
        a->set_type(onnx::AttributeProto::STRINGS);
        for (const char* f : { "Sigmoid", "ScaledTanh", "Tanh" })
            a->add_strings(f);
    }),
        "activation function ScaledTanh is not supported");
    EXPECT_CONTAINS(lstm([](ModelMaker&, std::vector<std::string>&, onnx::NodeProto*& n) {
        if (n)
            ModelMaker::attr(*n, "direction", std::string("bidirectional"));
    }),
        "W is 1x8x2, expected 2x8x2");
}
