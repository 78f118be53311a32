// Op names in boxes too narrow for them, the same way in the DAG and the timeline: the distinctive
// part of "Mixed_5b.branch3x3dbl_2" is its end, so a name keeps its last component, or the end of
// it, never only its start ("Mix..." for every block of Inception tells nothing apart).
#pragma once

#include <QString>

#include <vector>

class QFontMetrics;

namespace opsched {

// `name` in `width` pixels: whole, or its last component (after '.' or '/'), or the end of that
// component with a leading ellipsis. Empty when not even three characters fit.
QString fitName(const QString& name, const QFontMetrics& fm, int width);

// Per name, its shortest ending of whole components (after '.' or '/') that no other name ends
// with: what tells it apart among them ("layer3.attn.scores" where every layer has a "scores").
// The whole name where no shorter ending is unique (a name given twice).
std::vector<QString> distinctEndings(const std::vector<QString>& names);

// fitName knowing what tells the name apart: the whole name, else its distinct ending, else that
// ending with its middle elided (its first component, which differs, and its end stay), else
// fitName's fallback.
QString fitName(const QString& name, const QString& distinctEnding, const QFontMetrics& fm, int width);

} // namespace opsched
