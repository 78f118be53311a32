// Op names in boxes too narrow for them, the same way in the DAG and the timeline: the distinctive
// part of "Mixed_5b.branch3x3dbl_2" is its end, so a name keeps its last component, or the end of
// it, never only its start ("Mix..." for every block of Inception tells nothing apart).
#pragma once

#include <QString>

class QFontMetrics;

namespace opsched {

// `name` in `width` pixels: whole, or its last component (after '.' or '/'), or the end of that
// component with a leading ellipsis. Empty when not even three characters fit.
QString fitName(const QString& name, const QFontMetrics& fm, int width);

} // namespace opsched
