#include "common/bar_scale.h"

#include <algorithm>
#include <cmath>

namespace opsched {

BarScale::BarScale(const std::vector<double>& values)
{
    double lo = 0, hi = 0;
    for (const double v : values)
        if (v > 0 && std::isfinite(v)) {
            lo = lo == 0 ? v : std::min(lo, v);
            hi = std::max(hi, v);
        }
    if (hi <= 0)
        return;
    high_ = hi;
    log_ = hi > 10 * lo;
    // A log scale starts at the decade at least a factor 2 below the shortest bar, so that bar keeps
    // a visible length.
    if (log_)
        low_ = std::pow(10.0, std::floor(std::log10(lo) - 0.3));
}

double BarScale::length(double value, double width) const
{
    if (!(value > 0) || !std::isfinite(value))
        return 0;
    double f = log_ ? (std::log10(value) - std::log10(low_)) / (std::log10(high_) - std::log10(low_)) : value / high_;
    f = std::clamp(f, 0.0, 1.0);
    return std::max(1.0, f * width);
}

std::vector<double> BarScale::ticks() const
{
    std::vector<double> out;
    if (log_) {
        for (double t = low_; t <= high_ * 1.0001; t *= 10)
            out.push_back(t);
        return out;
    }
    // About five ticks at 1, 2 or 5 times a power of ten.
    const double raw = high_ / 5;
    const double decade = std::pow(10.0, std::floor(std::log10(raw)));
    double step = decade;
    for (const double m : { 1.0, 2.0, 5.0, 10.0 })
        if (m * decade >= raw) {
            step = m * decade;
            break;
        }
    for (double t = 0; t <= high_ * 1.0001; t += step)
        out.push_back(t);
    return out;
}

} // namespace opsched
