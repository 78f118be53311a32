// TensorProto files and ONNX test-data folders.
#include "import/onnx_importer.h"
#include "import/tensor_proto_io.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

using namespace opsched;
namespace fs = std::filesystem;

namespace {

fs::path tempDir(const std::string& name)
{
    const auto dir = fs::path(::testing::TempDir()) / ("opsched_tensor_io_" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

const fs::path kNodeData = fs::path(OPSCHED_ONNX_TESTDATA) / "node";

TEST(TensorProtoIo, WriteThenReadFloat)
{
    const auto file = tempDir("roundtrip") / "t.pb";
    TensorData t { "x", Shape { 2, 3 }, DataType::Float32, { 1, 2, 3, 4, 5, -6.5F } };
    writeTensorProto(file.string(), t);
    const TensorData back = readTensorProto(file.string());
    EXPECT_EQ(back.name, "x");
    EXPECT_EQ(back.shape, (Shape { 2, 3 }));
    EXPECT_EQ(back.sourceType, DataType::Float32);
    EXPECT_EQ(back.values, t.values);
}

TEST(TensorProtoIo, ReadsReferenceFloatAndInt64Files)
{
    const auto dir = kNodeData / "test_reshape_reordered_all_dims" / "test_data_set_0";
    if (!fs::is_directory(dir))
        GTEST_SKIP() << "libonnx-testdata is not installed";
    const TensorData data = readTensorProto((dir / "input_0.pb").string());
    EXPECT_EQ(data.shape, (Shape { 2, 3, 4 }));
    EXPECT_EQ(data.values.size(), 24U);
    const TensorData shape = readTensorProto((dir / "input_1.pb").string());
    EXPECT_EQ(shape.sourceType, DataType::Int64);
    EXPECT_EQ(shape.values, (std::vector<float> { 4, 2, 3 }));
}

TEST(TensorProtoIo, ReadsATestDataSet)
{
    const auto dir = kNodeData / "test_split_equal_parts_2d" / "test_data_set_0";
    if (!fs::is_directory(dir))
        GTEST_SKIP() << "libonnx-testdata is not installed";
    const TestDataSet set = readTestDataSet(dir.string());
    ASSERT_EQ(set.inputs.size(), 1U);
    ASSERT_EQ(set.outputs.size(), 2U);
    EXPECT_EQ(set.inputs[0].shape, (Shape { 2, 6 }));
    EXPECT_EQ(set.outputs[1].shape, (Shape { 2, 3 }));
    // Split halves: the second output holds columns 3..5 of the input.
    EXPECT_EQ(set.outputs[1].values[0], set.inputs[0].values[3]);
}

TEST(TensorProtoIo, InputValuesFollowTheGraphInputs)
{
    const auto caseDir = kNodeData / "test_add";
    if (!fs::is_directory(caseDir))
        GTEST_SKIP() << "libonnx-testdata is not installed";
    const Graph g = importOnnx((caseDir / "model.onnx").string());
    TestDataSet set = readTestDataSet((caseDir / "test_data_set_0").string());
    auto values = inputValuesFor(g, set);
    ASSERT_EQ(values.size(), 2U);
    EXPECT_EQ(values[1], set.inputs[1].values);

    std::swap(set.inputs[0], set.inputs[1]); // named files: found by name
    EXPECT_EQ(inputValuesFor(g, set)[1], set.inputs[0].values);

    const Graph other = importOnnx((caseDir / "model.onnx").string(), 5);
    EXPECT_THROW(inputValuesFor(other, set), Error); // batch 5 against batch-3 data
    set.inputs.pop_back();
    EXPECT_THROW(inputValuesFor(g, set), Error);
}

TEST(TensorProtoIo, Errors)
{
    const auto dir = tempDir("errors");
    auto message = [](auto&& f) {
        try {
            f();
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    EXPECT_NE(message([&] { readTensorProto((dir / "missing.pb").string()); }).find("no such file"), std::string::npos);
    std::ofstream(dir / "text.pb") << "this is not a tensor";
    EXPECT_NE(
        message([&] { readTensorProto((dir / "text.pb").string()); }).find("not a TensorProto"), std::string::npos);
    EXPECT_NE(message([&] { readTestDataSet((dir / "nowhere").string()); }).find("no such test-data folder"),
        std::string::npos);
    EXPECT_NE(message([&] { readTestDataSet(dir.string()); }).find("input_0.pb"), std::string::npos);
}

} // namespace
