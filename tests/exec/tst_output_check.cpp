// run --check's comparison: numpy.allclose semantics, errors reported per output, NaN never
// passes, shape and count mismatches are errors rather than failed comparisons.
#include "exec/output_check.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace opsched;

TEST(OutputCheck, IdenticalOutputsPassWithZeroError)
{
    const std::vector<float> v { 1.0F, -2.0F, 0.0F, 3.5F };
    const auto c = compareOutput("y", v, { 1, 4 }, v, { 1, 4 }, Tolerance {});
    EXPECT_TRUE(c.passed);
    EXPECT_EQ(c.mismatches, 0);
    EXPECT_EQ(c.maxAbsError, 0.0);
    EXPECT_EQ(c.maxRelError, 0.0);
    EXPECT_EQ(c.name, "y");
    EXPECT_EQ(c.shape, (std::vector<std::int64_t> { 1, 4 }));
}

TEST(OutputCheck, ToleranceIsAtolPlusRtolTimesReference)
{
    const Tolerance t { 1e-2, 1e-3 };
    // Allowed at 10: 1e-3 + 1e-1 = 0.101. 10.1 is inside, 10.2 is not.
    EXPECT_TRUE(compareOutput("y", { 10.1F }, { 1 }, { 10.0F }, { 1 }, t).passed);
    const auto c = compareOutput("y", { 10.2F }, { 1 }, { 10.0F }, { 1 }, t);
    EXPECT_FALSE(c.passed);
    EXPECT_EQ(c.mismatches, 1);
    EXPECT_NEAR(c.maxAbsError, 0.2, 1e-5);
    EXPECT_NEAR(c.maxRelError, 0.02, 1e-6);
    // Near zero only atol counts.
    EXPECT_TRUE(compareOutput("y", { 0.0009F }, { 1 }, { 0.0F }, { 1 }, t).passed);
    EXPECT_FALSE(compareOutput("y", { 0.002F }, { 1 }, { 0.0F }, { 1 }, t).passed);
}

TEST(OutputCheck, AtolScaleSizesTheAbsoluteTermToTheOutput)
{
    // A logit near zero among large ones: its error is relative to the output's scale (100).
    const std::vector<float> expected { 100.0F, 0.001F, -50.0F };
    const std::vector<float> actual { 100.0F, 0.004F, -50.0F };
    Tolerance t { 1e-3, 0.0 };
    EXPECT_FALSE(compareOutput("y", actual, { 3 }, expected, { 3 }, t).passed);
    t.atolScale = 1e-4; // allowed: 1e-4 * 100 + 1e-3 * 0.001 = 0.010001
    const auto c = compareOutput("y", actual, { 3 }, expected, { 3 }, t);
    EXPECT_TRUE(c.passed);
    EXPECT_NEAR(c.maxRelError, 3.0, 1e-3); // still reported: the element is 4x its reference
    EXPECT_FALSE(compareOutput("y", { 100.0F, 0.02F, -50.0F }, { 3 }, expected, { 3 }, t).passed);
}

TEST(OutputCheck, ReportsWorstElementAndScaledError)
{
    const std::vector<float> expected { 100.0F, 1.0F, -50.0F };
    const std::vector<float> actual { 100.0F, 1.5F, -50.0F };
    const auto c = compareOutput("logits", actual, { 3 }, expected, { 3 }, Tolerance {});
    EXPECT_FALSE(c.passed);
    EXPECT_EQ(c.worstIndex, 1);
    EXPECT_NEAR(c.maxRelError, 0.5, 1e-6);
    EXPECT_NEAR(c.scaledError, 0.5 / 100.0, 1e-6); // against the largest reference magnitude
}

TEST(OutputCheck, DescribesTheWorstElementByItsIndexInTheShape)
{
    std::vector<float> expected(6, 1.0F);
    expected[2] = -4.0F;
    std::vector<float> actual = expected;
    actual[5] = 1.5F; // [1, 2] in a 2x3 tensor
    const auto c = compareOutput("logits", actual, { 2, 3 }, expected, { 2, 3 }, Tolerance {});
    EXPECT_EQ(c.worstActual, 1.5);
    EXPECT_EQ(c.worstExpected, 1.0);
    EXPECT_EQ(c.referenceScale, 4.0);
    EXPECT_EQ(describeWorst(c), "logits[1, 2] = 1.5, reference 1 (|error| 5.000e-01, 0.125 x max|ref| 4.000e+00)");
}

TEST(OutputCheck, NanNeverPasses)
{
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const auto c = compareOutput("y", { 1.0F, nan }, { 2 }, { 1.0F, 2.0F }, { 2 }, Tolerance { 1.0, 1.0 });
    EXPECT_FALSE(c.passed);
    EXPECT_EQ(c.mismatches, 1);
    EXPECT_TRUE(std::isnan(c.maxAbsError));
    EXPECT_EQ(c.worstIndex, 1);
}

TEST(OutputCheck, ShapeMismatchIsAnErrorNamingBothShapes)
{
    try {
        compareOutput("out", std::vector<float>(10), { 1, 10 }, std::vector<float>(10), { 10, 1 }, Tolerance {});
        FAIL() << "a shape mismatch must throw";
    } catch (const Error& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("'out'"), std::string::npos) << msg;
        EXPECT_NE(msg.find("1x10"), std::string::npos) << msg;
        EXPECT_NE(msg.find("10x1"), std::string::npos) << msg;
    }
}

TEST(OutputCheck, ValueCountMismatchIsAnError)
{
    EXPECT_THROW(compareOutput("y", std::vector<float>(3), { 4 }, std::vector<float>(4), { 4 }, Tolerance {}), Error);
}
