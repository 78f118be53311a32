#include "common/name_fit.h"

#include <QFontMetrics>

#include <algorithm>
#include <unordered_map>

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

namespace {

// Where each ending of `name` starts, longest first ending last: after every '.' and '/'.
std::vector<qsizetype> endingStarts(const QString& name)
{
    std::vector<qsizetype> starts;
    for (qsizetype i = name.size() - 1; i > 0; --i)
        if (name[i - 1] == QLatin1Char('.') || name[i - 1] == QLatin1Char('/'))
            starts.push_back(i);
    starts.push_back(0);
    return starts;
}

} // namespace

std::vector<QString> distinctEndings(const std::vector<QString>& names)
{
    std::unordered_map<QString, int> count;
    for (const QString& name : names)
        for (const qsizetype s : endingStarts(name))
            ++count[name.mid(s)];
    std::vector<QString> out;
    out.reserve(names.size());
    for (const QString& name : names) {
        QString pick = name;
        for (const qsizetype s : endingStarts(name)) // shortest first
            if (count[name.mid(s)] == 1) {
                pick = name.mid(s);
                break;
            }
        out.push_back(pick);
    }
    return out;
}

QString fitName(const QString& name, const QString& distinctEnding, const QFontMetrics& fm, int width)
{
    if (fm.horizontalAdvance(name) <= width)
        return name;
    if (distinctEnding.isEmpty() || !name.endsWith(distinctEnding))
        return fitName(name, fm, width);
    if (fm.horizontalAdvance(distinctEnding) <= width)
        return distinctEnding;
    // Its first component is where it differs from the others: keep it whole, then as much of the
    // end as fits ("layer3…scores"); when even that is too wide, the first component's end.
    qsizetype first = distinctEnding.size();
    for (const QChar sep : { QLatin1Char('.'), QLatin1Char('/') })
        if (const qsizetype at = distinctEnding.indexOf(sep); at > 0)
            first = std::min(first, at);
    if (first >= distinctEnding.size()) // one component: its end, as fitName keeps it
        return fitName(name, fm, width);
    const QString head = distinctEnding.left(first);
    const QString ellipsis = QStringLiteral("…");
    const int room = width - fm.horizontalAdvance(head + ellipsis);
    if (room >= fm.averageCharWidth() * 2) {
        const QString tail
            = fm.elidedText(distinctEnding.mid(first + 1), Qt::ElideLeft, room + fm.horizontalAdvance(ellipsis));
        return head + (tail.startsWith(ellipsis) ? tail : ellipsis + tail);
    }
    if (width < fm.averageCharWidth() * 3)
        return {};
    return fm.elidedText(head, Qt::ElideLeft, width);
}

} // namespace opsched
