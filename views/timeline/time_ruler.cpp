#include "timeline/time_ruler.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

namespace opsched {
namespace {

struct Unit {
    double scale; // seconds per unit
    std::string_view name;
};

// The unit whose values of `magnitude` read as 1..999 (ns below, s above).
Unit unitFor(double magnitude)
{
    const double m = std::abs(magnitude);
    if (m >= 1.0)
        return { 1.0, "s" };
    if (m >= 1e-3)
        return { 1e-3, "ms" };
    if (m >= 1e-6)
        return { 1e-6, "us" };
    return { 1e-9, "ns" };
}

std::string format(double value, int decimals, const char* unit)
{
    char buffer[64];
    // Negative zero ("-0 ms") reads as a bug.
    if (value == 0.0 || std::abs(value) < 0.5 * std::pow(10.0, -decimals))
        value = 0.0;
    std::snprintf(buffer, sizeof buffer, "%.*f %s", decimals, value, unit);
    return buffer;
}

} // namespace

std::vector<const RulerTick*> TimeRuler::majors() const
{
    std::vector<const RulerTick*> out;
    for (const auto& t : ticks)
        if (t.major)
            out.push_back(&t);
    return out;
}

double niceStep(double minimum)
{
    if (!(minimum > 0) || !std::isfinite(minimum))
        return 0;
    const double power = std::pow(10.0, std::floor(std::log10(minimum)));
    for (double m : { 1.0, 2.0, 5.0, 10.0 }) {
        // A relative tolerance, so 2e-6 asks for a step of 2e-6 and not of 5e-6.
        if (m * power >= minimum * (1 - 1e-9))
            return m * power;
    }
    return 10 * power;
}

std::string formatTime(double seconds, double magnitude, double resolution)
{
    const Unit unit = unitFor(std::max(std::abs(magnitude), std::abs(resolution)));
    int decimals = 0;
    if (resolution > 0) {
        const double r = resolution / unit.scale;
        decimals = std::clamp(static_cast<int>(std::ceil(-std::log10(r) - 1e-9)), 0, 9);
    }
    return format(seconds / unit.scale, decimals, unit.name.data());
}

std::string formatDuration(double seconds)
{
    if (!std::isfinite(seconds))
        return "-";
    const Unit unit = unitFor(seconds);
    const double v = seconds / unit.scale;
    const double a = std::abs(v);
    // Three significant digits: 1.23, 12.3, 123 (ns are whole).
    const int decimals = unit.scale == 1e-9 ? 0 : a >= 100 ? 0 : a >= 10 ? 1 : 2;
    // What rounds to zero prints as zero, not "-0".
    return format(a < 0.5 * std::pow(10.0, -decimals) ? 0.0 : v, decimals, unit.name.data());
}

TimeRuler makeRuler(const TimeAxis& axis, double minMajorPx, double minMinorPx)
{
    TimeRuler ruler;
    const double spp = axis.secondsPerPixel();
    ruler.step = niceStep(std::max(minMajorPx, 1.0) * spp);
    if (!(ruler.step > 0))
        return ruler;
    // Minors divide the step evenly into round numbers: 1 -> 0.2, 2 -> 0.5, 5 -> 1.
    const double mantissa = ruler.step / std::pow(10.0, std::floor(std::log10(ruler.step) + 1e-9));
    const double minor = ruler.step / (std::abs(mantissa - 2.0) < 1e-6 ? 4.0 : 5.0);
    ruler.minorStep = minor / spp >= minMinorPx ? minor : 0.0;
    const double magnitude = std::max(std::abs(axis.start()), std::abs(axis.end()));
    ruler.unit = std::string(unitFor(std::max(magnitude, ruler.step)).name);

    const double step = ruler.minorStep > 0 ? ruler.minorStep : ruler.step;
    const int perMajor = ruler.minorStep > 0 ? static_cast<int>(std::lround(ruler.step / ruler.minorStep)) : 1;
    // Index ticks by integer multiples of the step so that no error accumulates along the axis.
    const auto first = static_cast<long long>(std::ceil(axis.start() / step - 1e-9));
    const auto last = static_cast<long long>(std::floor(axis.end() / step + 1e-9));
    if (last - first > 100000) // a degenerate axis; nothing sensible to draw
        return ruler;
    for (long long i = first; i <= last; ++i) {
        RulerTick tick;
        tick.time = static_cast<double>(i) * step;
        tick.x = axis.toX(tick.time);
        tick.major = i % perMajor == 0;
        if (tick.major)
            tick.label = formatTime(tick.time, magnitude, ruler.step);
        ruler.ticks.push_back(std::move(tick));
    }
    return ruler;
}

TimeRuler makeRulerForLabels(const TimeAxis& axis, const std::function<int(const std::string&)>& labelWidth)
{
    TimeRuler ruler = makeRuler(axis, 70);
    int widest = 0;
    for (const auto& t : ruler.ticks)
        if (t.major)
            widest = std::max(widest, labelWidth(t.label));
    if (widest + 16 > 70)
        ruler = makeRuler(axis, widest + 16);
    return ruler;
}

} // namespace opsched
