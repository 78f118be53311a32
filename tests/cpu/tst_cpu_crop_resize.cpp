// Resize's tf_crop_and_resize through the importer and the CPU executor, against the ONNX
// specification's formula written here: a crop given by roi (fractions of the input, start and end
// per axis, also beyond the input), resampled to sizes or by scales (the crop's span times the
// scale), nearest and linear, positions outside the input taking extrapolation_value; the opset-18
// axes form; and a roi that does not fit refused by name.
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

using Dims = std::vector<std::int64_t>;

struct Crop {
    std::string mode; // nearest or linear
    Dims inDims, outDims;
    std::vector<float> start, end; // per axis
    float extrapolation = 0.0F;
};

// Where output x of an axis reads, in input coordinates (the specification's formula).
double source(double x, std::int64_t in, std::int64_t out, double start, double end)
{
    const double last = static_cast<double>(in - 1);
    return out > 1 ? start * last + x * (end - start) * last / static_cast<double>(out - 1)
                   : 0.5 * (start + end) * last;
}

// Separable: per axis the (index, weight) pairs, then their products summed; outside on any axis
// gives the extrapolation value.
std::vector<float> reference(const Crop& c, const std::vector<float>& x)
{
    const std::size_t rank = c.inDims.size();
    std::int64_t total = 1;
    for (auto d : c.outDims)
        total *= d;
    std::vector<float> out;
    for (std::int64_t flat = 0; flat < total; ++flat) {
        std::vector<std::vector<std::pair<std::int64_t, double>>> taps(rank);
        bool outside = false;
        std::int64_t rest = flat;
        for (std::size_t d = rank; d-- > 0;) {
            const std::int64_t o = rest % c.outDims[d];
            rest /= c.outDims[d];
            const std::int64_t in = c.inDims[d];
            if (in == c.outDims[d] && c.start[d] == 0.0F && c.end[d] == 1.0F) {
                taps[d] = { { o, 1.0 } };
                continue;
            }
            const double s = source(static_cast<double>(o), in, c.outDims[d], c.start[d], c.end[d]);
            if (s < 0.0 || s > static_cast<double>(in - 1)) {
                outside = true;
                continue;
            }
            if (c.mode == "nearest") { // round_prefer_floor
                const double f = std::floor(s);
                taps[d] = { { static_cast<std::int64_t>(s - f <= 0.5 ? f : f + 1), 1.0 } };
            } else {
                const auto lo = static_cast<std::int64_t>(std::floor(s));
                const std::int64_t hi = std::min(lo + 1, in - 1);
                const double t = s - static_cast<double>(lo);
                taps[d] = { { lo, 1.0 - t }, { hi, t } };
            }
        }
        if (outside) {
            out.push_back(c.extrapolation);
            continue;
        }
        double sum = 0.0;
        std::vector<std::size_t> k(rank, 0);
        for (bool more = true; more;) {
            std::int64_t at = 0;
            double w = 1.0;
            for (std::size_t d = 0; d < rank; ++d) {
                at = at * c.inDims[d] + taps[d][k[d]].first;
                w *= taps[d][k[d]].second;
            }
            sum += w * x[static_cast<std::size_t>(at)];
            more = false;
            for (std::size_t d = rank; d-- > 0;)
                if (++k[d] < taps[d].size()) {
                    more = true;
                    break;
                } else {
                    k[d] = 0;
                }
        }
        out.push_back(static_cast<float>(sum));
    }
    return out;
}

// The model: Resize(x, roi, scales or sizes) with tf_crop_and_resize; `axes` (opset 18) lists
// the axes roi and sizes cover.
std::vector<float> run(
    const Crop& c, const std::vector<float>& x, const std::vector<float>* scales, const Dims& axes = {}, int opset = 13)
{
    ModelMaker m(opset);
    m.input("x", c.inDims).output("y", c.outDims);
    std::vector<float> roi;
    const std::size_t listed = axes.empty() ? c.inDims.size() : axes.size();
    for (int half = 0; half < 2; ++half)
        for (std::size_t k = 0; k < listed; ++k) {
            const auto d = axes.empty() ? k : static_cast<std::size_t>(axes[k]);
            roi.push_back(half == 0 ? c.start[d] : c.end[d]);
        }
    m.weight("roi", { static_cast<std::int64_t>(roi.size()) }, roi);
    if (scales) {
        m.weight("scales", { static_cast<std::int64_t>(scales->size()) }, *scales);
    } else {
        Dims sizes;
        for (std::size_t k = 0; k < listed; ++k)
            sizes.push_back(c.outDims[axes.empty() ? k : static_cast<std::size_t>(axes[k])]);
        m.ints("sizes", sizes);
    }
    auto& node = m.node("Resize", { "x", "roi", scales ? "scales" : "", scales ? "" : "sizes" }, { "y" }, "crop");
    ModelMaker::attr(node, "mode", c.mode);
    ModelMaker::attr(node, "coordinate_transformation_mode", std::string("tf_crop_and_resize"));
    ModelMaker::attr(node, "extrapolation_value", c.extrapolation);
    if (!axes.empty())
        ModelMaker::attr(node, "axes", axes);
    const Graph g = importOnnx(m.save("crop_resize"));
    EXPECT_EQ(g.tensor(g.outputs()[0]).shape, Shape(c.outDims));
    cpu::CpuExecutor ex(g, compileSchedule(g, sequentialSchedule(g)));
    auto out = ex.run({ x });
    return out.at(0);
}

void expectNear(const std::vector<float>& got, const std::vector<float>& want)
{
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i)
        EXPECT_NEAR(got[i], want[i], 1e-5 + 1e-5 * std::abs(want[i])) << "element " << i;
}

} // namespace

TEST(CpuCropResize, CropsBySizesMatchTheSpecification)
{
    if (!cpu::cpuBackendAvailable())
        GTEST_SKIP() << "skipped: no CPU backend (built without oneDNN)";
    const Dims in { 1, 2, 5, 6 };
    const auto x = seededUniform(60, 1);
    for (const char* mode : { "linear", "nearest" })
        for (float extrapolation : { 0.0F, 10.0F }) {
            SCOPED_TRACE(std::string(mode) + ", extrapolation " + std::to_string(extrapolation));
            // Inside the input; past its right edge; one output row (the crop's middle).
            const std::vector<Crop> crops {
                { mode, in, { 1, 2, 4, 3 }, { 0, 0, 0.2F, 0.1F }, { 1, 1, 0.9F, 0.7F }, extrapolation },
                { mode, in, { 1, 2, 3, 7 }, { 0, 0, -0.3F, -0.1F }, { 1, 1, 0.6F, 1.25F }, extrapolation },
                { mode, in, { 1, 2, 1, 4 }, { 0, 0, 0.4F, 0.0F }, { 1, 1, 0.6F, 1.0F }, extrapolation },
            };
            for (const auto& c : crops)
                expectNear(run(c, x, nullptr), reference(c, x));
        }
}

TEST(CpuCropResize, CropsByScalesAndOverListedAxes)
{
    if (!cpu::cpuBackendAvailable())
        GTEST_SKIP() << "skipped: no CPU backend (built without oneDNN)";
    const Dims in { 1, 3, 6, 8 };
    const auto x = seededUniform(144, 2);
    // Scales: each axis' output is floor(in * (end - start) * scale): 6 * 0.5 * 2 = 6, 8 * 1.1 * 0.75 = 6.6 -> 6.
    const Crop byScales { "linear", in, { 1, 3, 6, 6 }, { 0, 0, 0.25F, -0.05F }, { 1, 1, 0.75F, 1.05F }, -2.0F };
    const std::vector<float> scales { 1, 1, 2.0F, 0.75F };
    expectNear(run(byScales, x, &scales), reference(byScales, x));
    // Opset 18's axes: roi and sizes for the height and width only.
    const Crop listed { "linear", in, { 1, 3, 4, 5 }, { 0, 0, 0.1F, 0.3F }, { 1, 1, 0.8F, 0.9F }, 0.0F };
    expectNear(run(listed, x, nullptr, { 2, 3 }, 18), reference(listed, x));
}

TEST(CpuCropResize, ARoiOfTheWrongLengthIsRefusedByName)
{
    ModelMaker m(13);
    m.input("x", { 1, 1, 4, 4 }).output("y").weight("roi", { 4 }, { 0, 0, 1, 1 }).ints("sizes", { 1, 1, 2, 2 });
    auto& node = m.node("Resize", { "x", "roi", "", "sizes" }, { "y" }, "crop");
    ModelMaker::attr(node, "coordinate_transformation_mode", std::string("tf_crop_and_resize"));
    try {
        (void)importOnnx(m.save("crop_bad_roi"));
        ADD_FAILURE() << "imported a roi of 4 values for 4 axes";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("roi of 8 values"), std::string::npos) << e.what();
    }
}
