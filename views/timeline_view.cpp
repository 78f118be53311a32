#include "timeline_view.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
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
    rowTops_.assign(1, 4);
    for (std::size_t r = 0; data_ && r < data_->rows.rowCount(); ++r)
        rowTops_.push_back(rowTops_.back() +
                           (data_->rowKind(r) == TimelineRowKind::Kernels ? kKernelRowHeight : kRowHeight));
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
    // Room for a few streams before any data, so the dock does not open as a sliver.
    return {800, std::max(rowTops_.back() + 4, 6 * kRowHeight)};
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

    const QFont normal = p.font();
    const QFontMetrics fm(normal);
    QFont small = normal;
    small.setPointSizeF(small.pointSizeF() * 0.85);
    const QFontMetrics smallFm(small);
    for (int r = 0; r < rows; ++r) {
        const auto row = static_cast<std::size_t>(r);
        const bool kernelRow = data_->rowKind(row) == TimelineRowKind::Kernels;
        const int y = rowTop(row);
        const int h = rowHeight(row);
        p.setFont(kernelRow ? small : normal);
        p.setPen(kernelRow ? palette().placeholderText().color() : palette().text().color());
        p.drawText(QRect(4, y, kLabelWidth - 8, h - 4), Qt::AlignVCenter | Qt::AlignLeft,
                   QString::fromStdString(data_->rowNames[row]));
        const auto& spans = data_->rows.row(row);
        for (const DrawItem& item : data_->rows.layout(row, axis)) {
            const double x0 = kLabelWidth + std::max(0.0, item.x0);
            const double x1 = kLabelWidth + std::min(axis.width(), item.x1);
            const QRectF box(x0, y + 1, std::max(1.0, x1 - x0), h - 6);
            if (item.count > 1) {
                p.fillRect(box, QColor(150, 150, 150)); // folded: many spans too small to show
                continue;
            }
            const TimelineSpan& s = spans[item.first];
            // Kernels a shade darker than their ops, so the two rows read apart.
            p.fillRect(box, kernelRow ? spanColour(s.colour).darker(115) : spanColour(s.colour));
            // Text only where it fits: no labels on tiny boxes.
            if (box.width() > 30) {
                const QString name = kernelRow && s.id < data_->kernels.size()
                                         ? QString::fromStdString(data_->kernels[s.id].name)
                                         : describeOp(s.id).section('\n', 0, 0);
                p.setPen(Qt::black);
                p.drawText(box.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                           (kernelRow ? smallFm : fm).elidedText(name, Qt::ElideRight, static_cast<int>(box.width()) - 5));
            }
        }
    }
}

QString TimelineView::describeOp(std::uint32_t id) const
{
    if (describe_)
        return describe_(id);
    if (data_ && id < data_->opLabels.size())
        return QString::fromStdString(data_->opLabels[id]);
    return tr("op %1").arg(id);
}

int TimelineView::rowAt(int y) const
{
    const auto it = std::upper_bound(rowTops_.begin(), rowTops_.end(), y);
    if (it == rowTops_.begin() || it == rowTops_.end())
        return -1;
    return static_cast<int>(it - rowTops_.begin()) - 1;
}

const TimelineSpan* TimelineView::spanAt(QPoint pos, std::size_t* row) const
{
    const int r = data_ ? rowAt(pos.y()) : -1;
    if (r < 0 || static_cast<std::size_t>(r) >= data_->rows.rowCount())
        return nullptr;
    *row = static_cast<std::size_t>(r);
    return data_->rows.spanAt(*row, axis_, pos.x() - kLabelWidth);
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
    std::size_t row = 0;
    if (const TimelineSpan* s = spanAt(event->position().toPoint(), &row)) {
        // A kernel selects its op.
        if (data_->rowKind(row) == TimelineRowKind::Kernels)
            emit spanClicked(s->id < data_->kernels.size() ? data_->kernels[s->id].op : s->id);
        else
            emit spanClicked(s->id);
    }
}

bool TimelineView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const QString text = describeAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text);
        return true;
    }
    return QWidget::event(event);
}

} // namespace opsched
