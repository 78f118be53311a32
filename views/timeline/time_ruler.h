// The ticks of a time ruler for a TimeAxis, as Perfetto, Tracy and Nsight Systems draw them:
// labelled ticks at a "nice" step (1, 2 or 5 times a power of ten, in ns, us, ms or s) at least a
// given number of pixels apart, and unlabelled minor ticks between them. A value type, computed
// from the axis alone, so it is tested without a widget and shared by the timeline, the warps chart
// and exported images.
#pragma once

#include "engine/timeline/time_axis.h"

#include <functional>
#include <string>
#include <vector>

namespace opsched {

struct RulerTick {
    double time = 0; // seconds
    double x = 0; // pixels on the axis
    bool major = false;
    std::string label; // majors only, e.g. "1.5 ms"
};

struct TimeRuler {
    double step = 0; // seconds between major ticks
    double minorStep = 0; // seconds between minor ticks (0: none drawn, too dense)
    std::string unit; // unit of the labels: "ns", "us", "ms" or "s"
    std::vector<RulerTick> ticks; // ascending time, inside the axis' range

    std::vector<const RulerTick*> majors() const;
};

// The smallest step of the form {1, 2, 5} x 10^k that is >= `minimum` (> 0); 0 for minimum <= 0 or
// not finite.
double niceStep(double minimum);

// Ticks for `axis` with majors at least `minMajorPx` apart and minors (a fifth of a 1 or 5 step, a
// quarter of a 2 step) only when at least `minMinorPx` apart. The label unit follows the size of
// the largest time shown, the decimals the step, so neighbouring labels always differ.
TimeRuler makeRuler(const TimeAxis& axis, double minMajorPx = 80, double minMinorPx = 6);

// A ruler whose major ticks stand far enough apart for their labels: a first ruler at 70 px,
// then, when its widest major label (measured by `labelWidth`, in pixels) needs more, a second one.
TimeRuler makeRulerForLabels(const TimeAxis& axis, const std::function<int(const std::string&)>& labelWidth);

// `seconds` in the unit that suits `magnitude` (the largest value it is shown beside), with as many
// decimals as `resolution` needs: formatTime(0.0125, 0.0125, 0.0005) == "12.5 ms".
std::string formatTime(double seconds, double magnitude, double resolution);
// A duration with three significant digits in the unit that suits it: "1.23 ms", "456 us", "12 ns".
std::string formatDuration(double seconds);

} // namespace opsched
