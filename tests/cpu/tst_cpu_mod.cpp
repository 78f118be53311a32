// Mod by a constant divisor (x % 3 on integer ids, fmod by 0.7 on floats), imported as a
// quotient, its floor or truncation and a product, run on the CPU and compared element-wise with
// the definitions: the divisor's sign for integers, C's fmod (the dividend's sign) with fmod = 1.
#include "exec/cpu/cpu_executor.h"
#include "import/onnx_importer.h"
#include "plan/plan.h"
#include "schedule/basic_schedulers.h"

#include "../import/onnx_model_maker.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace opsched;
using opsched::test::ModelMaker;

TEST(CpuMod, FmodByAConstantFollowsTheDividend)
{
    const std::vector<float> x { -3.5F, -1.2F, -0.7F, 0.0F, 0.3F, 1.4F, 2.9F, 5.0F };
    ModelMaker m(13);
    m.input("x", { 1, 8 }).output("y", { 1, 8 }).weight("d", { 1 }, { 0.7F });
    ModelMaker::attr(m.node("Mod", { "x", "d" }, { "y" }, "mod"), "fmod", std::int64_t { 1 });
    const Graph g = importOnnx(m.save(), 1);
    cpu::CpuExecutor ex(g, compileSchedule(g, sequentialSchedule(g)));
    const auto got = ex.run({ x }).front();
    ASSERT_EQ(got.size(), x.size());
    for (std::size_t i = 0; i < x.size(); ++i)
        EXPECT_NEAR(got[i], std::fmod(x[i], 0.7F), 1e-5) << x[i];
}

TEST(CpuMod, IntegerModByAConstantFollowsTheDivisor)
{
    const std::vector<float> ids { -7, -3, -1, 0, 1, 5, 9, 10 };
    ModelMaker m(13);
    m.input("x", { 1, 8 }, onnx::TensorProto::INT64).output("y", { 1, 8 }).ints("three", { 3 });
    m.node("Mod", { "x", "three" }, { "r" }, "mod");
    ModelMaker::attr(m.node("Cast", { "r" }, { "y" }, "to_float"), "to", std::int64_t { onnx::TensorProto::FLOAT });
    const Graph g = importOnnx(m.save(), 1);
    cpu::CpuExecutor ex(g, compileSchedule(g, sequentialSchedule(g)));
    EXPECT_EQ(ex.run({ ids }).front(), (std::vector<float> { 2, 0, 2, 0, 1, 2, 0, 1 }));
}
