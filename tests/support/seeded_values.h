// Seeded inputs and exact comparisons for the tests that import a small model and run it: the
// same values on every machine, and a failure that names the first element that differs.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace opsched::test {

// n floats uniform in [lo, hi) from `seed`.
inline std::vector<float> seededUniform(std::int64_t n, unsigned seed, float lo = -1.0F, float hi = 1.0F)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(lo, hi);
    std::vector<float> v(static_cast<std::size_t>(n));
    for (auto& x : v)
        x = u(rng);
    return v;
}

// Element-wise equality (gathers and scatters move values; they must not change one bit).
inline void expectSameValues(const std::vector<float>& got, const std::vector<float>& want)
{
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i)
        EXPECT_EQ(got[i], want[i]) << "element " << i;
}

} // namespace opsched::test
