// Sizes as the views print them: three significant digits in decimal units, "1.23 MB", "456 kB",
// "12 B" (what a transfer moved, what a device holds).
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

namespace opsched {

inline std::string formatBytes(double bytes)
{
    static const char* const units[] = { "B", "kB", "MB", "GB", "TB" };
    int unit = 0;
    double value = std::abs(bytes);
    while (value >= 999.5 && unit < 4) {
        value /= 1000.0;
        ++unit;
    }
    char text[32];
    const int decimals = unit == 0 || value >= 99.95 ? 0 : value >= 9.995 ? 1 : 2;
    std::snprintf(text, sizeof text, "%s%.*f %s", bytes < 0 ? "-" : "", decimals, value, units[unit]);
    return text;
}

} // namespace opsched
