#include "common/group_colour.h"

#include <cmath>

namespace opsched {

QColor groupColour(int group)
{
    if (group < 0)
        return { 200, 200, 200 };
    const auto g = static_cast<unsigned>(group);
    const int hue = static_cast<int>(std::fmod(g * 137.508, 360.0));
    static const int saturation[] = { 95, 150, 60 };
    static const int value[] = { 240, 220, 250 };
    return QColor::fromHsv(hue, saturation[(g / 3) % 3], value[g % 3]);
}

} // namespace opsched
