// What the timeline writes rather than draws: the time ruler with the range and cursor read-outs,
// span names (labels and search) and tooltips. Kept apart from timeline_view.cpp's painting and input.
#include "timeline/timeline_view.h"

#include "common/byte_format.h"
#include "timeline/time_ruler.h"
#include "timeline/timeline_palette.h"

#include <QPainter>

#include <algorithm>
#include <cmath>
#include <optional>

namespace opsched {

void TimelineView::drawRuler(QPainter& p, const TimeAxis& axis, int width) const
{
    const QRect band(0, 0, width, kRulerHeight);
    p.fillRect(band, palette().window());
    p.setPen(palette().mid().color());
    p.drawLine(0, kRulerHeight - 1, width, kRulerHeight - 1);
    const QFontMetrics fm(p.font());
    // The selected range's length sits on the ruler: where it goes is decided first, so that no
    // tick label peeks out from under it ("Δ 450 us ms").
    std::optional<QRectF> rangeBox;
    QString dt;
    double x0 = 0, x1 = 0;
    if (selection_) {
        x0 = kLabelWidth + std::clamp(axis.toX(selection_->first), 0.0, axis.width());
        x1 = kLabelWidth + std::clamp(axis.toX(selection_->second), 0.0, axis.width());
        dt = QStringLiteral("Δ %1").arg(QString::fromStdString(formatDuration(selection_->second - selection_->first)));
        const double w = fm.horizontalAdvance(dt) + 10;
        const double cx = std::clamp((x0 + x1) / 2 - w / 2, double(kLabelWidth), kLabelWidth + axis.width() - w);
        rangeBox = QRectF(cx, 2, w, kRulerHeight - 5);
    }
    // The time under the cursor, likewise.
    std::optional<QRectF> cursorBox;
    QString cursorText;
    if (cursorTime_ && axis.overlaps(*cursorTime_, *cursorTime_)) {
        const double x = kLabelWidth + axis.toX(*cursorTime_);
        cursorText = QString::fromStdString(
            formatTime(*cursorTime_, std::max(std::abs(axis.start()), std::abs(axis.end())), axis.secondsPerPixel()));
        const double w = fm.horizontalAdvance(cursorText) + 10;
        cursorBox = QRectF(std::min(x + 2, kLabelWidth + axis.width() - w), 2, w, kRulerHeight - 5);
    }
    const auto covered = [&](const QRectF& text) {
        return (rangeBox && rangeBox->intersects(text)) || (cursorBox && cursorBox->intersects(text));
    };
    // Majors far enough apart for their labels: measure the widest label a first ruler gives.
    const TimeRuler ruler = makeRulerForLabels(
        axis, [&fm](const std::string& label) { return fm.horizontalAdvance(QString::fromStdString(label)); });
    for (const auto& t : ruler.ticks) {
        const double x = kLabelWidth + t.x;
        if (x < kLabelWidth || x > kLabelWidth + axis.width())
            continue;
        const int len = t.major ? 9 : 4;
        p.setPen(palette().text().color());
        p.drawLine(QPointF(x, kRulerHeight - 1 - len), QPointF(x, kRulerHeight - 1));
        // Labels right of their tick, left out where they would run past the plot or under the range.
        const QString label = QString::fromStdString(t.label);
        const QRectF text(x + 3, 1, fm.horizontalAdvance(label), kRulerHeight - 6);
        if (t.major && text.right() <= kLabelWidth + axis.width() && !covered(text))
            p.drawText(QRectF(x + 3, 1, 200, kRulerHeight - 6), Qt::AlignLeft | Qt::AlignTop, label);
    }
    if (rangeBox) {
        p.fillRect(QRectF(x0, 0, std::max(1.0, x1 - x0), kRulerHeight - 1), kSelectionFill);
        p.fillRect(*rangeBox, kSelectionEdge);
        p.setPen(Qt::white);
        p.drawText(*rangeBox, Qt::AlignCenter, dt);
    }
    if (cursorBox) {
        p.fillRect(*cursorBox, kCursor);
        p.setPen(Qt::white);
        p.drawText(*cursorBox, Qt::AlignCenter, cursorText);
    }
    // The corner above the row names says what the ruler measures.
    p.fillRect(QRect(0, 0, kLabelWidth, kRulerHeight - 1), palette().window());
    p.setPen(palette().placeholderText().color());
    const QString corner = !corner_.isEmpty() ? corner_
        : ruler.unit.empty()                  ? QString()
                                              : tr("time (%1)").arg(QString::fromStdString(ruler.unit));
    if (!corner_.isEmpty())
        p.setPen(palette().text().color());
    p.drawText(QRect(4, 0, kLabelWidth - 8, kRulerHeight - 1), Qt::AlignVCenter | Qt::AlignLeft,
        fm.elidedText(corner, Qt::ElideRight, kLabelWidth - 8));
}

QString TimelineView::describeOp(std::uint32_t id) const
{
    if (describe_)
        return describe_(id);
    if (data_ && id < data_->opLabels.size())
        return QString::fromStdString(data_->opLabels[id]);
    return tr("op %1").arg(id);
}

QString TimelineView::spanName(std::size_t row, const TimelineSpan& s) const
{
    if (data_ && data_->rowKind(row) == TimelineRowKind::Kernels)
        return s.id < data_->kernels.size() ? QString::fromStdString(data_->kernels[s.id].name) : QString();
    if (data_ && data_->rowKind(row) == TimelineRowKind::Transfers) {
        if (s.id >= data_->transfers.size())
            return {};
        const TimelineTransfer& x = data_->transfers[s.id];
        return QString::fromStdString(formatBytes(x.bytes)) + QStringLiteral(" → ")
            + describeOp(x.toOp).section(QLatin1Char('\n'), 0, 0);
    }
    return describeOp(s.id).section(QLatin1Char('\n'), 0, 0);
}

QString TimelineView::describeAt(QPoint pos) const
{
    std::size_t row = 0;
    const TimelineSpan* s = spanAt(pos, &row);
    if (!s)
        return {};
    const QString times = QStringLiteral("%1 - %2 us (%3 us)")
                              .arg(s->start * 1e6, 0, 'f', 1)
                              .arg(s->end * 1e6, 0, 'f', 1)
                              .arg((s->end - s->start) * 1e6, 0, 'f', 1);
    if (data_->rowKind(row) == TimelineRowKind::Transfers && s->id < data_->transfers.size()) {
        const TimelineTransfer& x = data_->transfers[s->id];
        const double seconds = s->end - s->start;
        QString text = tr("transfer %1 → %2\n%3 → %4: %5")
                           .arg(describeOp(x.fromOp).section('\n', 0, 0), describeOp(x.toOp).section('\n', 0, 0),
                               QString::fromStdString(x.fromDevice), QString::fromStdString(x.toDevice),
                               QString::fromStdString(formatBytes(x.bytes)));
        if (seconds > 0)
            text += tr(" in %1 (%2/s)")
                        .arg(QString::fromStdString(formatDuration(seconds)),
                            QString::fromStdString(formatBytes(x.bytes / seconds)));
        return text + QLatin1Char('\n') + times;
    }
    if (data_->rowKind(row) != TimelineRowKind::Kernels)
        return describeOp(s->id) + QLatin1Char('\n') + times;
    if (s->id >= data_->kernels.size())
        return times;
    const TimelineKernel& k = data_->kernels[s->id];
    QString text = tr("kernel %1\nof %2").arg(QString::fromStdString(k.name), describeOp(k.op).section('\n', 0, 0));
    if (!k.launch.empty())
        text += QLatin1Char('\n') + QString::fromStdString(k.launch);
    if (k.warps > 0)
        text += tr("\n%1 warps").arg(k.warps, 0, 'f', 0);
    return text + QLatin1Char('\n') + times;
}

} // namespace opsched
