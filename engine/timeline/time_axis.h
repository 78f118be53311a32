// The mapping between time and pixels that the timeline and the warps chart share. A value type:
// zooming and panning return a new axis, so views can keep, compare and animate them.
#pragma once

namespace opsched {

class TimeAxis {
public:
    TimeAxis() = default;
    // Visible time range [start, end) in seconds drawn across `widthPx` pixels.
    TimeAxis(double start, double end, double widthPx);

    double start() const { return start_; }
    double end() const { return end_; }
    double duration() const { return end_ - start_; }
    double width() const { return width_; }
    double secondsPerPixel() const { return duration() / width_; }

    double toX(double t) const { return (t - start_) / duration() * width_; }
    double toTime(double x) const { return start_ + x / width_ * duration(); }

    // Zoom by `factor` (> 1 magnifies) keeping the time under pixel `anchorX` where it is.
    TimeAxis zoomed(double factor, double anchorX) const;
    // Moves the view by `dx` pixels (positive: later times come into view).
    TimeAxis panned(double dx) const;
    // The same range on a widget of another width.
    TimeAxis resized(double widthPx) const;
    // Keeps the range inside [lo, hi] (shifting, then shrinking if it is wider), and never narrower
    // than `minDuration` (a nanosecond by default: beyond that nothing more can be seen).
    TimeAxis clamped(double lo, double hi, double minDuration = 1e-9) const;

    bool overlaps(double t0, double t1) const { return t1 >= start_ && t0 <= end_; }

    friend bool operator==(const TimeAxis&, const TimeAxis&) = default;

private:
    double start_ = 0.0;
    double end_ = 1.0;
    double width_ = 1.0;
};

} // namespace opsched
