#include "warp_chart.h"

#include "timeline_view.h"

#include <QPainter>
#include <QPainterPath>

#include <algorithm>

namespace opsched {

WarpChart::WarpChart(QWidget* parent) : QWidget(parent)
{
    setMinimumHeight(60);
}

void WarpChart::setData(std::shared_ptr<const TimelineData> timeline)
{
    data_ = std::move(timeline);
    update();
}

void WarpChart::setAxis(const TimeAxis& axis)
{
    axis_ = axis;
    update();
}

void WarpChart::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    render(p, size());
}

void WarpChart::render(QPainter& p, const QSize& size) const
{
    p.fillRect(QRect(QPoint(0, 0), size), palette().base());
    const int left = TimelineView::kLabelWidth;
    p.setPen(palette().text().color());
    p.drawText(QRect(4, 0, left - 8, size.height()), Qt::AlignVCenter | Qt::AlignLeft, tr("active\nwarps"));
    if (!data_ || data_->warps.empty() || data_->maxWarps <= 0)
        return;
    const TimeAxis axis = axis_.resized(std::max(1, size.width() - left));
    // Scale to the run's peak (small kernels would be invisible against the device's limit); the
    // label says how the peak compares with what the device can hold.
    double peak = 1.0, area = 0.0;
    for (std::size_t i = 0; i < data_->warps.size(); ++i) {
        peak = std::max(peak, data_->warps[i].activeWarps);
        if (i + 1 < data_->warps.size())
            area += data_->warps[i].activeWarps * (data_->warps[i + 1].time - data_->warps[i].time);
    }
    const double top = peak * 1.1;
    const double h = size.height() - 4;
    auto y = [&](double warps) { return 2 + h - warps / top * h; };

    // Step function: find the first sample at or before the view, walk to the end of the view.
    const auto& w = data_->warps;
    auto it = std::upper_bound(w.begin(), w.end(), axis.start(),
                               [](double t, const WarpSample& s) { return t < s.time; });
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
    const double average = data_->latency > 0 ? area / data_->latency : 0.0;
    p.setPen(QPen(QColor(40, 80, 160), 1, Qt::DashLine));
    p.drawLine(QPointF(left, y(average)), QPointF(left + axis.width(), y(average)));
    p.setPen(palette().text().color());
    p.drawText(QRectF(left + 4, 2, axis.width() - 8, 16), Qt::AlignRight | Qt::AlignTop,
               tr("peak %1, average %2 of %3 resident warps")
                   .arg(peak, 0, 'f', 0)
                   .arg(average, 0, 'f', 0)
                   .arg(data_->maxWarps, 0, 'f', 0));
}

} // namespace opsched
