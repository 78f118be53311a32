#include "common/name_fit.h"

#include <QFontMetrics>

#include <algorithm>

namespace opsched {

QString fitName(const QString& name, const QFontMetrics& fm, int width)
{
    if (fm.horizontalAdvance(name) <= width)
        return name;
    if (width < fm.averageCharWidth() * 3)
        return {};
    const qsizetype cut = std::max(name.lastIndexOf(QLatin1Char('.')), name.lastIndexOf(QLatin1Char('/')));
    const QString tail = cut > 0 && cut + 1 < name.size() ? name.mid(cut + 1) : name;
    if (fm.horizontalAdvance(tail) <= width)
        return tail;
    return fm.elidedText(tail, Qt::ElideLeft, width);
}

} // namespace opsched
