// TimelineRows: visible range by binary search and folding of sub-pixel spans.
#include "engine/timeline/timeline_rows.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace opsched;

TEST(TimelineRows, VisibleRange)
{
    struct Case {
        const char* name;
        double t0, t1;
        std::size_t first, last;
    };
    // Spans: [0,1) [2,3) [4,5) [6,7) [8,9)
    const Case cases[] = {
        { "all", -1, 10, 0, 5 },
        { "middle", 2.5, 4.5, 1, 3 },
        { "gap only", 1.2, 1.8, 1, 1 },
        { "touching ends", 1, 2, 0, 2 },
        { "after", 9.5, 12, 5, 5 },
        { "before", -3, -1, 0, 0 },
    };
    TimelineRows rows;
    for (int i = 4; i >= 0; --i) // added out of order: finish() sorts
        rows.addSpan(0, { 2.0 * i, 2.0 * i + 1, static_cast<std::uint32_t>(i), 0 });
    rows.finish();
    for (const Case& c : cases) {
        const auto [f, l] = rows.visible(0, c.t0, c.t1);
        EXPECT_EQ(f, c.first) << c.name;
        EXPECT_EQ(l, c.last) << c.name;
    }
}

TEST(TimelineRows, LongSpanCoveringShortOnesIsFound)
{
    TimelineRows rows;
    rows.addSpan(0, { 0.0, 10.0, 0, 0 });
    rows.addSpan(0, { 1.0, 2.0, 1, 0 });
    rows.finish();
    const auto [f, l] = rows.visible(0, 5.0, 6.0);
    EXPECT_EQ(f, 0u);
    EXPECT_EQ(l, 2u);
}

TEST(TimelineRows, TinySpansFold)
{
    TimelineRows rows;
    // 1000 spans of 1 us back to back, then one long span.
    for (int i = 0; i < 1000; ++i)
        rows.addSpan(0, { i * 1e-6, (i + 1) * 1e-6, static_cast<std::uint32_t>(i), 0 });
    rows.addSpan(0, { 2e-3, 3e-3, 1000, 0 });
    rows.finish();
    const TimeAxis axis(0.0, 3e-3, 300.0); // 10 us per pixel: every short span is sub-pixel
    const auto items = rows.layout(0, axis, 3.0);
    ASSERT_EQ(items.size(), 2u);
    EXPECT_EQ(items.front().count, 1000u);
    EXPECT_EQ(items.back().count, 1u);
    EXPECT_NEAR(items.back().x1 - items.back().x0, 100.0, 1e-9);

    // Zoomed in, the same spans are drawn one by one.
    const TimeAxis zoomed(0.0, 20e-6, 400.0);
    const auto close = rows.layout(0, zoomed, 3.0);
    EXPECT_EQ(close.size(), 21u); // [0,20us] touches spans 0..20
    for (const auto& item : close)
        EXPECT_EQ(item.count, 1u);
}

TEST(TimelineRows, SpanAtFindsTheNarrowest)
{
    TimelineRows rows;
    rows.addSpan(0, { 0.0, 10.0, 7, 0 });
    rows.addSpan(0, { 4.0, 4.5, 8, 0 });
    rows.finish();
    const TimeAxis axis(0.0, 10.0, 100.0);
    EXPECT_EQ(rows.spanAt(0, axis, 42.0)->id, 8U);
    EXPECT_EQ(rows.spanAt(0, axis, 90.0)->id, 7U);
    EXPECT_EQ(rows.spanAt(1, axis, 10.0), nullptr);
}

TEST(TimelineRows, Extents)
{
    TimelineRows rows;
    rows.addSpan(2, { 3.0, 4.0, 0, 0 });
    rows.addSpan(0, { 1.0, 2.0, 1, 0 });
    rows.finish();
    EXPECT_EQ(rows.rowCount(), 3u);
    EXPECT_EQ(rows.firstStart(), 1.0);
    EXPECT_EQ(rows.lastEnd(), 4.0);
    EXPECT_EQ(rows.spanCount(), 2u);
}
