#include "timeline/warp_chart.h"

#include "engine/timeline/range_stats.h"
#include "timeline/time_ruler.h"
#include "timeline/timeline_view.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>

namespace opsched {

namespace {

QColor hostColour(HostCallKind kind)
{
    switch (kind) {
    case HostCallKind::Launch:
        return { 70, 110, 200 };
    case HostCallKind::GraphLaunch:
        return { 60, 160, 90 };
    case HostCallKind::Wait:
        return { 205, 205, 205 };
    case HostCallKind::Barrier:
        return { 230, 150, 50 };
    case HostCallKind::Other:
        return { 170, 140, 200 };
    }
    return Qt::gray;
}

// The host call at time t, if any (calls are in start order and do not overlap).
const HostCall* hostCallAt(const std::vector<HostCall>& host, double t)
{
    auto it = std::upper_bound(host.begin(), host.end(), t, [](double x, const HostCall& c) { return x < c.start; });
    if (it == host.begin())
        return nullptr;
    --it;
    return t <= it->end ? &*it : nullptr;
}

} // namespace

WarpChart::WarpChart(QWidget* parent)
    : QWidget(parent)
{
    // The host lane, a plot a few text lines high with its axis labels, and the ruler under it.
    setMinimumHeight(kHostLaneHeight + 3 * fontMetrics().height() + kTickHeight);
    setMouseTracking(true);
}

void WarpChart::setData(std::shared_ptr<const TimelineData> timeline)
{
    data_ = std::move(timeline);
    selection_.reset();
    update();
}

void WarpChart::setAxis(const TimeAxis& axis)
{
    axis_ = axis;
    update();
}

void WarpChart::setCursorTime(double time)
{
    cursor_ = std::isnan(time) ? std::nullopt : std::optional<double>(time);
    update();
}

void WarpChart::setSelection(std::optional<std::pair<double, double>> range)
{
    selection_ = range;
    update();
}

void WarpChart::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    render(p, size());
}

QString WarpChart::readoutAt(double x) const
{
    const TimeAxis axis = axis_.resized(std::max(1, width() - TimelineView::kLabelWidth - TimelineView::rightMargin()));
    const double px = x - TimelineView::kLabelWidth;
    if (!data_ || px < 0 || px > axis.width())
        return {};
    const double t = axis.toTime(px);
    const QString time = QString::fromStdString(
        formatTime(t, std::max(std::abs(axis.start()), std::abs(axis.end())), axis.secondsPerPixel()));
    QString host;
    if (const HostCall* call = hostCallAt(data_->host, t))
        host = tr("; host: %1 (%2)")
                   .arg(QString::fromUtf8(toString(call->kind)),
                       QString::fromStdString(formatDuration(call->end - call->start)));
    if (data_->warps.empty())
        return time + host;
    return tr("%1: %2 active warps").arg(time).arg(averageWarps(data_->warps, t, t), 0, 'f', 0) + host;
}

void WarpChart::mouseMoveEvent(QMouseEvent* event)
{
    const double x = event->position().x();
    const QString text = readoutAt(x);
    setToolTip(text);
    const TimeAxis axis = axis_.resized(std::max(1, width() - TimelineView::kLabelWidth - TimelineView::rightMargin()));
    const double t
        = text.isEmpty() ? std::numeric_limits<double>::quiet_NaN() : axis.toTime(x - TimelineView::kLabelWidth);
    setCursorTime(t);
    emit cursorMoved(t);
}

void WarpChart::wheelEvent(QWheelEvent* event)
{
    const double steps = event->angleDelta().y() / 120.0;
    if (steps != 0)
        emit zoomRequested(std::pow(1.25, steps), event->position().x() - TimelineView::kLabelWidth);
    event->accept();
}

void WarpChart::leaveEvent(QEvent*)
{
    setCursorTime(std::numeric_limits<double>::quiet_NaN());
    emit cursorMoved(std::numeric_limits<double>::quiet_NaN());
}

int WarpChart::hostLaneHeight() const
{
    return data_ && !data_->host.empty() ? kHostLaneHeight : 0;
}

void WarpChart::render(QPainter& p, const QSize& size) const
{
    p.fillRect(QRect(QPoint(0, 0), size), palette().base());
    const int lane = hostLaneHeight();
    if (lane > 0) {
        renderHostLane(p, QSize(size.width(), lane));
        p.save();
        p.translate(0, lane);
        renderWarps(p, QSize(size.width(), size.height() - lane));
        p.restore();
        return;
    }
    renderWarps(p, size);
}

void WarpChart::renderHostLane(QPainter& p, const QSize& size) const
{
    // What the host thread does, as Nsight's CUDA API row: launch calls (blue), the graph launch
    // (green), waits for the device (grey), stage barriers (orange). Calls narrower than a pixel
    // merge into the box drawn before them.
    const int left = TimelineView::kLabelWidth;
    const TimeAxis axis = axis_.resized(std::max(1, size.width() - left - TimelineView::rightMargin()));
    p.setPen(palette().text().color());
    QFont small = p.font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    p.save();
    p.setFont(small);
    p.drawText(QRect(4, 0, left - 8, size.height()), Qt::AlignVCenter | Qt::AlignLeft, tr("host"));
    p.restore();
    const auto& host = data_->host;
    auto it = std::upper_bound(
        host.begin(), host.end(), axis.start(), [](double t, const HostCall& c) { return t < c.start; });
    if (it != host.begin())
        --it;
    double drawnTo = -1;
    for (; it != host.end() && it->start <= axis.end(); ++it) {
        const double x0 = left + std::clamp(axis.toX(it->start), 0.0, axis.width());
        const double x1 = left + std::clamp(axis.toX(it->end), 0.0, axis.width());
        if (x1 <= drawnTo)
            continue;
        const double from = std::max(x0, drawnTo);
        p.fillRect(QRectF(from, 1, std::max(1.0, x1 - from), size.height() - 2), hostColour(it->kind));
        drawnTo = std::max(x1, from + 1);
    }
}

void WarpChart::renderWarps(QPainter& p, const QSize& size) const
{
    const int left = TimelineView::kLabelWidth;
    const int plotHeight = std::max(10, size.height() - kTickHeight);
    p.setPen(palette().text().color());
    p.drawText(QRect(4, 0, left - 8, plotHeight), Qt::AlignVCenter | Qt::AlignLeft, tr("active\nwarps"));
    const TimeAxis axis = axis_.resized(std::max(1, size.width() - left - TimelineView::rightMargin()));
    if (!data_)
        return;

    // The timeline's ruler, labelled under the curve, with faint grid lines through it.
    const QFontMetrics fm(p.font());
    const TimeRuler ruler = makeRulerForLabels(
        axis, [&fm](const std::string& label) { return fm.horizontalAdvance(QString::fromStdString(label)); });
    p.setPen(palette().mid().color());
    p.drawLine(QPointF(left, plotHeight), QPointF(left + axis.width(), plotHeight));
    for (const auto& t : ruler.ticks) {
        const double x = left + t.x;
        if (x < left || x > left + axis.width())
            continue;
        p.setPen(t.major ? QColor(0, 0, 0, 30) : QColor(0, 0, 0, 0));
        if (t.major)
            p.drawLine(QPointF(x, 0), QPointF(x, plotHeight));
        p.setPen(palette().text().color());
        p.drawLine(QPointF(x, plotHeight), QPointF(x, plotHeight + (t.major ? 5 : 2)));
        const QString text = QString::fromStdString(t.label);
        if (t.major && x + 3 + fm.horizontalAdvance(text) <= left + axis.width())
            p.drawText(QRectF(x + 3, plotHeight + 1, 200, kTickHeight - 1), Qt::AlignLeft | Qt::AlignVCenter, text);
    }
    if (selection_) {
        const double x0 = left + std::clamp(axis.toX(selection_->first), 0.0, axis.width());
        const double x1 = left + std::clamp(axis.toX(selection_->second), 0.0, axis.width());
        p.fillRect(QRectF(x0, 0, std::max(1.0, x1 - x0), plotHeight), QColor(60, 120, 220, 40));
    }
    if (data_ && data_->latency > 0 && (data_->warps.empty() || data_->maxWarps <= 0)) {
        // Say so rather than draw an empty chart: CPU runs and mappings predicted from per-op
        // costs have no kernels, so no warps.
        p.setPen(palette().placeholderText().color());
        p.drawText(QRectF(left + 4, 0, axis.width() - 8, plotHeight), Qt::AlignCenter,
            data_->hasKernelRows() ? tr("n/a: no active-warps data for this run")
                                   : tr("n/a: this run has no kernels (predicted from per-op costs, or run on a CPU)"));
    }
    if (!data_ || data_->warps.empty() || data_->maxWarps <= 0)
        return;
    // Scale to the run's peak (small kernels would be invisible against the device's limit); the
    // label says how the peak compares with what the device can hold.
    double peak = 1.0;
    for (const auto& s : data_->warps)
        peak = std::max(peak, s.activeWarps);
    const double top = peak * 1.1;
    const double h = plotHeight - 4;
    auto y = [&](double warps) { return 2 + h - warps / top * h; };

    // Step function: find the first sample at or before the view, walk to the end of the view.
    const auto& w = data_->warps;
    auto it
        = std::upper_bound(w.begin(), w.end(), axis.start(), [](double t, const WarpSample& s) { return t < s.time; });
    if (it != w.begin())
        --it;
    QPainterPath path;
    path.moveTo(left, y(0));
    double lastY = y(0);
    for (; it != w.end(); ++it) {
        const double x = left + std::clamp(axis.toX(it->time), 0.0, axis.width());
        path.lineTo(x, lastY);
        lastY = y(it->activeWarps);
        path.lineTo(x, lastY);
        if (it->time > axis.end())
            break;
    }
    path.lineTo(left + axis.width(), lastY);
    path.lineTo(left + axis.width(), y(0));
    path.closeSubpath();
    p.fillPath(path, QColor(90, 140, 210, 140));
    const double runEnd = std::max(data_->latency, w.back().time);
    const double average = averageWarps(w, 0.0, runEnd);
    p.setPen(QPen(QColor(40, 80, 160), 1, Qt::DashLine));
    p.drawLine(QPointF(left, y(average)), QPointF(left + axis.width(), y(average)));
    // The y-axis: the peak and 0, right-aligned against the plot, a faint line through the peak.
    p.setPen(QColor(0, 0, 0, 40));
    p.drawLine(QPointF(left, y(peak)), QPointF(left + axis.width(), y(peak)));
    p.setPen(palette().text().color());
    QFont small = p.font();
    small.setPointSizeF(small.pointSizeF() * 0.8);
    p.save();
    p.setFont(small);
    const QFontMetrics sfm(small);
    p.drawText(QRectF(0, y(peak) - sfm.height() / 2.0, left - 3, sfm.height()), Qt::AlignRight | Qt::AlignVCenter,
        QString::number(peak, 'f', 0));
    p.drawText(
        QRectF(0, y(0) - sfm.height(), left - 3, sfm.height()), Qt::AlignRight | Qt::AlignBottom, QStringLiteral("0"));
    p.restore();
    QString label = tr("peak %1, average %2 of %3 resident warps")
                        .arg(peak, 0, 'f', 0)
                        .arg(average, 0, 'f', 0)
                        .arg(data_->maxWarps, 0, 'f', 0);
    if (selection_)
        label += tr("; range average %1").arg(averageWarps(w, selection_->first, selection_->second), 0, 'f', 0);
    if (cursor_ && axis.overlaps(*cursor_, *cursor_)) {
        const double x = left + axis.toX(*cursor_);
        p.setPen(QPen(QColor(200, 40, 40), 1, Qt::DashLine));
        p.drawLine(QPointF(x, 0), QPointF(x, plotHeight));
        label = tr("%1 active warps here; ").arg(averageWarps(w, *cursor_, *cursor_), 0, 'f', 0) + label;
        p.setPen(palette().text().color());
    }
    // On a backing, so the text reads over the curve.
    const QRectF box(left + 4, 2, axis.width() - 8, fm.height());
    const QRectF used = p.boundingRect(box, Qt::AlignRight | Qt::AlignTop, label).adjusted(-3, 0, 3, 0);
    QColor backing = palette().base().color();
    backing.setAlpha(210);
    p.fillRect(used, backing);
    p.drawText(box, Qt::AlignRight | Qt::AlignTop, label);
}

} // namespace opsched
