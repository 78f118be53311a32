// TimeAxis: the time<->pixel mapping shared by the timeline and the warps chart. Data-driven.
#include "engine/timeline/time_axis.h"

#include <gtest/gtest.h>

#include <cmath>

using opsched::TimeAxis;

TEST(TimeAxis, Mapping)
{
    struct Case {
        const char* name;
        double start, end, width, time, x;
    };
    const Case cases[] = {
        { "origin", 0, 1, 100, 0, 0 },
        { "end", 0, 1, 100, 1, 100 },
        { "middle", 0, 2e-3, 1000, 1e-3, 500 },
        { "offset", 5e-6, 15e-6, 200, 10e-6, 100 },
        { "left of view", 1, 2, 100, 0.5, -50 },
        { "right of view", 1, 2, 100, 3, 200 },
    };
    for (const Case& c : cases) {
        const TimeAxis axis(c.start, c.end, c.width);
        EXPECT_NEAR(axis.toX(c.time), c.x, 1e-9) << c.name;
        EXPECT_NEAR(axis.toTime(c.x), c.time, 1e-15 + 1e-12 * std::abs(c.time)) << c.name;
    }
}

TEST(TimeAxis, ZoomKeepsTheAnchor)
{
    struct Case {
        const char* name;
        double factor, anchorX;
    };
    const Case cases[] = {
        { "in at left", 2, 0 },
        { "in at middle", 4, 400 },
        { "out at right", 0.5, 800 },
        { "in off-centre", 1.25, 123 },
    };
    const TimeAxis axis(0.0, 8e-3, 800.0);
    for (const Case& c : cases) {
        const TimeAxis zoomed = axis.zoomed(c.factor, c.anchorX);
        EXPECT_NEAR(zoomed.toTime(c.anchorX), axis.toTime(c.anchorX), 1e-15) << c.name;
        EXPECT_NEAR(zoomed.duration(), axis.duration() / c.factor, 1e-15) << c.name;
        EXPECT_EQ(zoomed.width(), axis.width()) << c.name;
    }
}

TEST(TimeAxis, PanMovesByPixels)
{
    const TimeAxis axis(0.0, 1e-3, 1000.0);
    const TimeAxis moved = axis.panned(250.0);
    EXPECT_NEAR(moved.start(), 0.25e-3, 1e-15);
    EXPECT_NEAR(moved.duration(), axis.duration(), 1e-15);
    EXPECT_NEAR(moved.panned(-250.0).start(), axis.start(), 1e-15);
}

TEST(TimeAxis, ClampKeepsTheViewInsideTheData)
{
    struct Case {
        const char* name;
        double start, end, expectedStart, expectedEnd;
    };
    const Case cases[] = {
        { "inside", 0.2, 0.4, 0.2, 0.4 },
        { "before", -0.3, 0.2, 0.0, 0.5 },
        { "after", 0.8, 1.3, 0.5, 1.0 },
        { "wider than data", -1.0, 3.0, 0.0, 1.0 },
    };
    for (const Case& c : cases) {
        const TimeAxis clamped = TimeAxis(c.start, c.end, 500.0).clamped(0.0, 1.0);
        EXPECT_NEAR(clamped.start(), c.expectedStart, 1e-12) << c.name;
        EXPECT_NEAR(clamped.end(), c.expectedEnd, 1e-12) << c.name;
    }
}

TEST(TimeAxis, ClampLimitsTheZoom)
{
    const TimeAxis deep = TimeAxis(0.0, 1e-3, 500.0).zoomed(1e12, 10.0).clamped(0.0, 1e-3, 1e-9);
    EXPECT_GE(deep.duration(), 1e-9 * 0.999);
}

TEST(TimeAxis, DegenerateInputsStayUsable)
{
    const TimeAxis a(1.0, 1.0, 0.0); // empty range, zero width
    EXPECT_GT(a.duration(), 0);
    EXPECT_GE(a.width(), 1.0);
    EXPECT_EQ(a.zoomed(-1.0, 0.0), a); // a nonsensical factor changes nothing
}
