// The latency axis of the Compare view: linear while the bars are of one order of magnitude, log
// once the longest is over 10x the shortest (a 60 ms CPU mapping beside 0.5 ms GPU plans would
// squash the GPU bars to slivers), with tick values to label it. A value type, tested by data.
#pragma once

#include <vector>

namespace opsched {

class BarScale {
public:
    // Positive values only count; an empty or all-zero set gives a linear 0..1 scale.
    explicit BarScale(const std::vector<double>& values);

    bool logarithmic() const { return log_; }
    // Bar length for `value` in a space `width` wide: 0..width, monotonic, at least 1 for value > 0.
    double length(double value, double width) const;
    // Where to draw labelled ticks: decades (1, 10, 100 ...) on a log scale, 1/2/5 steps on a linear one.
    std::vector<double> ticks() const;
    double low() const { return low_; }
    double high() const { return high_; }

private:
    bool log_ = false;
    double low_ = 0; // the scale's left end: 0, or on a log scale a decade below the shortest bar
    double high_ = 1; // its right end: the longest bar
};

} // namespace opsched
