// How the timeline answers the mouse and the keyboard: hit testing, zoom and pan, selection, hover
// and tooltips. Kept apart from timeline_view.cpp's painting and timeline_view_text.cpp's text.
#include "timeline/timeline_view.h"

#include <QApplication>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QScrollBar>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace opsched {

int TimelineView::rowAt(int y) const
{
    if (y < kRulerHeight)
        return -1;
    return layout_.rowAt(y - kRulerHeight + scrollY_);
}

const TimelineSpan* TimelineView::spanAt(QPoint pos, std::size_t* row) const
{
    if (!data_ || pos.x() < kLabelWidth)
        return nullptr;
    const int r = rowAt(pos.y());
    if (r < 0 || static_cast<std::size_t>(r) >= data_->rows.rowCount())
        return nullptr;
    *row = static_cast<std::size_t>(r);
    return data_->rows.spanAt(*row, axis_, pos.x() - kLabelWidth);
}

void TimelineView::resizeEvent(QResizeEvent*)
{
    axis_ = axis_.resized(plotWidth());
    updateScrollBar();
}

void TimelineView::wheelEvent(QWheelEvent* event)
{
    const double steps = event->angleDelta().y() / 120.0;
    const double x = event->position().x();
    if ((event->modifiers() & Qt::ShiftModifier) || x < kLabelWidth) {
        setScrollY(scrollY_ - static_cast<int>(std::lround(steps * 3 * kRowHeight)));
    } else {
        const double horizontal = event->angleDelta().x() / 120.0; // touchpads
        if (horizontal != 0 && steps == 0)
            applyAxis(axis_.panned(-horizontal * plotWidth() / 10));
        else
            applyAxis(axis_.zoomed(std::pow(1.25, steps), x - kLabelWidth));
    }
    event->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* event)
{
    setFocus(Qt::MouseFocusReason);
    pressPos_ = lastPos_ = event->position();
    const bool pan = event->button() == Qt::MiddleButton || event->button() == Qt::RightButton
        || (event->button() == Qt::LeftButton && (event->modifiers() & Qt::ControlModifier));
    if (pan)
        drag_ = Drag::Pan;
    else if (event->button() == Qt::LeftButton)
        drag_ = Drag::Pending;
}

void TimelineView::mouseMoveEvent(QMouseEvent* event)
{
    const QPointF pos = event->position();
    const bool overPlot = pos.x() >= kLabelWidth && pos.x() < kLabelWidth + plotWidth();
    const std::optional<double> time
        = overPlot ? std::optional<double>(axis_.toTime(pos.x() - kLabelWidth)) : std::nullopt;
    if (time != cursorTime_) {
        cursorTime_ = time;
        emit cursorMoved(time ? *time : std::numeric_limits<double>::quiet_NaN());
        update();
    }
    if (drag_ == Drag::Pending && std::abs(pos.x() - pressPos_.x()) > 3 && pressPos_.x() >= kLabelWidth)
        drag_ = Drag::Select;
    if (drag_ == Drag::Select) {
        const double x0 = std::clamp(pressPos_.x() - kLabelWidth, 0.0, plotWidth());
        const double x1 = std::clamp(pos.x() - kLabelWidth, 0.0, plotWidth());
        setSelection(axis_.toTime(x0), axis_.toTime(x1));
    } else if (drag_ == Drag::Pan) {
        const QPointF d = lastPos_ - pos;
        applyAxis(axis_.panned(d.x()));
        setScrollY(scrollY_ + static_cast<int>(std::lround(d.y())));
    }
    lastPos_ = pos;
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event)
{
    const Drag drag = drag_;
    drag_ = Drag::None;
    if (drag != Drag::Pending || !data_ || event->button() != Qt::LeftButton)
        return;
    const QPoint pos = event->position().toPoint();
    // A click on a stream's name collapses or expands its kernel rows.
    if (pos.x() < kLabelWidth) {
        const int r = rowAt(pos.y());
        if (r >= 0) {
            const auto stream = layout_.streamRow(static_cast<std::size_t>(r));
            if (stream >= 0 && layout_.hasChildren(static_cast<std::size_t>(stream)))
                setCollapsed(static_cast<std::size_t>(stream), !layout_.isCollapsed(static_cast<std::size_t>(stream)));
        }
        return;
    }
    std::size_t row = 0;
    if (const TimelineSpan* s = spanAt(pos, &row)) {
        // A kernel selects its op.
        if (data_->rowKind(row) == TimelineRowKind::Kernels)
            emit spanClicked(s->id < data_->kernels.size() ? data_->kernels[s->id].op : s->id);
        else if (data_->rowKind(row) == TimelineRowKind::Transfers) // the op that waits for it
            emit spanClicked(s->id < data_->transfers.size() ? data_->transfers[s->id].toOp : s->id);
        else
            emit spanClicked(s->id);
    } else if (pos.y() >= kRulerHeight)
        clearSelection(); // a click on empty space, as in Perfetto
}

void TimelineView::keyPressEvent(QKeyEvent* event)
{
    const int page = std::max(kRowHeight, height() - kRulerHeight - kRowHeight);
    switch (event->key()) {
    case Qt::Key_F:
        resetZoom();
        break;
    case Qt::Key_W:
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomBy(1.5);
        break;
    case Qt::Key_S:
    case Qt::Key_Minus:
        zoomBy(1 / 1.5);
        break;
    case Qt::Key_A:
    case Qt::Key_Left:
        panBy(-0.2);
        break;
    case Qt::Key_D:
    case Qt::Key_Right:
        panBy(0.2);
        break;
    case Qt::Key_Up:
        setScrollY(scrollY_ - kRowHeight);
        break;
    case Qt::Key_Down:
        setScrollY(scrollY_ + kRowHeight);
        break;
    case Qt::Key_PageUp:
        setScrollY(scrollY_ - page);
        break;
    case Qt::Key_PageDown:
        setScrollY(scrollY_ + page);
        break;
    case Qt::Key_Home:
        setScrollY(0);
        break;
    case Qt::Key_End:
        setScrollY(maxScrollY());
        break;
    case Qt::Key_Z:
        zoomToSelection();
        break;
    case Qt::Key_Escape:
        clearSelection();
        break;
    default:
        QWidget::keyPressEvent(event);
        return;
    }
    event->accept();
}

void TimelineView::leaveEvent(QEvent*)
{
    if (cursorTime_) {
        cursorTime_.reset();
        emit cursorMoved(std::numeric_limits<double>::quiet_NaN());
        update();
    }
}

bool TimelineView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const bool inCorner = help->pos().x() < kLabelWidth && help->pos().y() < kRulerHeight;
        const QString text = inCorner ? corner_ : describeAt(help->pos());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(help->globalPos(), text);
        return true;
    }
    if (event->type() == QEvent::ShortcutOverride) {
        // The timeline's keys win over window shortcuts while it has focus.
        auto* key = static_cast<QKeyEvent*>(event);
        if (key->modifiers() == Qt::NoModifier || key->modifiers() == Qt::KeypadModifier) {
            switch (key->key()) {
            case Qt::Key_F:
            case Qt::Key_W:
            case Qt::Key_A:
            case Qt::Key_S:
            case Qt::Key_D:
            case Qt::Key_Z:
            case Qt::Key_Escape:
            case Qt::Key_Plus:
            case Qt::Key_Minus:
            case Qt::Key_Equal:
                event->accept();
                return true;
            default:
                break;
            }
        }
    }
    return QWidget::event(event);
}

// --- search, critical path, revealed op ------------------------------------------------------

} // namespace opsched
