// The DAG view's colour legend: what the colours mean (devices, stages or op kinds), wrapped onto
// as many lines as the view's width needs, at the bottom left.
#include "dag/dag_view.h"

#include "common/group_colour.h"
#include "timeline/timeline_view.h" // spanColour

#include <QPainter>

#include <algorithm>

namespace opsched {

std::vector<DagView::LegendEntry> DagView::legendEntries(QString* title) const
{
    // What the colours mean: a swatch per device, per stage, or per op kind in the graph.
    std::vector<LegendEntry> entries;
    if (!graph_ || !layout_)
        return entries;
    if (hasDevices()) {
        *title = deviceTitle_.empty() ? tr("device:") : QString::fromStdString(deviceTitle_) + QLatin1Char(':');
        for (std::size_t d = 0; d < deviceNames_.size(); ++d)
            entries.push_back({ groupColour(static_cast<int>(d)), QString::fromStdString(deviceNames_[d]) });
    } else if (hasSchedule()) {
        *title = tr("stage (%1), labels stage/group:").arg(stageCount_);
        const int shown = std::min(stageCount_, 12);
        for (int st = 0; st < shown; ++st)
            entries.push_back({ groupColour(st), QString::number(st) });
        if (stageCount_ > shown)
            entries.push_back({ QColor(), QStringLiteral("… %1").arg(stageCount_ - 1) });
    } else {
        const std::size_t groups = view_
            ? static_cast<std::size_t>(std::count_if(view_->nodes.begin(), view_->nodes.end(),
                [](const ScopeNode& n) { return n.kind != ScopeNode::Kind::Op; }))
            : 0;
        *title = groups > 0
            ? tr("op kind (%1 ops in %2 boxes, %3 groups):").arg(graph_->opCount()).arg(view_->nodes.size()).arg(groups)
            : tr("op kind (%1 ops, %2 layers):").arg(graph_->opCount()).arg(layout_->layerCount);
        std::vector<bool> present(static_cast<std::size_t>(kLastOpKind) + 1, false);
        for (std::uint32_t v = 0; v < graph_->opCount(); ++v)
            present[static_cast<std::size_t>(graph_->op(OpId(v)).kind)] = true;
        for (std::size_t k = 0; k < present.size(); ++k)
            if (present[k])
                entries.push_back(
                    { spanColour(static_cast<std::uint32_t>(k)), QString::fromUtf8(toString(static_cast<OpKind>(k))) });
    }
    if (showCritical_ && !criticalPath_.empty())
        entries.push_back({ QColor(), tr("· heavy outline: critical path (%1 ops)").arg(criticalPath_.size()) });
    return entries;
}

namespace {

// Lays legend items out left to right, wrapping at `right`; calls place(x, y, item) for each.
template <class Place>
int flowLegend(const QFontMetrics& fm, double left, double right, const QString& title,
    const std::vector<int>& itemWidths, Place place)
{
    const int lineHeight = fm.height() + 2;
    double x = left + 5, y = 2;
    int lines = 1;
    auto advance = [&](int w) {
        if (x + w > right && x > left + 5) {
            x = left + 5;
            y += lineHeight;
            ++lines;
        }
    };
    advance(fm.horizontalAdvance(title));
    place(x, y, -1);
    x += fm.horizontalAdvance(title) + 6;
    for (std::size_t i = 0; i < itemWidths.size(); ++i) {
        advance(itemWidths[i]);
        place(x, y, static_cast<int>(i));
        x += itemWidths[i];
    }
    return lines;
}

} // namespace

QRectF DagView::legendRect(const QSize& size) const
{
    QString title;
    const std::vector<LegendEntry> entries = legendEntries(&title);
    if (title.isEmpty())
        return {};
    const QFontMetrics fm(font());
    const int sw = fm.height() - 4;
    std::vector<int> widths;
    int width = fm.horizontalAdvance(title) + 14;
    for (const LegendEntry& e : entries) {
        widths.push_back((e.colour.isValid() ? sw + 3 : 0) + fm.horizontalAdvance(e.text) + 8);
        width += widths.back();
    }
    const int boxWidth = std::min(width, std::max(120, size.width() - 12));
    // The real wrap (words do not split), not an estimate from the total width.
    const int lines = flowLegend(fm, 6, 6 + boxWidth, title, widths, [](double, double, int) {});
    const int lineHeight = fm.height() + 2;
    return QRectF(6, size.height() - lines * lineHeight - 8, boxWidth, lines * lineHeight + 4);
}

void DagView::drawLegend(QPainter& p, const QSize& size) const
{
    QString title;
    const std::vector<LegendEntry> entries = legendEntries(&title);
    const QRectF box = legendRect(size);
    if (box.isEmpty())
        return;
    const QFontMetrics fm(p.font());
    const int sw = fm.height() - 4;
    std::vector<int> widths;
    for (const LegendEntry& e : entries)
        widths.push_back((e.colour.isValid() ? sw + 3 : 0) + fm.horizontalAdvance(e.text) + 8);
    p.setRenderHint(QPainter::Antialiasing, false);
    QColor back = palette().base().color();
    back.setAlpha(225);
    p.fillRect(box, back);
    flowLegend(fm, box.left(), box.right(), title, widths, [&](double x, double y, int i) {
        y += box.top();
        p.setPen(palette().text().color());
        if (i < 0) {
            p.drawText(QPointF(x, y + fm.ascent()), title);
            return;
        }
        const LegendEntry& e = entries[static_cast<std::size_t>(i)];
        if (e.colour.isValid()) {
            p.setBrush(e.colour);
            p.setPen(e.colour.darker(150));
            p.drawRect(QRectF(x, y + 2, sw, sw));
            p.setBrush(Qt::NoBrush);
            x += sw + 3;
        }
        p.setPen(palette().text().color());
        p.drawText(QPointF(x, y + fm.ascent()), e.text);
    });
}

} // namespace opsched
