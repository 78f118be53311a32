#include "exec/output_check.h"

#include "graph/shape.h"
#include "util/error.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace opsched {

OutputComparison compareOutput(const std::string& name, const std::vector<float>& actual,
    const std::vector<std::int64_t>& actualShape, const std::vector<float>& expected,
    const std::vector<std::int64_t>& expectedShape, const Tolerance& tolerance)
{
    if (actualShape != expectedShape)
        throw Error("output '" + name + "' has shape " + Shape(actualShape).toString() + ", the reference "
            + Shape(expectedShape).toString());
    const auto count = static_cast<std::size_t>(Shape(expectedShape).elements());
    if (actual.size() != count || expected.size() != count)
        throw Error("output '" + name + "': " + std::to_string(actual.size()) + " values against "
            + std::to_string(expected.size()) + " reference values for shape " + Shape(expectedShape).toString());

    OutputComparison c;
    c.name = name;
    c.shape = expectedShape;
    double maxExpected = 0.0;
    for (float e : expected)
        if (!std::isnan(e))
            maxExpected = std::max(maxExpected, std::fabs(static_cast<double>(e)));
    const double atol = tolerance.atol + tolerance.atolScale * maxExpected;
    double worstExcess = -std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < count; ++i) {
        const double a = actual[i], e = expected[i];
        const double diff = std::fabs(a - e);
        const double allowed = atol + tolerance.rtol * std::fabs(e);
        // Written so that NaN (in either) fails: comparisons with NaN are false.
        const bool ok = diff <= allowed;
        if (!ok)
            ++c.mismatches;
        const double excess = std::isnan(diff) ? std::numeric_limits<double>::infinity() : diff - allowed;
        if (excess > worstExcess) {
            worstExcess = excess;
            c.worstIndex = static_cast<std::int64_t>(i);
        }
        if (std::isnan(diff)) {
            c.maxAbsError = c.maxRelError = std::numeric_limits<double>::quiet_NaN();
            continue;
        }
        if (!std::isnan(c.maxAbsError)) {
            c.maxAbsError = std::max(c.maxAbsError, diff);
            if (e != 0.0)
                c.maxRelError = std::max(c.maxRelError, diff / std::fabs(e));
        }
    }
    if (std::isnan(c.maxAbsError))
        c.scaledError = std::numeric_limits<double>::quiet_NaN();
    else
        c.scaledError = maxExpected > 0.0 ? c.maxAbsError / maxExpected : c.maxAbsError;
    if (c.worstIndex >= 0) {
        c.worstActual = actual[static_cast<std::size_t>(c.worstIndex)];
        c.worstExpected = expected[static_cast<std::size_t>(c.worstIndex)];
    }
    c.referenceScale = maxExpected;
    c.passed = c.mismatches == 0;
    return c;
}

std::string describeWorst(const OutputComparison& c)
{
    if (c.worstIndex < 0)
        return c.name + " (empty)";
    // Row-major multi-index, last dimension fastest.
    std::vector<std::int64_t> index(c.shape.size());
    std::int64_t rest = c.worstIndex;
    for (std::size_t d = c.shape.size(); d-- > 0;) {
        const std::int64_t extent = std::max<std::int64_t>(c.shape[d], 1);
        index[d] = rest % extent;
        rest /= extent;
    }
    std::string where;
    for (std::size_t d = 0; d < index.size(); ++d)
        where += (d ? ", " : "") + std::to_string(index[d]);
    const double error = std::fabs(c.worstActual - c.worstExpected);
    char text[160];
    std::snprintf(text, sizeof text, " = %.7g, reference %.7g (|error| %.3e, %.3g x max|ref| %.3e)", c.worstActual,
        c.worstExpected, error, c.referenceScale > 0 ? error / c.referenceScale : error, c.referenceScale);
    return c.name + "[" + where + "]" + text;
}

} // namespace opsched
