// Colours the timeline's painting and its ruler share: the selected range and the cursor.
#pragma once

#include <QColor>

namespace opsched {

inline const QColor kSelectionFill(60, 120, 220, 40);
inline const QColor kSelectionEdge(40, 90, 200);
inline const QColor kCursor(200, 40, 40);

} // namespace opsched
