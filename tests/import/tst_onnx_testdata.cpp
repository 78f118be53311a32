// Every libonnx-testdata node/ case whose ops opsched imports: the IR's output shapes must equal
// the reference outputs' shapes, or the importer must reject the case with a reason on the list
// of known limits (support/onnx_test_cases.h). The node tests feed weights, shapes and axes as graph inputs; those go
// in as initializers (from the case's input_N.pb), the way exporters store them.
#include "import/onnx_importer.h"
#include "import/tensor_proto_io.h"
#include "util/error.h"

#include "support/onnx_test_cases.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

using namespace opsched;
using namespace opsched::test;
namespace fs = std::filesystem;

namespace {

struct Counts {
    int cases = 0, supported = 0, imported = 0, limits = 0;
};

TEST(OnnxTestData, NodeCasesImportWithReferenceShapes)
{
    const fs::path root = fs::path(OPSCHED_ONNX_TESTDATA) / "node";
    if (!fs::is_directory(root))
        GTEST_SKIP() << "libonnx-testdata is not installed (" << root << ")";
    const auto cases = onnxTestCases(root);
    const fs::path tempDir = preparedModelsDir("opsched_onnx_testdata_");

    Counts n;
    std::set<std::string> limitsSeen;
    for (const auto& dir : cases) {
        ++n.cases;
        const std::string name = dir.filename().string();
        onnx::ModelProto model;
        ASSERT_TRUE(readModelProto(dir / "model.onnx", model)) << name;
        if (!unsupportedOnnxOps(model).empty())
            continue;
        ++n.supported;
        const std::string path = prepareOnnxCase(dir, model, tempDir).modelPath;
        const auto limit = kNodeImportLimits.find(name);
        try {
            const Graph g = importOnnx(path);
            if (limit != kNodeImportLimits.end()) {
                ADD_FAILURE() << name << " imports now: take it off kNodeImportLimits";
                continue;
            }
            const TestDataSet data = readTestDataSet((dir / "test_data_set_0").string());
            ASSERT_EQ(g.outputs().size(), data.outputs.size()) << name;
            for (std::size_t i = 0; i < data.outputs.size(); ++i)
                EXPECT_EQ(g.tensor(g.outputs()[i]).shape, data.outputs[i].shape) << name << " output " << i;
            ++n.imported;
        } catch (const Error& e) {
            if (limit == kNodeImportLimits.end()) {
                ADD_FAILURE() << name << " failed to import: " << e.what();
                continue;
            }
            EXPECT_NE(std::string(e.what()).find(limit->second), std::string::npos)
                << name << ": expected '" << limit->second << "' in: " << e.what();
            limitsSeen.insert(name);
            ++n.limits;
        }
    }
    std::error_code ec;
    fs::remove_all(tempDir, ec);
    std::printf("[ counts   ] node cases %d: %d with supported ops, %d imported, %d rejected as known limits, %d "
                "with unsupported ops\n",
        n.cases, n.supported, n.imported, n.limits, n.cases - n.supported);
    for (const auto& [name, reason] : kNodeImportLimits)
        EXPECT_TRUE(limitsSeen.count(name)) << name << " is on kNodeImportLimits but was not seen";
    EXPECT_EQ(n.imported + n.limits, n.supported);
}

} // namespace
