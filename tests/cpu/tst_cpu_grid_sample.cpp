// GridSample through the importer and the CPU executor, against the ONNX specification's sampling
// written here: bilinear and nearest, zeros and border padding, align_corners on and off, a grid
// reaching past the image on every side, several channels and batches; and the modes opsched does
// not compose (bicubic, reflection padding) refused by name.
#include "exec/cpu/cpu_executor.h"
#include "import/onnx_importer.h"
#include "plan/plan.h"
#include "schedule/basic_schedulers.h"
#include "util/error.h"

#include "../import/onnx_model_maker.h"
#include "support/seeded_values.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace opsched;
using opsched::test::ModelMaker;
using opsched::test::seededUniform;

namespace {

struct Sampling {
    std::string mode, padding;
    bool alignCorners = false;
};

// The value of image (n, c) at pixel (y, x) under the padding mode (zeros outside, or clamped).
double pixel(const std::vector<float>& x, std::int64_t c, std::int64_t h, std::int64_t w, std::int64_t n,
    std::int64_t ch, std::int64_t yi, std::int64_t xi, bool border)
{
    if (border) {
        yi = std::clamp<std::int64_t>(yi, 0, h - 1);
        xi = std::clamp<std::int64_t>(xi, 0, w - 1);
    } else if (yi < 0 || yi >= h || xi < 0 || xi >= w) {
        return 0.0;
    }
    return x[static_cast<std::size_t>(((n * c + ch) * h + yi) * w + xi)];
}

std::vector<float> reference(const Sampling& s, const std::vector<float>& x, std::int64_t n, std::int64_t c,
    std::int64_t h, std::int64_t w, const std::vector<float>& grid, std::int64_t ho, std::int64_t wo)
{
    const bool border = s.padding == "border";
    auto unnormalise = [&](double g, std::int64_t len) {
        const double l = static_cast<double>(len);
        double p = s.alignCorners ? (g + 1) / 2 * (l - 1) : ((g + 1) * l - 1) / 2;
        if (border)
            p = std::clamp(p, 0.0, l - 1);
        return p;
    };
    std::vector<float> out;
    for (std::int64_t b = 0; b < n; ++b)
        for (std::int64_t ch = 0; ch < c; ++ch)
            for (std::int64_t i = 0; i < ho; ++i)
                for (std::int64_t j = 0; j < wo; ++j) {
                    const auto at = static_cast<std::size_t>(((b * ho + i) * wo + j) * 2);
                    const double px = unnormalise(grid[at], w), py = unnormalise(grid[at + 1], h);
                    if (s.mode == "nearest") {
                        out.push_back(
                            static_cast<float>(pixel(x, c, h, w, b, ch, static_cast<std::int64_t>(std::nearbyint(py)),
                                static_cast<std::int64_t>(std::nearbyint(px)), border)));
                        continue;
                    }
                    const auto x0 = static_cast<std::int64_t>(std::floor(px)),
                               y0 = static_cast<std::int64_t>(std::floor(py));
                    const double fx = px - static_cast<double>(x0), fy = py - static_cast<double>(y0);
                    const double v = (1 - fy)
                            * ((1 - fx) * pixel(x, c, h, w, b, ch, y0, x0, border)
                                + fx * pixel(x, c, h, w, b, ch, y0, x0 + 1, border))
                        + fy
                            * ((1 - fx) * pixel(x, c, h, w, b, ch, y0 + 1, x0, border)
                                + fx * pixel(x, c, h, w, b, ch, y0 + 1, x0 + 1, border));
                    out.push_back(static_cast<float>(v));
                }
    return out;
}

ModelMaker gridModel(const Sampling& s, std::vector<std::int64_t> xDims, std::vector<std::int64_t> gridDims)
{
    ModelMaker m(16);
    m.input("x", xDims).input("grid", gridDims).output("y", { xDims[0], xDims[1], gridDims[1], gridDims[2] });
    auto& node = m.node("GridSample", { "x", "grid" }, { "y" }, "sample");
    ModelMaker::attr(node, "mode", s.mode);
    ModelMaker::attr(node, "padding_mode", s.padding);
    ModelMaker::attr(node, "align_corners", std::int64_t { s.alignCorners ? 1 : 0 });
    return m;
}

} // namespace

TEST(CpuGridSample, MatchesTheSpecificationInEveryComposedMode)
{
    if (!cpu::cpuBackendAvailable())
        GTEST_SKIP() << "skipped: no CPU backend (built without oneDNN)";
    const std::int64_t n = 2, c = 3, h = 5, w = 7, ho = 4, wo = 6;
    const auto x = seededUniform(n * c * h * w, 1, -1.0F, 1.0F);
    const auto grid = seededUniform(n * ho * wo * 2, 2, -1.3F, 1.3F); // past the image on every side
    for (const char* mode : { "bilinear", "nearest" })
        for (const char* padding : { "zeros", "border" })
            for (bool align : { false, true }) {
                const Sampling s { mode, padding, align };
                SCOPED_TRACE(std::string(mode) + ", " + padding + (align ? ", align_corners" : ""));
                auto m = gridModel(s, { n, c, h, w }, { n, ho, wo, 2 });
                const Graph g = importOnnx(m.save("grid_sample"));
                cpu::CpuExecutor ex(g, compileSchedule(g, sequentialSchedule(g)));
                const auto got = ex.run({ x, grid }).at(0);
                const auto want = reference(s, x, n, c, h, w, grid, ho, wo);
                ASSERT_EQ(got.size(), want.size());
                for (std::size_t i = 0; i < want.size(); ++i)
                    EXPECT_NEAR(got[i], want[i], 1e-5) << "element " << i;
            }
}

TEST(CpuGridSample, ModesItDoesNotComposeAreRefusedByName)
{
    for (const auto& [s, expected] : { std::pair { Sampling { "bicubic", "zeros" }, "mode 'bicubic'" },
             std::pair { Sampling { "bilinear", "reflection" }, "padding_mode 'reflection'" } }) {
        auto m = gridModel(s, { 1, 1, 4, 4 }, { 1, 2, 2, 2 });
        try {
            (void)importOnnx(m.save("grid_sample_bad"));
            ADD_FAILURE() << "imported " << expected;
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(expected), std::string::npos) << e.what();
        }
    }
}
