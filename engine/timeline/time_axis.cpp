#include "engine/timeline/time_axis.h"

#include <algorithm>

namespace opsched {

TimeAxis::TimeAxis(double start, double end, double widthPx)
    : start_(start)
    , end_(end > start ? end : start + 1e-9)
    , width_(widthPx > 1.0 ? widthPx : 1.0)
{
}

TimeAxis TimeAxis::zoomed(double factor, double anchorX) const
{
    if (factor <= 0.0)
        return *this;
    const double anchor = toTime(anchorX);
    const double d = duration() / factor;
    const double left = anchorX / width_ * d;
    return TimeAxis(anchor - left, anchor - left + d, width_);
}

TimeAxis TimeAxis::panned(double dx) const
{
    const double dt = dx * secondsPerPixel();
    return TimeAxis(start_ + dt, end_ + dt, width_);
}

TimeAxis TimeAxis::resized(double widthPx) const
{
    return TimeAxis(start_, end_, widthPx);
}

TimeAxis TimeAxis::clamped(double lo, double hi, double minDuration) const
{
    const double span = std::max(hi - lo, minDuration);
    double d = std::clamp(duration(), minDuration, span);
    double s = start_;
    if (s < lo)
        s = lo;
    if (s + d > lo + span)
        s = lo + span - d;
    return TimeAxis(s, s + d, width_);
}

} // namespace opsched
