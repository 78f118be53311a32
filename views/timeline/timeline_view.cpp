#include "timeline/timeline_view.h"

#include "common/group_colour.h"

#include "common/name_fit.h"
#include "timeline/time_ruler.h"
#include "timeline/timeline_palette.h"

#include <QApplication>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QScrollBar>
#include <QStyle>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <optional>
#include <unordered_set>

namespace opsched {
namespace {

constexpr std::uint8_t kMatch = 1, kCritical = 2, kRevealed = 4, kCurrent = 8;

} // namespace

QColor spanColour(std::uint32_t colourClass)
{
    // Op kinds (OpKind order) get colours chosen by hand so that the kinds a network mixes differ
    // at a glance (a transformer's MatMul, Add, Reshape, Transpose, LayerNorm, Softmax, Div, Gemm;
    // a CNN's Conv, Pool, Concat, Add), all light enough for black labels. Golden-angle hue steps
    // alone gave Add and Reshape the same green and Conv, Transpose and LayerNorm the same red.
    static const QRgb kinds[] = {
        0x8fb3e8, // Conv
        0x6f9bd8, // ReluConv
        0xa9cdf2, // SepConv
        0x5c8fc4, // ReluSepConv
        0xf2c36b, // Pool
        0xf59d9d, // Activation
        0x8fd18f, // Add
        0xc9e47a, // Multiply
        0x7fcfb5, // Subtract
        0xd9a0e6, // Divide
        0xc4c4c4, // Concat
        0x5fc0dc, // MatMul
        0xe8dcae, // Slice
        0xf3ad7d, // Transpose
        0xbcbcec, // Pad
        0xeaa8c8, // Reduce
        0xa8e0d8, // BatchNorm
        0x3fa7c9, // Gemm
        0xff8f6b, // Softmax
        0xd3d39a, // Reshape
        0xe4e4e4, // Identity
        0xb39ddb, // LayerNorm
        0xf7a440, // Gelu
        0xa7c7a0, // Gather
        0xc8a882, // Compare
        0x9fb2bc, // Where
        0xc4b2ab, // Expand
        0xffd95a, // Math
        0x4fc2b4, // Resize
        0x8f9ad6, // ConvTranspose
        0xc27ba0, // Lrn
        0xd98c5f, // Recurrent
    };
    static_assert(std::size(kinds) == static_cast<std::size_t>(kLastOpKind) + 1, "a colour per OpKind");
    if (colourClass < std::size(kinds))
        return QColor(kinds[colourClass]);
    // Other classes (schedulers in Compare, kinds a stored run names but this build lacks):
    // golden-angle hues, neighbouring classes clearly apart.
    const int hue = static_cast<int>((colourClass * 137U) % 360U);
    return QColor::fromHsv(hue, 110, 225);
}

int TimelineView::rightMargin()
{
    return QApplication::style()->pixelMetric(QStyle::PM_ScrollBarExtent);
}

TimelineView::TimelineView(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    scrollBar_ = new QScrollBar(Qt::Vertical, this);
    scrollBar_->setObjectName(QStringLiteral("timelineScrollBar"));
    scrollBar_->hide();
    connect(scrollBar_, &QScrollBar::valueChanged, this, [this](int v) {
        if (v != scrollY_) {
            scrollY_ = v;
            update();
        }
    });
}

double TimelineView::plotWidth() const
{
    return std::max(1, width() - kLabelWidth - rightMargin());
}

void TimelineView::setCornerLabel(const QString& label)
{
    corner_ = label;
    update();
}

void TimelineView::setTimeExtent(std::optional<double> end)
{
    extent_ = end;
    resetZoom();
}

double TimelineView::viewEnd() const
{
    if (extent_ && *extent_ > 0)
        return *extent_;
    const double end = data_ ? std::max(data_->latency, data_->rows.lastEnd()) : 0.0;
    return end > 0 ? end : 1e-3;
}

void TimelineView::setData(std::shared_ptr<const TimelineData> timeline, std::function<QString(std::uint32_t)> describe)
{
    data_ = std::move(timeline);
    describe_ = std::move(describe);
    collapsed_.clear();
    selection_.reset();
    matches_.clear();
    currentMatch_ = -1;
    revealed_.reset();
    flowIndex_ = {};
    if (data_) {
        std::size_t streams = 0;
        for (std::size_t r = 0; r < data_->rows.rowCount(); ++r)
            streams += data_->rowKind(r) == TimelineRowKind::Ops ? 1 : 0;
        collapsed_.assign(data_->rows.rowCount(), streams > kCollapseAbove);
        for (std::size_t f = 0; f < data_->flows.size(); ++f)
            flowIndex_.addSpan(0, { data_->flows[f].from, data_->flows[f].to, static_cast<std::uint32_t>(f), 0 });
        flowIndex_.finish();
    }
    scrollY_ = 0;
    relayout();
    rebuildMarks();
    resetZoom();
    updateGeometry();
    emit selectionChanged();
}

void TimelineView::relayout()
{
    if (data_) {
        std::vector<TimelineRowKind> kinds = data_->rowKinds;
        kinds.resize(data_->rows.rowCount(), TimelineRowKind::Ops);
        layout_ = RowLayout(kinds, collapsed_, kRowHeight, kKernelRowHeight);
    } else
        layout_ = RowLayout();
    updateScrollBar();
    update();
}

int TimelineView::maxScrollY() const
{
    return std::max(0, layout_.contentHeight() + 4 - (height() - kRulerHeight));
}

void TimelineView::updateScrollBar()
{
    const int page = std::max(1, height() - kRulerHeight);
    const int max = maxScrollY();
    scrollY_ = std::clamp(scrollY_, 0, max);
    scrollBar_->setGeometry(width() - rightMargin(), kRulerHeight, rightMargin(), std::max(1, height() - kRulerHeight));
    const QSignalBlocker block(scrollBar_);
    scrollBar_->setRange(0, max);
    scrollBar_->setPageStep(page);
    scrollBar_->setSingleStep(kRowHeight);
    scrollBar_->setValue(scrollY_);
    scrollBar_->setVisible(max > 0);
}

void TimelineView::setScrollY(int y)
{
    y = std::clamp(y, 0, maxScrollY());
    if (y == scrollY_)
        return;
    scrollY_ = y;
    const QSignalBlocker block(scrollBar_);
    scrollBar_->setValue(y);
    update();
}

void TimelineView::ensureRowVisible(std::size_t row)
{
    if (row >= layout_.rowCount())
        return;
    const int page = height() - kRulerHeight;
    const int top = layout_.top(row), bottom = layout_.bottom(row);
    if (top < scrollY_)
        setScrollY(top);
    else if (bottom > scrollY_ + page)
        setScrollY(bottom - page + 2);
}

void TimelineView::setCollapsed(std::size_t row, bool collapsed)
{
    if (row >= collapsed_.size() || collapsed_[row] == collapsed)
        return;
    collapsed_[row] = collapsed;
    relayout();
}

void TimelineView::setAllCollapsed(bool collapsed)
{
    std::fill(collapsed_.begin(), collapsed_.end(), collapsed);
    relayout();
}

void TimelineView::setSelection(double t0, double t1)
{
    if (!data_)
        return;
    const double a = std::clamp(std::min(t0, t1), 0.0, viewEnd());
    const double b = std::clamp(std::max(t0, t1), 0.0, viewEnd());
    selection_ = std::make_pair(a, b);
    update();
    emit selectionChanged();
}

void TimelineView::clearSelection()
{
    if (!selection_)
        return;
    selection_.reset();
    update();
    emit selectionChanged();
}

void TimelineView::resetZoom()
{
    applyAxis(TimeAxis(0.0, viewEnd(), plotWidth()));
}

void TimelineView::zoomToSelection()
{
    if (!selection_ || !(selection_->second > selection_->first))
        return;
    applyAxis(TimeAxis(selection_->first, selection_->second, plotWidth()));
}

void TimelineView::zoomBy(double factor)
{
    double anchor = plotWidth() / 2;
    if (cursorTime_)
        anchor = axis_.toX(*cursorTime_);
    applyAxis(axis_.zoomed(factor, anchor));
}

void TimelineView::zoomAt(double factor, double plotX)
{
    applyAxis(axis_.zoomed(factor, plotX));
}

void TimelineView::panBy(double fraction)
{
    applyAxis(axis_.panned(fraction * plotWidth()));
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
    axis = axis.resized(plotWidth()).clamped(0.0, viewEnd());
    if (axis == axis_)
        return;
    axis_ = axis;
    update();
    emit axisChanged(axis_);
}

QSize TimelineView::sizeHint() const
{
    // Room for a few streams before any data, so the dock does not open as a sliver; at most a
    // dozen streams' worth, beyond which the rows scroll.
    const int rows = std::clamp(layout_.contentHeight() + 4, 6 * kRowHeight, 12 * (kRowHeight + kKernelRowHeight));
    return { 800, kRulerHeight + rows };
}

QSize TimelineView::minimumSizeHint() const
{
    return { kLabelWidth + 100, kRulerHeight + kRowHeight + 4 };
}

QSize TimelineView::fullSize() const
{
    return { width(), kRulerHeight + layout_.contentHeight() + 4 };
}

void TimelineView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    render(p, size());
}

void TimelineView::render(QPainter& p, const QSize& size, int scrollY) const
{
    p.fillRect(QRect(QPoint(0, 0), size), palette().base());
    const TimeAxis axis = axis_.resized(std::max(1, size.width() - kLabelWidth - rightMargin()));
    if (!data_) {
        p.setPen(palette().placeholderText().color());
        p.drawText(QRect(QPoint(0, 0), size), Qt::AlignCenter,
            tr("Run a scheduler (Ctrl+R) or select a stored run to see its timeline"));
        return;
    }
    if (scrollY < 0)
        scrollY = scrollY_;
    p.save();
    p.setClipRect(QRectF(0, kRulerHeight, size.width(), size.height() - kRulerHeight));

    drawStageBands(p, axis, size.height());
    drawRows(p, axis, scrollY, size.height());
    if (showFlows_)
        drawFlows(p, axis, scrollY, size.height());

    drawSelectionAndCursor(p, axis, size.height());
    p.restore();
    drawRuler(p, axis, size.width());
}

// Stage bands, alternating shades, behind everything.
void TimelineView::drawStageBands(QPainter& p, const TimeAxis& axis, int height) const
{
    for (std::size_t s = 0; s < data_->stages.size(); ++s) {
        const auto [t0, t1] = data_->stages[s];
        if (!axis.overlaps(t0, t1))
            continue;
        const double x0 = kLabelWidth + std::max(0.0, axis.toX(t0));
        const double x1 = kLabelWidth + std::min(axis.width(), axis.toX(t1));
        p.fillRect(QRectF(x0, kRulerHeight, std::max(1.0, x1 - x0), height - kRulerHeight),
            s % 2 ? QColor(240, 243, 248) : QColor(228, 233, 242));
    }
}

// Each visible row: its label, then its spans (folded where too small), outlined where marked.
void TimelineView::drawRows(QPainter& p, const TimeAxis& axis, int scrollY, int height) const
{
    const int rowsTop = kRulerHeight - scrollY; // widget y of content y 0
    const double plotRight = kLabelWidth + axis.width();
    const QFont normal = p.font();
    const QFontMetrics fm(normal);
    QFont small = normal;
    small.setPointSizeF(small.pointSizeF() * 0.85);
    const QFontMetrics smallFm(small);
    const bool marked = !marks_.empty();
    const auto [firstRow, lastRow] = layout_.rowsIn(scrollY, scrollY + height - kRulerHeight);
    for (std::size_t row = firstRow; row < lastRow && row < data_->rows.rowCount(); ++row) {
        if (!layout_.shown(row))
            continue;
        // Rows under a stream (kernels, or a mapping's arriving transfers) are drawn smaller.
        const bool kernelRow = data_->rowKind(row) != TimelineRowKind::Ops;
        const bool transferRow = data_->rowKind(row) == TimelineRowKind::Transfers;
        std::optional<QColor> deviceColour;
        if (data_->coloursByDevice && row < data_->rowStreams.size() && data_->rowStreams[row] >= 0)
            deviceColour = groupColour(static_cast<int>(data_->rowStreams[row]));
        const int y = rowsTop + layout_.top(row);
        const int h = layout_.height(row);
        if (!kernelRow && row > 0) {
            p.setPen(QColor(0, 0, 0, 18)); // a faint line between streams
            p.drawLine(QPointF(0, y), QPointF(plotRight, y));
        }
        p.setFont(kernelRow ? small : normal);
        p.setPen(kernelRow ? palette().placeholderText().color() : palette().text().color());
        QString label = QString::fromStdString(row < data_->rowNames.size() ? data_->rowNames[row] : std::string());
        if (!kernelRow && layout_.hasChildren(row))
            label = (layout_.isCollapsed(row) ? QStringLiteral("▸ ") : QStringLiteral("▾ ")) + label;
        else if (!kernelRow)
            label = QStringLiteral("  ") + label;
        p.drawText(QRect(4, y, kLabelWidth - 8, h - 4), Qt::AlignVCenter | Qt::AlignLeft, label);
        const auto& spans = data_->rows.row(row);
        const std::vector<std::uint8_t>* rowMarks
            = marked && row < marks_.size() && !marks_[row].empty() ? &marks_[row] : nullptr;
        for (const DrawItem& item : data_->rows.layout(row, axis)) {
            const double x0 = kLabelWidth + std::max(0.0, item.x0);
            const double x1 = kLabelWidth + std::min(axis.width(), item.x1);
            const QRectF box(x0, y + 1, std::max(1.0, x1 - x0), h - 6);
            std::uint8_t mark = 0;
            if (rowMarks)
                for (std::uint32_t i = item.first; i < item.first + item.count; ++i)
                    mark |= (*rowMarks)[i];
            if (item.count > 1)
                p.fillRect(box, QColor(150, 150, 150)); // folded: many spans too small to show
            else {
                const TimelineSpan& s = spans[item.first];
                // Kernels a shade darker than their ops, so the rows read apart. Transfers in one
                // colour of their own (Nsight's memcpy rows); on a mapping's timeline, where every
                // span takes its device's colour (the DAG's), hatched in the receiving device's.
                const QColor fill = deviceColour ? *deviceColour : spanColour(s.colour);
                if (transferRow && deviceColour)
                    p.fillRect(box, QBrush(deviceColour->darker(130), Qt::BDiagPattern));
                else
                    p.fillRect(box, transferRow ? QColor(150, 135, 200) : kernelRow ? fill.darker(115) : fill);
                // Text only where it fits: no labels on tiny boxes.
                if (box.width() > 30) {
                    const QString name = spanName(row, s);
                    p.setPen(Qt::black);
                    // Op names keep their distinctive end (as in the DAG); kernel names, whose
                    // start is the function and end its template arguments, lose their middle.
                    const int room = static_cast<int>(box.width()) - 5;
                    p.drawText(box.adjusted(3, 0, -2, 0), Qt::AlignVCenter | Qt::AlignLeft,
                        kernelRow ? smallFm.elidedText(name, Qt::ElideMiddle, room) : fitName(name, fm, room));
                }
            }
            if (mark) {
                // Outlines: the current search match, the revealed op, matches, the critical path.
                QColor colour = mark & kCurrent ? QColor(255, 140, 0)
                    : mark & kRevealed          ? QColor(20, 20, 20)
                    : mark & kMatch             ? QColor(200, 30, 160)
                                                : QColor(220, 30, 30);
                p.setPen(QPen(colour, mark & (kCurrent | kRevealed) ? 2.5 : 1.8));
                p.setBrush(Qt::NoBrush);
                p.drawRect(box.adjusted(0.5, 0.5, -0.5, -0.5));
            }
        }
    }
}

void TimelineView::drawSelectionAndCursor(QPainter& p, const TimeAxis& axis, int height) const
{
    const double plotRight = kLabelWidth + axis.width();
    if (selection_) {
        const double x0 = kLabelWidth + std::clamp(axis.toX(selection_->first), 0.0, axis.width());
        const double x1 = kLabelWidth + std::clamp(axis.toX(selection_->second), 0.0, axis.width());
        p.fillRect(QRectF(x0, kRulerHeight, std::max(1.0, x1 - x0), height - kRulerHeight), kSelectionFill);
        p.setPen(QPen(kSelectionEdge, 1));
        for (double x : { x0, x1 })
            if (x > kLabelWidth && x < plotRight)
                p.drawLine(QPointF(x, kRulerHeight), QPointF(x, height));
    }
    if (cursorTime_ && axis.overlaps(*cursorTime_, *cursorTime_)) {
        const double x = kLabelWidth + axis.toX(*cursorTime_);
        p.setPen(QPen(kCursor, 1, Qt::DashLine));
        p.drawLine(QPointF(x, kRulerHeight), QPointF(x, height));
    }
}

void TimelineView::drawFlows(QPainter& p, const TimeAxis& axis, int scrollY, int height) const
{
    if (data_->flows.empty() || flowIndex_.rowCount() == 0)
        return;
    const auto [first, last] = flowIndex_.visible(0, axis.start(), axis.end());
    const int rowsTop = kRulerHeight - scrollY;
    auto centre = [&](std::uint32_t row) { return rowsTop + layout_.top(row) + (layout_.height(row) - 4) / 2.0; };
    // Flows landing on the same pixels (same rows, both ends within 2 px) are drawn once, so a
    // whole run's arrows cost what the screen can show; beyond a few hundred, straight lines
    // without heads in one batch.
    std::unordered_set<std::uint64_t> seen;
    std::vector<QLineF> lines;
    std::vector<bool> joins;
    const auto& spans = flowIndex_.row(0);
    for (std::size_t i = first; i < last; ++i) {
        const TimelineFlow& f = data_->flows[spans[i].id];
        if (f.fromRow >= layout_.rowCount() || f.toRow >= layout_.rowCount())
            continue; // a flow naming a row the timeline does not have
        const double x0 = kLabelWidth + axis.toX(f.from), x1 = kLabelWidth + axis.toX(f.to);
        const double y0 = centre(f.fromRow), y1 = centre(f.toRow);
        if ((y0 < kRulerHeight && y1 < kRulerHeight) || (y0 > height && y1 > height))
            continue;
        const auto key = (static_cast<std::uint64_t>(f.fromRow) * 2654435761ULL)
            ^ (static_cast<std::uint64_t>(f.toRow) << 20)
            ^ (static_cast<std::uint64_t>(std::clamp(x0, -1e4, 1e5) / 2 + 1e4) << 32)
            ^ (static_cast<std::uint64_t>(std::clamp(x1, -1e4, 1e5) / 2 + 1e4) << 46);
        if (seen.insert(key).second) {
            lines.emplace_back(x0, y0, x1, y1);
            joins.push_back(f.join);
        }
    }
    if (lines.size() > 400) {
        p.setPen(QPen(QColor(30, 30, 30, 90), 1));
        p.drawLines(lines.data(), static_cast<int>(lines.size()));
        return;
    }
    p.setRenderHint(QPainter::Antialiasing, true);
    // Waits solid, stage joins dashed.
    const QPen pen(QColor(30, 30, 30, 170), 1.2);
    const QPen joinPen(QColor(30, 30, 30, 150), 1.2, Qt::DashLine);
    const QColor head(30, 30, 30, 200);
    for (std::size_t i = 0; i < lines.size(); ++i) {
        const QLineF& l = lines[i];
        QPainterPath path(l.p1());
        const double bend = std::max(8.0, l.dx() / 2);
        path.cubicTo(l.p1() + QPointF(bend, 0), l.p2() - QPointF(bend, 0), l.p2());
        p.setPen(joins[i] ? joinPen : pen);
        p.setBrush(Qt::NoBrush);
        p.drawPath(path);
        // Arrow head pointing into the waiting op.
        p.setPen(Qt::NoPen);
        p.setBrush(head);
        const QPointF tip = l.p2();
        p.drawPolygon(QPolygonF({ tip, tip + QPointF(-6, -3.5), tip + QPointF(-6, 3.5) }));
    }
    p.setRenderHint(QPainter::Antialiasing, false);
}

void TimelineView::rebuildMarks()
{
    marks_.clear();
    if (!data_)
        return;
    const bool any = !matches_.empty() || (showCritical_ && !data_->criticalPath.empty()) || revealed_;
    if (!any)
        return;
    marks_.resize(data_->rows.rowCount());
    auto mark = [&](std::size_t row, std::size_t index, std::uint8_t bit) {
        auto& m = marks_[row];
        if (m.empty())
            m.assign(data_->rows.row(row).size(), 0);
        m[index] |= bit;
    };
    for (std::size_t i = 0; i < matches_.size(); ++i)
        mark(matches_[i].row, matches_[i].index,
            static_cast<std::uint8_t>(kMatch | (static_cast<int>(i) == currentMatch_ ? kCurrent : 0)));
    if ((showCritical_ && !data_->criticalPath.empty()) || revealed_) {
        std::vector<std::uint32_t> critical = showCritical_ ? data_->criticalPath : std::vector<std::uint32_t> {};
        std::sort(critical.begin(), critical.end());
        for (std::size_t r = 0; r < data_->rows.rowCount(); ++r) {
            if (data_->rowKind(r) != TimelineRowKind::Ops)
                continue;
            const auto& spans = data_->rows.row(r);
            for (std::size_t i = 0; i < spans.size(); ++i) {
                if (std::binary_search(critical.begin(), critical.end(), spans[i].id))
                    mark(r, i, kCritical);
                if (revealed_ && spans[i].id == *revealed_)
                    mark(r, i, kRevealed);
            }
        }
    }
}

int TimelineView::setSearchText(const QString& text)
{
    const QString needle = text.trimmed();
    return setMatches([&](std::size_t row, const TimelineSpan& span) {
        return !needle.isEmpty() && spanName(row, span).contains(needle, Qt::CaseInsensitive);
    });
}

int TimelineView::setHighlightedOps(const std::vector<std::uint32_t>& ops)
{
    return setMatches([&](std::size_t row, const TimelineSpan& span) {
        return data_->rowKind(row) == TimelineRowKind::Ops && std::binary_search(ops.begin(), ops.end(), span.id);
    });
}

int TimelineView::setMatches(const std::function<bool(std::size_t row, const TimelineSpan& span)>& matches)
{
    matches_.clear();
    currentMatch_ = -1;
    if (data_)
        for (std::size_t r = 0; r < data_->rows.rowCount(); ++r) {
            const auto& spans = data_->rows.row(r);
            for (std::size_t i = 0; i < spans.size(); ++i)
                if (matches(r, spans[i]))
                    matches_.push_back({ spans[i].start, r, i });
        }
    std::stable_sort(
        matches_.begin(), matches_.end(), [](const Match& a, const Match& b) { return a.start < b.start; });
    rebuildMarks();
    update();
    emit searchMoved(currentMatch_, matchCount());
    return matchCount();
}

void TimelineView::stepMatch(int delta)
{
    if (matches_.empty())
        return;
    const int n = matchCount();
    currentMatch_ = currentMatch_ < 0 ? (delta > 0 ? 0 : n - 1) : ((currentMatch_ + delta) % n + n) % n;
    const Match& m = matches_[static_cast<std::size_t>(currentMatch_)];
    const TimelineSpan& s = data_->rows.row(m.row)[m.index];
    // A match in a collapsed stream's kernel row opens the stream.
    const int stream = layout_.streamRow(m.row);
    if (stream >= 0 && static_cast<std::size_t>(stream) != m.row)
        setCollapsed(static_cast<std::size_t>(stream), false);
    rebuildMarks();
    bringIntoView(m.row, s.start, s.end);
    update();
    emit searchMoved(currentMatch_, n);
}

void TimelineView::bringIntoView(std::size_t row, double t0, double t1)
{
    ensureRowVisible(row);
    const double margin = axis_.duration() * 0.05;
    if (t0 >= axis_.start() + margin && t1 <= axis_.end() - margin)
        return;
    if (t1 - t0 < axis_.duration() * 0.8) {
        // Centre it at the current zoom.
        const double mid = (t0 + t1) / 2;
        applyAxis(TimeAxis(mid - axis_.duration() / 2, mid + axis_.duration() / 2, plotWidth()));
    } else {
        const double pad = (t1 - t0) * 0.1;
        applyAxis(TimeAxis(t0 - pad, t1 + pad, plotWidth()));
    }
}

bool TimelineView::revealOp(std::uint32_t op)
{
    revealed_ = op;
    rebuildMarks();
    update();
    if (!data_)
        return false;
    for (std::size_t r = 0; r < data_->rows.rowCount(); ++r) {
        if (data_->rowKind(r) != TimelineRowKind::Ops)
            continue;
        for (const auto& s : data_->rows.row(r))
            if (s.id == op) {
                bringIntoView(r, s.start, s.end);
                return true;
            }
    }
    return false;
}

void TimelineView::setShowFlows(bool show)
{
    showFlows_ = show;
    update();
}

void TimelineView::setShowCriticalPath(bool show)
{
    showCritical_ = show;
    rebuildMarks();
    update();
}

} // namespace opsched
