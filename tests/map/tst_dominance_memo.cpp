// DominanceMemo: a state dominates a query on the same set when none of its values is later and
// its potential is strictly lower (beyond rounding); any state stored on the set may.
#include "map/solvers/dominance_memo.h"

#include <gtest/gtest.h>

#include <vector>

namespace opsched::map {
namespace {

struct Case {
    const char* name;
    std::uint64_t set;
    std::vector<double> query;
    double potential;
    bool dominated;
};

TEST(DominanceMemo, DominatesOnlyWithNoLaterValuesAndALowerPotential)
{
    DominanceMemo memo(1000);
    memo.store(0b1011, std::vector<double> { 1.0, 2.0, 3.0 }, 10.0);
    const std::vector<Case> cases {
        { "every value later, potential higher", 0b1011, { 1.5, 2.5, 3.5 }, 11.0, true },
        { "equal values, potential higher", 0b1011, { 1.0, 2.0, 3.0 }, 10.5, true },
        { "equal potential", 0b1011, { 9.0, 9.0, 9.0 }, 10.0, false },
        { "potential higher by rounding only", 0b1011, { 9.0, 9.0, 9.0 }, 10.0 * (1 + 1e-13), false },
        { "lower potential", 0b1011, { 9.0, 9.0, 9.0 }, 9.0, false },
        { "one value earlier", 0b1011, { 1.5, 1.9, 3.5 }, 11.0, false },
        { "last value earlier", 0b1011, { 1.5, 2.5, 2.9 }, 11.0, false },
        { "another set", 0b1111, { 9.0, 9.0, 9.0 }, 11.0, false },
    };
    for (const Case& c : cases)
        EXPECT_EQ(memo.dominated(c.set, c.query, c.potential), c.dominated) << c.name;
}

TEST(DominanceMemo, AnyStoredStateOnTheSetMayDominate)
{
    DominanceMemo memo(1000);
    memo.store(7, std::vector<double> { 2.0, 2.0 }, 5.0);
    memo.store(7, std::vector<double> { 3.0, 1.0 }, 6.0); // neither dominates the other
    memo.store(7, std::vector<double> { 0.0, 5.0 }, 8.0);
    EXPECT_EQ(memo.states(), 3U);
    EXPECT_EQ(memo.values(), 9U);
    EXPECT_TRUE(memo.dominated(7, std::vector<double> { 2.0, 2.0 }, 5.5)); // the first
    EXPECT_TRUE(memo.dominated(7, std::vector<double> { 3.0, 1.5 }, 6.5)); // the second
    EXPECT_FALSE(memo.dominated(7, std::vector<double> { 3.0, 1.5 }, 5.5)); // only the first is lower
    EXPECT_TRUE(memo.dominated(7, std::vector<double> { 0.1, 5.0 }, 9.0)); // the third
    EXPECT_FALSE(memo.dominated(7, std::vector<double> { 0.1, 5.0 }, 7.0));
    EXPECT_FALSE(memo.dominated(7, std::vector<double> { 1.0, 0.5 }, 100.0)); // no state that early
}

TEST(DominanceMemo, StopsStoringAtItsCapButStillAnswers)
{
    DominanceMemo memo(7); // two states of three values (potential included: 4 doubles each) do not fit
    memo.store(1, std::vector<double> { 1.0, 1.0, 1.0 }, 1.0);
    memo.store(2, std::vector<double> { 1.0, 1.0, 1.0 }, 1.0);
    EXPECT_EQ(memo.states(), 1U);
    EXPECT_TRUE(memo.dominated(1, std::vector<double> { 1.0, 1.0, 1.0 }, 2.0));
    EXPECT_FALSE(memo.dominated(2, std::vector<double> { 1.0, 1.0, 1.0 }, 2.0));
}

} // namespace
} // namespace opsched::map
