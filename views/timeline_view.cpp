#include "timeline_view.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <cmath>

namespace opsched {

QColor spanColour(std::uint32_t colourClass)
{
    // Golden-angle hues: neighbouring classes get clearly different colours.
    const int hue = static_cast<int>((colourClass * 137U) % 360U);
    return QColor::fromHsv(hue, 110, 225);
}

TimelineView::TimelineView(QWidget* parent) : QWidget(parent)
{
    setMouseTracking(true);
    setMinimumHeight(kRowHeight * 2);
}

void TimelineView::setData(std::shared_ptr<const TimelineData> timeline, std::function<QString(std::uint32_t)> describe)
{
    data_ = std::move(timeline);
    describe_ = std::move(describe);
    resetZoom();
    updateGeometry();
}

void TimelineView::resetZoom()
{
    const double end = data_ ? std::max(data_->latency, data_->rows.lastEnd()) : 1e-3;
    applyAxis(TimeAxis(0.0, end > 0 ? end : 1e-3, plotWidth()));
}

void TimelineView::setAxis(const TimeAxis& axis)
{
    if (axis.resized(plotWidth()) == axis_)
        return;
    axis_ = axis.resized(plotWidth());
    update();
}

void TimelineView::applyAxis(TimeAxis axis)
{
    const double end = data_ ? std::max(data_->latency, data_->rows.lastEnd()) : axis.end();
    axis = axis.resized(plotWidth()).clamped(0.0, end > 0 ? end : axis.end());
    if (axis == axis_)
        return;
    axis_ = axis;
    update();
    emit axisChanged(axis_);
}

QSize TimelineView::sizeHint() const
{
    const int rows = data_ ? static_cast<int>(data_->rows.rowCount()) : 1;
    return {800, 8 + kRowHeight * std::max(rows, 1)};
}

void TimelineView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    render(p, size());
}

void TimelineView::render(QPainter& p, const QSize& size) const
{
    p.fillRect(QRect(QPoint(0, 0), size), palette().base());
    if (!data_)
        return;
    const TimeAxis axis = axis_.resized(std::max(1, size.width() - kLabelWidth));
    const int rows = static_cast<int>(data_->rows.rowCount());

    // Stage bands, alternating shades, behind everything.
    for (std::size_t s = 0; s < data_->stages.size(); ++s) {
        const auto [t0, t1] = data_->stages[s];
        if (!axis.overlaps(t0, t1))
            continue;
        const double x0 = kLabelWidth + std::max(0.0, axis.toX(t0));
        const double x1 = kLabelWidth + std::min(axis.width(), axis.toX(t1));
        p.fillRect(QRectF(x0, 0, std::max(1.0, x1 - x0), size.height()),
                   s % 2 ? QColor(240, 243, 248) : QColor(228, 233, 242));
    }

    const QFontMetrics fm(p.font());
    for (int r = 0; r < rows; ++r) {
        const int y = 4 + r * kRowHeight;
        p.setPen(palette().text().color());
        p.drawText(QRect(4, y, kLabelWidth - 8, kRowHeight - 4), Qt::AlignVCenter | Qt::AlignLeft,
                   QString::fromStdString(data_->rowNames[static_cast<std::size_t>(r)]));
        const auto& spans = data_->rows.row(static_cast<std::size_t>(r));
        for (const DrawItem& item : data_->rows.layout(static_cast<std::size_t>(r), axis)) {
            const double x0 = kLabelWidth + std::max(0.0, item.x0);
            const double x1 = kLabelWidth + std::min(axis.width(), item.x1);
            const QRectF box(x0, y + 1, std::max(1.0, x1 - x0), kRowHeight - 6);
            if (item.count > 1) {
                p.fillRect(box, QColor(150, 150, 150)); // folded: many spans too small to show
                continue;
            }
            const TimelineSpan& s = spans[item.first];
            p.fillRect(box, spanColour(s.colour));
            // Text only where it fits: no labels on tiny boxes.
            if (box.width() > 30 && describe_) {
                const QString name = describe_(s.id).section('\n', 0, 0);
                p.setPen(Qt::black);
                p.drawText(box.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                           fm.elidedText(name, Qt::ElideRight, static_cast<int>(box.width()) - 5));
            }
        }
    }
}

void TimelineView::resizeEvent(QResizeEvent*)
{
    axis_ = axis_.resized(plotWidth());
}

void TimelineView::wheelEvent(QWheelEvent* event)
{
    const double steps = event->angleDelta().y() / 120.0;
    const double x = event->position().x() - kLabelWidth;
    applyAxis(axis_.zoomed(std::pow(1.25, steps), x));
    event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return;
    dragging_ = true;
    moved_ = false;
    dragX_ = event->position().x();
}

void TimelineView::mouseMoveEvent(QMouseEvent* event)
{
    if (!dragging_)
        return;
    const double dx = dragX_ - event->position().x();
    if (std::abs(dx) > 2)
        moved_ = true;
    dragX_ = event->position().x();
    applyAxis(axis_.panned(dx));
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event)
{
    dragging_ = false;
    if (moved_ || !data_ || event->button() != Qt::LeftButton)
        return;
    const int row = (static_cast<int>(event->position().y()) - 4) / kRowHeight;
    if (row >= 0 && static_cast<std::size_t>(row) < data_->rows.rowCount())
        if (const auto* s = data_->rows.spanAt(static_cast<std::size_t>(row), axis_, event->position().x() - kLabelWidth))
            emit spanClicked(s->id);
}

bool TimelineView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip && data_ && describe_) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int row = (help->pos().y() - 4) / kRowHeight;
        const TimelineSpan* s = nullptr;
        if (row >= 0 && static_cast<std::size_t>(row) < data_->rows.rowCount())
            s = data_->rows.spanAt(static_cast<std::size_t>(row), axis_, help->pos().x() - kLabelWidth);
        if (s)
            QToolTip::showText(help->globalPos(),
                               describe_(s->id) + QStringLiteral("\n%1 - %2 us (%3 us)")
                                                      .arg(s->start * 1e6, 0, 'f', 1)
                                                      .arg(s->end * 1e6, 0, 'f', 1)
                                                      .arg((s->end - s->start) * 1e6, 0, 'f', 1));
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

} // namespace opsched
