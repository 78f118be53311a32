// Weights in a file beside the model (ONNX external data): read at their offset and length,
// and a location outside the model's folder, a missing or short file, or a length that does not
// fit the tensor refused naming the tensor.
#include "onnx_model_maker.h"

#include "graph/graph.h"
#include "import/onnx_importer.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>

using namespace opsched;
using opsched::test::importError;
using opsched::test::ModelMaker;

namespace {

// x [1, 4] -> Gemm with W [3, 4] stored in `file` at `offset` (16 bytes of padding before it).
ModelMaker gemmWithExternalWeights(
    const std::string& location, std::int64_t offset, std::int64_t length, const std::string& file = "")
{
    ModelMaker m;
    m.input("x", { 1, 4 }).output("y", { 1, 3 });
    auto* w = m.graph().add_initializer();
    w->set_name("W");
    w->set_data_type(onnx::TensorProto::FLOAT);
    w->add_dims(3);
    w->add_dims(4);
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    for (const auto& [key, value] : { std::pair<std::string, std::string> { "location", location },
             { "offset", std::to_string(offset) }, { "length", std::to_string(length) } }) {
        auto* kv = w->add_external_data();
        kv->set_key(key);
        kv->set_value(value);
    }
    auto& gemm = m.node("Gemm", { "x", "W" }, { "y" }, "fc");
    ModelMaker::attr(gemm, "transB", std::int64_t { 1 });
    if (!file.empty()) {
        std::string bytes(16, '\x7f');
        for (int i = 0; i < 12; ++i) {
            const float v = 0.5F * static_cast<float>(i + 1);
            char raw[4];
            std::memcpy(raw, &v, 4);
            bytes.append(raw, 4);
        }
        std::filesystem::create_directories(ModelMaker::tempDir());
        std::ofstream(ModelMaker::tempDir() / file, std::ios::binary) << bytes;
    }
    return m;
}

TEST(OnnxExternalData, ReadsTheWeightsAtTheirOffset)
{
    ModelMaker m = gemmWithExternalWeights("weights.bin", 16, 48, "weights.bin");
    const Graph g = importOnnx(m.save());
    const auto& op = g.op(*g.findOp("fc"));
    const auto& w = g.tensor(op.lastLayer().weights.at(0));
    const auto values = w.weight->values(static_cast<std::size_t>(w.shape.elements()));
    ASSERT_EQ(values.size(), 12U);
    for (std::size_t i = 0; i < values.size(); ++i)
        EXPECT_EQ(values[i], 0.5F * static_cast<float>(i + 1));
}

TEST(OnnxExternalData, RefusesWhatCannotBeRead)
{
    EXPECT_CONTAINS(importError(gemmWithExternalWeights("../outside.bin", 0, 48).save()),
        "tensor 'W': external data location '../outside.bin' must be a path inside the model's folder");
    EXPECT_CONTAINS(importError(gemmWithExternalWeights("/etc/passwd", 0, 48).save()), "must be a path inside");
    EXPECT_CONTAINS(
        importError(gemmWithExternalWeights("missing.bin", 0, 48).save()), "tensor 'W': its external data file");
    EXPECT_CONTAINS(importError(gemmWithExternalWeights("short.bin", 32, 48, "short.bin").save()), "runs past the end");
    EXPECT_CONTAINS(importError(gemmWithExternalWeights("odd.bin", 16, 40, "odd.bin").save()),
        "external data holds 40 bytes, its shape and type need 48");
}

} // namespace
