// The colour of a group of ops: a stage of a schedule, or a device of a mapping. The DAG and the
// timeline colour by the same function, so a device is one colour in every view.
#pragma once

#include <QColor>

namespace opsched {

// Golden-angle hues with alternating saturation and lightness, so neighbouring groups always differ
// and colours do not repeat for dozens of groups; a negative index (no group) is grey.
QColor groupColour(int group);

} // namespace opsched
