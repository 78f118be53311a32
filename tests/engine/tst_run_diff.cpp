// diffRuns: ops matched by id across two timelines, start and duration deltas, stream changes, and
// ops present in one run only (the Diff view's model: tests/views/tst_rundiff.cpp).
#include "engine/timeline/run_diff.h"
#include "support/timeline_samples.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace opsched;

namespace {

using test::opTimeline;
using test::us;

} // namespace

TEST(RunDiff, Diffs)
{
    struct Case {
        const char* name;
        double startA, endA;
        std::int64_t streamA;
        double startB, endB;
        std::int64_t streamB;
        double startDelta, durationDelta;
        bool moved;
    };
    const Case cases[] = {
        { "identical", 0, 10, 0, 0, 10, 0, 0, 0, false },
        { "later in B", 0, 10, 0, 5, 15, 0, 5, 0, false },
        { "earlier and longer in B", 20, 30, 1, 10, 25, 1, -10, 5, false },
        { "other stream", 0, 10, 0, 0, 8, 3, 0, -2, true },
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        // Op 0 varies; op 1 is the same in both, a fixed reference.
        const auto a = opTimeline({ { 0, c.streamA, c.startA, c.endA }, { 1, 0, 40, 50 } }, { 0, 1, 3 });
        const auto b = opTimeline({ { 0, c.streamB, c.startB, c.endB }, { 1, 0, 40, 50 } }, { 0, 1, 3 });
        const RunDiff d = diffRuns(*a, *b);
        ASSERT_EQ(d.ops.size(), 2u);
        const OpDiff& op = d.ops[0];
        EXPECT_EQ(op.op, 0U);
        ASSERT_TRUE(op.inBoth());
        EXPECT_EQ(op.a->stream, c.streamA);
        EXPECT_EQ(op.b->stream, c.streamB);
        EXPECT_NEAR(op.startDelta(), c.startDelta * us, 1e-12);
        EXPECT_NEAR(op.durationDelta(), c.durationDelta * us, 1e-12);
        EXPECT_EQ(op.streamChanged(), c.moved);
        EXPECT_EQ(d.streamChanges, c.moved ? 1u : 0u);
        EXPECT_FALSE(d.ops[1].streamChanged());
        EXPECT_EQ(d.ops[1].startDelta(), 0.0);
        EXPECT_EQ(d.onlyInA + d.onlyInB, 0u);
        EXPECT_EQ(d.latencyA, 50 * us);
        EXPECT_EQ(d.ops[0].name, "op 0");
    }
}

TEST(RunDiff, PlacementsUseStreamIds)
{
    // Streams 4 and 9: the placement says 9, not "the second op row".
    const auto a = opTimeline({ { 0, 4, 0, 1 }, { 1, 9, 0, 1 } }, { 4, 9 });
    const auto p = opPlacements(*a);
    EXPECT_EQ(p.size(), std::size_t(2));
    EXPECT_EQ(p[1]->stream, std::int64_t(9));
    // Without rowStreams (an older source), the op row's position.
    TimelineData bare;
    bare.rows.addSpan(0, { 0, 1, 0, 0 });
    bare.rows.addSpan(1, { 0, 1, 1, 0 });
    bare.rows.finish();
    const auto q = opPlacements(bare);
    EXPECT_EQ(q[1]->stream, std::int64_t(1));
}

TEST(RunDiff, MergedLaunchesAndRepeats)
{
    // Op 2 only in A, op 3 only in B; ops 0 and 1 merged into one launch in B share its span.
    const auto a = opTimeline({ { 0, 0, 0, 5 }, { 1, 1, 0, 6 }, { 2, 0, 6, 9 } }, { 0, 1 });
    const auto b = opTimeline({ { 0, 0, 0, 7 }, { 1, 0, 0, 7 }, { 3, 1, 7, 9 } }, { 0, 1 });
    RunDiff d = diffRuns(*a, *b, [](std::uint32_t id) { return "n" + std::to_string(id); });
    EXPECT_EQ(d.ops.size(), std::size_t(4));
    EXPECT_EQ(d.onlyInA, std::size_t(1));
    EXPECT_EQ(d.onlyInB, std::size_t(1));
    EXPECT_EQ(d.streamChanges, std::size_t(1)); // op 1: stream 1 -> 0
    EXPECT_FALSE(d.ops[2].b);
    EXPECT_FALSE(d.ops[3].a);
    EXPECT_EQ(d.ops[3].name, std::string("n3"));
    EXPECT_EQ(d.ops[2].startDelta(), 0.0); // not in both: no delta
    // Empty timelines diff to nothing.
    TimelineData empty;
    empty.rows.finish();
    EXPECT_TRUE(diffRuns(empty, empty).ops.empty());
}
