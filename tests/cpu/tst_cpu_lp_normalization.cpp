// LpNormalization (p 1 and 2, any axis) imported as a kept-dims norm and a division, run on the CPU
// and compared element-wise with x / ||x||_p computed here (ONNX's own data has no such case).
#include "exec/cpu/cpu_executor.h"
#include "import/onnx_importer.h"
#include "plan/plan.h"
#include "schedule/basic_schedulers.h"

#include "../import/onnx_model_maker.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

using namespace opsched;
using opsched::test::ModelMaker;

TEST(CpuLpNormalization, DividesByTheNormAlongTheAxis)
{
    const std::vector<std::int64_t> dims { 2, 3, 4 };
    std::mt19937 rng(9);
    std::uniform_real_distribution<float> u(-2.0F, 2.0F);
    std::vector<float> x(24);
    for (auto& v : x)
        v = u(rng);
    for (const std::int64_t p : { 1, 2 })
        for (const std::int64_t axis : { -1, 1, 0 }) {
            ModelMaker m(13);
            m.input("x", dims).output("y", dims);
            auto& n = m.node("LpNormalization", { "x" }, { "y" }, "lp");
            ModelMaker::attr(n, "p", p);
            ModelMaker::attr(n, "axis", axis);
            const Graph g = importOnnx(m.save(), 2);
            cpu::CpuExecutor ex(g, compileSchedule(g, sequentialSchedule(g)));
            const auto got = ex.run({ x }).front();
            ASSERT_EQ(got.size(), x.size());
            const std::int64_t a = axis < 0 ? axis + 3 : axis;
            const std::int64_t strides[] = { 12, 4, 1 };
            for (std::size_t i = 0; i < x.size(); ++i) {
                // The elements sharing i's coordinates except along the axis.
                const auto base
                    = static_cast<std::int64_t>(i) - (static_cast<std::int64_t>(i) / strides[a]) % dims[a] * strides[a];
                double norm = 0;
                for (std::int64_t k = 0; k < dims[a]; ++k) {
                    const double v = x[static_cast<std::size_t>(base + k * strides[a])];
                    norm += p == 1 ? std::abs(v) : v * v;
                }
                norm = p == 1 ? norm : std::sqrt(norm);
                EXPECT_NEAR(got[i], x[i] / norm, 1e-5) << "p " << p << ", axis " << axis << ", element " << i;
            }
        }
}

TEST(CpuLpNormalization, RefusesAnUndefinedP)
{
    ModelMaker m(13);
    m.input("x", { 2, 3 }).output("y", { 2, 3 });
    ModelMaker::attr(m.node("LpNormalization", { "x" }, { "y" }, "lp"), "p", std::int64_t { 3 });
    try {
        importOnnx(m.save(), 1);
        FAIL() << "p = 3 imported";
    } catch (const std::exception& e) {
        EXPECT_NE(std::string(e.what()).find("p = 3"), std::string::npos) << e.what();
    }
}
