// RowLayout: heights, collapsing a stream's kernel rows, lookups by pixel, and 500 streams.
#include "engine/timeline/row_layout.h"

#include <gtest/gtest.h>

using namespace opsched;

namespace {

using K = TimelineRowKind;

std::vector<K> streams(std::size_t n, std::size_t kernelRowsEach)
{
    std::vector<K> kinds;
    for (std::size_t s = 0; s < n; ++s) {
        kinds.push_back(K::Ops);
        for (std::size_t k = 0; k < kernelRowsEach; ++k)
            kinds.push_back(K::Kernels);
    }
    return kinds;
}

} // namespace

TEST(RowLayout, Heights)
{
    struct Case {
        const char* name;
        int streamCount, kernelRows;
        bool collapseAll;
        int contentHeight;
    };
    const Case cases[] = {
        { "1 stream, kernels", 1, 1, false, 22 + 15 },
        { "4 streams, kernels", 4, 1, false, 4 * 37 },
        { "4 streams collapsed", 4, 1, true, 4 * 22 },
        { "36 streams, ops only", 36, 0, false, 36 * 22 },
        { "36 streams collapsed", 36, 1, true, 36 * 22 },
        { "2 kernel rows each", 3, 2, false, 3 * (22 + 30) },
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.name);
        const auto kinds = streams(static_cast<std::size_t>(c.streamCount), static_cast<std::size_t>(c.kernelRows));
        const RowLayout layout(kinds, std::vector<bool>(kinds.size(), c.collapseAll));
        EXPECT_EQ(layout.rowCount(), kinds.size());
        EXPECT_EQ(layout.contentHeight(), c.contentHeight);
        for (std::size_t r = 0; r < kinds.size(); ++r) {
            if (kinds[r] == K::Ops) {
                EXPECT_EQ(layout.height(r), 22);
                EXPECT_EQ(layout.streamRow(r), static_cast<int>(r));
                EXPECT_EQ(layout.hasChildren(r), c.kernelRows > 0);
            } else {
                EXPECT_EQ(layout.height(r), c.collapseAll ? 0 : 15);
            }
            if (r > 0) {
                EXPECT_EQ(layout.top(r), layout.bottom(r - 1));
            }
        }
    }
}

TEST(RowLayout, RowAtEveryPixel)
{
    const auto kinds = streams(5, 1);
    std::vector<bool> collapsed(kinds.size(), false);
    collapsed[2] = true; // stream 1
    const RowLayout layout(kinds, collapsed);
    for (int y = -3; y < layout.contentHeight() + 3; ++y) {
        const int r = layout.rowAt(y);
        if (y < 0 || y >= layout.contentHeight()) {
            EXPECT_EQ(r, -1);
            continue;
        }
        EXPECT_TRUE(r >= 0);
        const auto row = static_cast<std::size_t>(r);
        EXPECT_TRUE(layout.shown(row));
        EXPECT_TRUE(layout.top(row) <= y && y < layout.bottom(row)) << y;
    }
    EXPECT_TRUE(!layout.shown(3)); // stream 1's kernel row
}

TEST(RowLayout, CollapseHidesOnlyItsStream)
{
    const auto kinds = streams(3, 2);
    std::vector<bool> collapsed(kinds.size(), false);
    collapsed[3] = true; // the second stream's op row
    const RowLayout layout(kinds, collapsed);
    EXPECT_TRUE(layout.isCollapsed(3));
    EXPECT_TRUE(!layout.isCollapsed(0));
    EXPECT_EQ(layout.height(1), 15);
    EXPECT_EQ(layout.height(4), 0);
    EXPECT_EQ(layout.height(5), 0);
    EXPECT_EQ(layout.height(7), 15);
    EXPECT_EQ(layout.streamRow(5), 3);
    EXPECT_EQ(layout.contentHeight(), 3 * 22 + 4 * 15);
    // Collapse flags on kernel rows mean nothing.
    std::vector<bool> onKernelRow(kinds.size(), false);
    onKernelRow[1] = true;
    EXPECT_EQ(RowLayout(kinds, onKernelRow).contentHeight(), 3 * 22 + 6 * 15);
}

TEST(RowLayout, RowsInAWindow)
{
    const auto kinds = streams(10, 1);
    const RowLayout layout(kinds, {});
    // Pixels 30..80: rows 0 (0-22) no; 1 (22-37) yes; ... up to the row containing 79.
    const auto [first, last] = layout.rowsIn(30, 80);
    EXPECT_EQ(first, std::size_t(1));
    EXPECT_TRUE(layout.top(last - 1) < 80 && (last == layout.rowCount() || layout.top(last) >= 80));
    const auto [f2, l2] = layout.rowsIn(-100, 0);
    EXPECT_EQ(l2, f2);
    const auto [f3, l3] = layout.rowsIn(0, 100000);
    EXPECT_EQ(f3, std::size_t(0));
    EXPECT_EQ(l3, layout.rowCount());
}

TEST(RowLayout, FiveHundredStreams)
{
    const auto kinds = streams(500, 1);
    RowLayout layout(kinds, {});
    EXPECT_EQ(layout.contentHeight(), 500 * 37);
    // The last stream is where arithmetic says, and findable by pixel.
    EXPECT_EQ(layout.top(998), 499 * 37);
    EXPECT_EQ(layout.rowAt(499 * 37 + 10), 998);
    EXPECT_EQ(layout.rowAt(499 * 37 + 25), 999);
    const auto [first, last] = layout.rowsIn(499 * 37 - 1, 499 * 37 + 400);
    EXPECT_EQ(first, std::size_t(997));
    EXPECT_EQ(last, std::size_t(1000));
}

TEST(RowLayout, Empty)
{
    const RowLayout layout({}, {});
    EXPECT_EQ(layout.rowCount(), std::size_t(0));
    EXPECT_EQ(layout.contentHeight(), 0);
    EXPECT_EQ(layout.rowAt(0), -1);
    const auto [first, last] = layout.rowsIn(0, 100);
    EXPECT_EQ(first, last);
    // Kernel rows before any op row belong to no stream and always show.
    const RowLayout orphan({ K::Kernels, K::Ops, K::Kernels }, { false, true, false });
    EXPECT_EQ(orphan.streamRow(0), -1);
    EXPECT_EQ(orphan.height(0), 15);
    EXPECT_EQ(orphan.height(2), 0);
}
