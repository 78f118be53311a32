// ONNX conformance of import + CUDA executor: every libonnx-testdata case (node/,
// pytorch-converted/, pytorch-operator/) whose ops are all in the supported set and that the
// importer takes is run on the CUDA executor (TF32 off) with the case's inputs and compared with
// its outputs like numpy.allclose, rtol 1e-3, atol 1e-4 (the CPU test's atol is 1e-5; GPU
// reductions sum in another order). Cases the importer refuses are the CPU test's business
// (tests/cpu/tst_onnx_conformance.cpp) and are only counted here. Skipped without a device.
#include "cuda_test_support.h"
#include "import/onnx_importer.h"
#include "import/tensor_proto_io.h"
#include "plan/plan.h"
#include "schedule/basic_schedulers.h"
#include "util/error.h"

#include "support/onnx_test_cases.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <sstream>

using namespace opsched;
using namespace opsched::test;

namespace {

constexpr double kRtol = 1e-3;
constexpr double kAtol = 1e-4;

// Empty when every value is close (NaN and infinities must match exactly), else the largest error.
std::string mismatch(const std::vector<float>& got, const TensorData& want)
{
    if (got.size() != want.values.size())
        return "has " + std::to_string(got.size()) + " values, the reference " + std::to_string(want.values.size());
    double worst = 0;
    bool ok = true;
    for (std::size_t i = 0; i < got.size(); ++i) {
        const double a = got[i], b = want.values[i];
        if (std::isnan(a) || std::isnan(b) || std::isinf(a) || std::isinf(b)) {
            if (!(std::isnan(a) && std::isnan(b)) && a != b)
                ok = false, worst = INFINITY;
            continue;
        }
        const double err = std::abs(a - b);
        worst = std::max(worst, err);
        ok = ok && err <= kAtol + kRtol * std::abs(b);
    }
    if (ok)
        return {};
    std::ostringstream s;
    s << "max abs error " << worst;
    return s.str();
}

std::string runOnGpu(const fs::path& dir, const PreparedCase& prepared, const Graph& g)
{
    std::map<std::string, fs::path> fileOf(prepared.feeds.begin(), prepared.feeds.end());
    std::vector<std::vector<float>> inputs;
    for (auto id : g.inputs()) {
        const auto it = fileOf.find(g.tensor(id).name);
        if (it == fileOf.end() || !fs::exists(it->second))
            return "no test data for graph input '" + g.tensor(id).name + "'";
        inputs.push_back(readTensorProto(it->second.string()).values);
    }
    const TestDataSet data = readTestDataSet((dir / "test_data_set_0").string());
    if (data.outputs.size() != g.outputs().size())
        return std::to_string(g.outputs().size()) + " outputs, the reference has "
            + std::to_string(data.outputs.size());
    gpu::CudaExecutor ex(g, compileSchedule(g, sequentialSchedule(g)), gpu::CudaOptions { 0, false, {} });
    const auto outputs = ex.run(inputs);
    std::string why;
    for (std::size_t k = 0; k < outputs.size(); ++k)
        if (const auto m = mismatch(outputs[k], data.outputs[k]); !m.empty())
            why += "output " + std::to_string(k) + ": " + m + "; ";
    return why;
}

TEST(CudaOnnxConformance, SupportedCasesMatchReferenceOutputsOnGpu)
{
    OPSCHED_SKIP_WITHOUT_CUDA();
    // $OPSCHED_ONNX_TESTDATA: the copy in the GPU test bundle, on a machine without the package.
    const char* fromEnv = std::getenv("OPSCHED_ONNX_TESTDATA");
    const fs::path root(fromEnv && *fromEnv ? fromEnv : OPSCHED_ONNX_TESTDATA);
    if (!fs::is_directory(root / "node"))
        GTEST_SKIP() << "skipped: libonnx-testdata is not installed (" << root << ")";
    const fs::path tempDir = preparedModelsDir("opsched_cuda_onnx_conformance_");
    std::vector<std::string> failures;
    int passed = 0, refused = 0;
    for (const std::string folder : { "node", "pytorch-converted", "pytorch-operator" })
        for (const auto& dir : onnxTestCases(root / folder)) {
            const std::string label = folder + "/" + dir.filename().string();
            onnx::ModelProto model;
            if (!readModelProto(dir / "model.onnx", model) || !unsupportedOnnxOps(model).empty())
                continue;
            const PreparedCase prepared = prepareOnnxCase(dir, model, tempDir);
            std::optional<Graph> g;
            try {
                g = importOnnx(prepared.modelPath);
            } catch (const Error&) {
                ++refused; // the CPU conformance test checks each refusal's reason
                continue;
            }
            std::string why;
            try {
                why = runOnGpu(dir, prepared, *g);
            } catch (const Error& e) {
                why = e.what();
            }
            if (folder == std::string("node") && kNodeReferenceDifferences.count(dir.filename().string())
                && why.rfind("output", 0) == 0)
                continue; // the specification's answer, not ONNX 1.12's reference (onnx_test_cases.h)
            if (why.empty())
                ++passed;
            else
                failures.push_back(label + ": " + why);
        }
    std::error_code ec;
    fs::remove_all(tempDir, ec);
    std::printf("[ conform  ] CUDA, rtol %g, atol %g: passed %d, failed %zu, refused by the importer %d\n", kRtol,
        kAtol, passed, failures.size(), refused);
    for (const auto& line : failures)
        std::printf("[ FAILED   ] %s\n", line.c_str());
    EXPECT_GT(passed, 0);
    EXPECT_TRUE(failures.empty()) << failures.size() << " supported cases failed; the first: " << failures.front();
}

} // namespace
