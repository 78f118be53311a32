#include "dag/dag_view.h"

#include "common/group_colour.h"
#include "common/name_fit.h"
#include "graph/column_wrap.h"
#include "timeline/timeline_view.h" // spanColour: the same colour per op kind as the timeline

#include <QHelpEvent>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QThread>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <exception>
#include <iterator>

namespace opsched {
namespace {

constexpr double kMargin = 16; // pixels around the fitted graph
constexpr double kMaxScale = 4.0;
constexpr double kMaxFitScale = 1.0;
constexpr double kMinTextWidth = 36; // pixels: narrower boxes get no label

LayeredLayoutOptions layoutOptions()
{
    LayeredLayoutOptions o;
    o.nodeWidth = 150;
    o.nodeHeight = 40;
    o.nodeGap = 24;
    o.edgeGap = 10;
    o.layerGap = 44;
    return o;
}

QColor edgeColour()
{
    return { 138, 144, 156 };
}

void drawArrowHead(QPainter& p, const QPointF& from, const QPointF& tip, double size)
{
    const QPointF d = tip - from;
    const double len = std::hypot(d.x(), d.y());
    if (len < 1e-9)
        return;
    const QPointF u = d / len;
    const QPointF n(-u.y(), u.x());
    const QPointF base = tip - u * size;
    const QPointF head[3] = { tip, base + n * (size * 0.45), base - n * (size * 0.45) };
    p.drawPolygon(head, 3);
}

// Whether `name` shows whole or as its whole distinct ending in `width` pixels.
bool fitsWell(const QString& name, const QString& distinct, const QFontMetrics& fm, int width)
{
    const QString fitted = fitName(name, distinct, fm, width);
    return !fitted.isEmpty() && !fitted.startsWith(QStringLiteral("…"));
}

} // namespace

QString dagBoxLabel(const QString& name, const QString& tag, const QFontMetrics& fm, int width, const QString& distinct)
{
    // The name, with the stage/group tag when both fit well; otherwise the name alone (the colour
    // gives the stage, the tooltip the rest); the tag alone when no name fits.
    if (!tag.isEmpty() && fitsWell(name, distinct, fm, width - fm.horizontalAdvance(tag)))
        return fitName(name, distinct, fm, width - fm.horizontalAdvance(tag)) + tag;
    QString line = fitName(name, distinct, fm, width);
    const QString bare = tag.startsWith(QStringLiteral(" · ")) ? tag.mid(3) : tag;
    if (line.isEmpty() && !bare.isEmpty() && fm.horizontalAdvance(bare) <= width)
        line = bare;
    return line;
}

DagView::DagView(QWidget* parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus);
    setMinimumSize(120, 80);
}

DagView::~DagView()
{
    // Layouts are short (milliseconds); let a running one finish instead of leaving it behind.
    for (QThread* worker : workers_) {
        worker->wait();
        delete worker;
    }
}

void DagView::setGraph(std::shared_ptr<const Graph> graph)
{
    graph_ = std::move(graph);
    distinct_.clear();
    if (graph_) { // what tells each op's name apart, for boxes too narrow for the whole name
        std::vector<QString> names;
        for (const Op& op : graph_->ops())
            names.push_back(QString::fromStdString(op.name));
        distinct_ = distinctEndings(names);
    }
    layout_.reset();
    unwrapped_.reset();
    layoutFailed_ = false;
    layers_.clear();
    edgeBounds_.clear();
    placement_.clear();
    stageCount_ = 0;
    selected_ = OpId();
    autoFit_ = true;
    ++generation_;
    update();
    if (!graph_)
        return;

    // The worker reads only the immutable graph and writes only `result`, which the GUI thread
    // reads after `finished`.
    auto result = std::make_shared<std::shared_ptr<const LayeredLayout>>();
    QThread* worker = QThread::create([graph = graph_, result] {
        try {
            *result = std::make_shared<const LayeredLayout>(layeredLayout(graph->dag(), layoutOptions()));
        } catch (const std::exception&) {
            // left empty: reported as a failed layout
        }
    });
    workers_.push_back(worker);
    const std::uint64_t generation = generation_;
    connect(worker, &QThread::finished, this, [this, worker, generation, result] {
        workers_.erase(std::remove(workers_.begin(), workers_.end(), worker), workers_.end());
        worker->deleteLater();
        if (generation != generation_)
            return; // a newer graph was set meanwhile
        if (*result) {
            unwrapped_ = *result;
            wrapForViewShape();
        } else {
            layoutFailed_ = true;
            update();
        }
    });
    worker->start();
}

double DagView::viewAspect() const
{
    return width() > 50 && height() > 50 ? static_cast<double>(width()) / height() : ColumnWrapOptions {}.aspect;
}

void DagView::wrapForViewShape()
{
    // Tall graphs (a transformer's repeated layers) fold into side-by-side columns, as many as let
    // the drawing be shown largest in this view as it is now (cheap next to the layout itself).
    ColumnWrapOptions wrap;
    wrap.aspect = viewAspect();
    wrappedAspect_ = wrap.aspect;
    applyLayout(std::make_shared<const LayeredLayout>(wrapIntoColumns(*unwrapped_, wrap)));
}

void DagView::applyLayout(std::shared_ptr<const LayeredLayout> layout)
{
    layout_ = std::move(layout);
    // Rows as drawn (several layers share a row when the layout wraps into columns).
    const double pitch = layout_->options.nodeHeight + layout_->options.layerGap;
    auto rowOf
        = [&](std::uint32_t v) { return static_cast<std::size_t>(std::max(0L, std::lround(layout_->top(v) / pitch))); };
    layers_.clear();
    for (std::uint32_t v = 0; v < layout_->nodes.size(); ++v) {
        const std::size_t row = rowOf(v);
        if (row >= layers_.size())
            layers_.resize(row + 1);
        layers_[row].push_back(v);
    }
    for (auto& layer : layers_)
        std::sort(layer.begin(), layer.end(),
            [&](std::uint32_t a, std::uint32_t b) { return layout_->nodes[a].x < layout_->nodes[b].x; });
    edgeBounds_.clear();
    edgeBounds_.reserve(layout_->edges.size());
    for (const LayoutEdge& e : layout_->edges) {
        double x0 = e.points.front().x, x1 = x0;
        for (const LayoutPoint& p : e.points) {
            x0 = std::min(x0, p.x);
            x1 = std::max(x1, p.x);
        }
        edgeBounds_.emplace_back(QPointF(x0, e.points.front().y), QPointF(x1, e.points.back().y));
    }
    if (autoFit_)
        fitToView();
    update();
    emit layoutReady();
}

void DagView::setDevices(std::vector<int> deviceOf, std::vector<std::string> names, std::string title)
{
    deviceTitle_ = std::move(title);
    placement_.clear();
    stageCount_ = 0;
    deviceOf_ = graph_ && deviceOf.size() == graph_->opCount() ? std::move(deviceOf) : std::vector<int> {};
    deviceNames_ = std::move(names);
    update();
}

int DagView::deviceOf(OpId op) const
{
    return hasDevices() && op.valid() && op.value() < deviceOf_.size() ? deviceOf_[op.value()] : -1;
}

void DagView::setSchedule(const Schedule* schedule)
{
    deviceOf_.clear();
    deviceNames_.clear();
    placement_.clear();
    stageCount_ = 0;
    if (schedule && graph_) {
        placement_.assign(graph_->opCount(), Placement {});
        for (std::size_t s = 0; s < schedule->stages.size(); ++s) {
            const Stage& stage = schedule->stages[s];
            for (std::size_t g = 0; g < stage.groups.size(); ++g)
                for (OpId op : stage.groups[g])
                    if (op.valid() && op.value() < placement_.size())
                        placement_[op.value()]
                            = { static_cast<int>(s), static_cast<int>(g), stage.strategy == StageStrategy::Merge };
        }
        stageCount_ = static_cast<int>(schedule->stages.size());
    }
    update();
}

int DagView::stageOf(OpId op) const
{
    return hasSchedule() && op.valid() && op.value() < placement_.size() ? placement_[op.value()].stage : -1;
}

int DagView::groupOf(OpId op) const
{
    return hasSchedule() && op.valid() && op.value() < placement_.size() ? placement_[op.value()].group : -1;
}

QColor DagView::opColour(OpId op) const
{
    if (!graph_ || !op.valid() || op.value() >= graph_->opCount())
        return {};
    if (hasDevices())
        return groupColour(deviceOf(op));
    if (hasSchedule())
        return groupColour(stageOf(op));
    return spanColour(static_cast<std::uint32_t>(graph_->op(op).kind));
}

void DagView::selectOp(OpId op)
{
    if (!graph_ || !op.valid() || op.value() >= graph_->opCount())
        op = OpId();
    if (op == selected_)
        return;
    selected_ = op;
    if (selected_.valid() && layout_) {
        const QRectF box = opRect(selected_);
        if (!rect().toRectF().contains(box)) {
            // Centre it, at a scale where its label can be read.
            const double s = std::max(scale_, std::min(1.0, 0.8 * width() / layout_->options.nodeWidth));
            const QPointF centre(layout_->nodes[selected_.value()].x, layout_->nodes[selected_.value()].y);
            setTransform(s, QPointF(width() / 2.0, height() / 2.0) - centre * s);
        }
    }
    update();
}

QRectF DagView::opRect(OpId op) const
{
    if (!layout_ || !op.valid() || op.value() >= layout_->nodes.size())
        return {};
    const std::uint32_t v = op.value();
    return { mapFromLayout({ layout_->left(v), layout_->top(v) }),
        mapFromLayout({ layout_->right(v), layout_->bottom(v) }) };
}

OpId DagView::opAt(const QPointF& widgetPos) const
{
    if (!layout_ || layers_.empty())
        return {};
    const QPointF p = mapToLayout(widgetPos);
    const LayeredLayoutOptions& o = layout_->options;
    const double pitch = o.nodeHeight + o.layerGap;
    if (p.y() < 0)
        return {};
    const auto layer = static_cast<std::size_t>(p.y() / pitch);
    if (layer >= layers_.size() || p.y() - static_cast<double>(layer) * pitch > o.nodeHeight)
        return {};
    const auto& row = layers_[layer];
    // Boxes of a layer are sorted by x and do not overlap: the first whose right side is past p.
    const auto it = std::lower_bound(
        row.begin(), row.end(), p.x(), [&](std::uint32_t v, double x) { return layout_->right(v) < x; });
    if (it != row.end() && layout_->left(*it) <= p.x())
        return OpId(*it);
    return {};
}

DagView::ViewTransform DagView::fitTransform(const QSize& size) const
{
    if (!layout_ || layout_->width <= 0 || layout_->height <= 0)
        return { 1.0, { kMargin, kMargin } };
    const double w = std::max(1.0, size.width() - 2 * kMargin);
    // The legend at the bottom is left free (all its lines: it wraps when the view is narrow).
    const double legend = legendRect(size).height() + 6;
    const double h = std::max(1.0, size.height() - 2 * kMargin - legend);
    const double s = std::min({ w / layout_->width, h / layout_->height, kMaxFitScale });
    // Centred horizontally, and vertically in the room above the legend.
    const double x = (size.width() - layout_->width * s) / 2;
    const double y = std::max(kMargin, (size.height() - legend - layout_->height * s) / 2);
    return { s, { x, y } };
}

void DagView::fitToView()
{
    const ViewTransform t = fitTransform(size());
    scale_ = t.scale;
    offset_ = t.offset;
    autoFit_ = true;
    update();
}

void DagView::setTransform(double scale, const QPointF& offset)
{
    scale_ = scale;
    offset_ = offset;
    autoFit_ = false;
    update();
}

void DagView::zoomBy(double factor, const QPointF& anchor)
{
    const double minScale = std::min(fitTransform(size()).scale, kMaxFitScale) / 4;
    const double s = std::clamp(scale_ * factor, minScale, kMaxScale);
    const QPointF at = mapToLayout(anchor);
    setTransform(s, anchor - at * s);
}

QString DagView::distinctName(OpId op) const
{
    return op.value() < distinct_.size() ? distinct_[op.value()] : QString();
}

QString DagView::label(OpId op, bool longForm) const
{
    const Op& o = graph_->op(op);
    if (!longForm)
        return QString::fromStdString(o.name);
    if (hasSchedule()) {
        const Placement& pl = placement_[op.value()];
        if (pl.stage < 0)
            return tr("not scheduled");
        return pl.merged ? tr("stage %1, merged").arg(pl.stage) : tr("stage %1, group %2").arg(pl.stage).arg(pl.group);
    }
    return QString::fromUtf8(toString(o.kind));
}

QString DagView::describe(OpId op) const
{
    const Op& o = graph_->op(op);
    QString text = QStringLiteral("%1\n%2, %3")
                       .arg(QString::fromStdString(o.name), QString::fromUtf8(toString(o.kind)),
                           QString::fromStdString(graph_->tensor(o.output).shape.toString()));
    if (hasSchedule())
        text += QLatin1Char('\n') + label(op, true);
    return text;
}

void DagView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    render(p, size());
}

void DagView::render(QPainter& p, const QSize& size) const
{
    renderWith(p, size, autoFit_ && size != this->size() ? fitTransform(size) : ViewTransform { scale_, offset_ });
}

void DagView::renderWith(QPainter& p, const QSize& size, const ViewTransform& t) const
{
    p.save();
    p.fillRect(QRect(QPoint(0, 0), size), palette().base());
    if (!graph_ || !layout_) {
        const QString message = !graph_ ? tr("No model")
            : layoutFailed_             ? tr("The graph cannot be laid out")
                                        : tr("Laying out %1 ops…").arg(graph_->opCount());
        p.setPen(palette().placeholderText().color());
        p.drawText(QRect(QPoint(0, 0), size), Qt::AlignCenter, message);
        p.restore();
        return;
    }

    drawEdges(p, size, t);
    drawBoxes(p, size, t);
    drawLegend(p, size);
    p.restore();
}

// Edges first, boxes over them. The selected op's edges last, highlighted.
void DagView::drawEdges(QPainter& p, const QSize& size, const ViewTransform& t) const
{
    const double s = t.scale;
    auto map = [&](double x, double y) { return QPointF(x * s + t.offset.x(), y * s + t.offset.y()); };
    const QRectF visible(QPointF(-t.offset.x() / s, -t.offset.y() / s), QSizeF(size.width() / s, size.height() / s));
    p.setRenderHint(QPainter::Antialiasing, true);
    const double arrow = std::clamp(9 * s, 0.0, 9.0);
    const QColor highlight = palette().highlight().color();
    auto drawEdge = [&](std::size_t i, const QColor& colour, double width) {
        const LayoutEdge& e = layout_->edges[i];
        QPolygonF line;
        line.reserve(static_cast<qsizetype>(e.points.size()));
        for (const LayoutPoint& pt : e.points)
            line << map(pt.x, pt.y);
        p.setPen(QPen(colour, width));
        p.setBrush(Qt::NoBrush);
        p.drawPolyline(line);
        if (arrow >= 3) {
            p.setPen(Qt::NoPen);
            p.setBrush(colour);
            drawArrowHead(p, line[line.size() - 2], line.back(), arrow);
        }
    };
    std::vector<std::size_t> selectedEdges;
    for (std::size_t i = 0; i < layout_->edges.size(); ++i) {
        if (!edgeBounds_[i].adjusted(-1, -1, 1, 1).intersects(visible))
            continue;
        const LayoutEdge& e = layout_->edges[i];
        if (selected_.valid() && (e.from == selected_.value() || e.to == selected_.value())) {
            selectedEdges.push_back(i);
            continue;
        }
        drawEdge(i, edgeColour(), 1.0);
    }
    for (std::size_t i : selectedEdges)
        drawEdge(i, highlight, 2.0);
}

// Boxes, with labels where they fit: the name, and the kind or the stage and group below it.
void DagView::drawBoxes(QPainter& p, const QSize& size, const ViewTransform& t) const
{
    const QFontMetrics fm(p.font());
    const double s = t.scale;
    auto map = [&](double x, double y) { return QPointF(x * s + t.offset.x(), y * s + t.offset.y()); };
    const LayeredLayoutOptions& o = layout_->options;
    const QColor highlight = palette().highlight().color();
    const double boxW = o.nodeWidth * s;
    const double boxH = o.nodeHeight * s;
    const bool oneLine = boxW >= kMinTextWidth && boxH >= fm.height() + 2;
    const bool twoLines = boxW >= 60 && boxH >= 2 * fm.height() + 4;
    const bool rounded = boxW >= 12 && boxH >= 6;
    p.setRenderHint(QPainter::Antialiasing, rounded);
    QFont small = p.font();
    small.setPointSizeF(small.pointSizeF() * 0.85);
    const QFontMetrics smallFm(small);
    for (std::uint32_t v = 0; v < layout_->nodes.size(); ++v) {
        const QRectF box(map(layout_->left(v), layout_->top(v)), map(layout_->right(v), layout_->bottom(v)));
        if (!box.intersects(QRectF(QPointF(0, 0), QSizeF(size))))
            continue;
        const OpId op(v);
        const QColor fill = opColour(op);
        const bool isSelected = op == selected_;
        if (rounded) {
            p.setPen(isSelected ? QPen(highlight, 3) : QPen(fill.darker(150), 1));
            p.setBrush(fill);
            const double r = std::min(5.0, boxH / 4);
            p.drawRoundedRect(box, r, r);
        } else {
            p.fillRect(box, isSelected ? highlight : fill);
        }
        if (!oneLine)
            continue;
        const QRectF text = box.adjusted(5, 2, -5, -2);
        p.setPen(Qt::black);
        if (twoLines) {
            const QRectF top(text.left(), text.top(), text.width(), text.height() / 2);
            const QRectF bottom(text.left(), text.center().y(), text.width(), text.height() / 2);
            p.drawText(
                top, Qt::AlignCenter, fitName(label(op, false), distinctName(op), fm, static_cast<int>(text.width())));
            p.save();
            p.setFont(small);
            p.setPen(QColor(40, 40, 40));
            p.drawText(bottom, Qt::AlignCenter,
                smallFm.elidedText(label(op, true), Qt::ElideRight, static_cast<int>(text.width())));
            p.restore();
        } else {
            QString tag;
            if (hasSchedule() && placement_[v].stage >= 0)
                tag = QStringLiteral(" · %1/%2").arg(placement_[v].stage).arg(placement_[v].group);
            else if (hasDevices() && deviceOf_[v] >= 0 && static_cast<std::size_t>(deviceOf_[v]) < deviceNames_.size())
                tag = QStringLiteral(" · ")
                    + QString::fromStdString(deviceNames_[static_cast<std::size_t>(deviceOf_[v])]);
            const QString line
                = dagBoxLabel(label(op, false), tag, fm, static_cast<int>(text.width()), distinctName(op));
            p.drawText(text, Qt::AlignCenter, line);
        }
    }
}

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
        *title = tr("op kind (%1 ops, %2 layers):").arg(graph_->opCount()).arg(layout_->layerCount);
        std::vector<bool> present(static_cast<std::size_t>(kLastOpKind) + 1, false);
        for (std::uint32_t v = 0; v < graph_->opCount(); ++v)
            present[static_cast<std::size_t>(graph_->op(OpId(v)).kind)] = true;
        for (std::size_t k = 0; k < present.size(); ++k)
            if (present[k])
                entries.push_back(
                    { spanColour(static_cast<std::uint32_t>(k)), QString::fromUtf8(toString(static_cast<OpKind>(k))) });
    }
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

QSize DagView::fullSize() const
{
    if (!layout_)
        return size();
    // The whole graph at natural size (scale 1), with room for the legend below it.
    const QFontMetrics fm(font());
    return { static_cast<int>(std::ceil(layout_->width + 2 * kMargin)),
        static_cast<int>(std::ceil(layout_->height + 2 * kMargin)) + 3 * (fm.height() + 2) + 12 };
}

void DagView::renderWhole(QPainter& p, const QSize& size) const
{
    // Fitted to `size` above the legend, whatever the view shows now.
    renderWith(p, size, fitTransform(size));
}

void DagView::resizeEvent(QResizeEvent*)
{
    if (!autoFit_)
        return;
    // A view whose shape changed much (a panel docked elsewhere, a window maximised) gets the
    // columns that suit it; otherwise the drawing is only refitted.
    const double change = viewAspect() / wrappedAspect_;
    if (unwrapped_ && (change > 1.4 || change < 1 / 1.4))
        wrapForViewShape();
    else
        fitToView();
}

void DagView::wheelEvent(QWheelEvent* event)
{
    if (!layout_)
        return;
    const double steps = event->angleDelta().y() / 120.0;
    zoomBy(std::pow(1.2, steps), event->position());
    event->accept();
}

void DagView::mousePressEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton)
        return;
    // QWidget's mouseDoubleClickEvent() delivers the second press of a double click here: on
    // empty space it fits the graph (and starts no drag).
    if (event->type() == QEvent::MouseButtonDblClick) {
        if (!opAt(event->position()).valid())
            fitToView();
        return;
    }
    dragging_ = true;
    moved_ = false;
    pressPos_ = lastPos_ = event->position();
}

void DagView::mouseMoveEvent(QMouseEvent* event)
{
    if (!dragging_)
        return;
    if ((event->position() - pressPos_).manhattanLength() > 3)
        moved_ = true;
    if (moved_) {
        setTransform(scale_, offset_ + (event->position() - lastPos_));
        setCursor(Qt::ClosedHandCursor);
    }
    lastPos_ = event->position();
}

void DagView::mouseReleaseEvent(QMouseEvent* event)
{
    if (event->button() != Qt::LeftButton || !dragging_)
        return;
    dragging_ = false;
    unsetCursor();
    if (moved_)
        return;
    const OpId op = opAt(event->position());
    if (op != selected_) {
        selected_ = op;
        update();
    }
    if (op.valid())
        emit opSelected(op.value());
}

void DagView::keyPressEvent(QKeyEvent* event)
{
    const QPointF centre(width() / 2.0, height() / 2.0);
    switch (event->key()) {
    case Qt::Key_Home:
    case Qt::Key_F:
        fitToView();
        break;
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomBy(1.25, centre);
        break;
    case Qt::Key_Minus:
        zoomBy(1 / 1.25, centre);
        break;
    default:
        QWidget::keyPressEvent(event);
    }
}

bool DagView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const OpId op = opAt(help->pos());
        if (op.valid())
            QToolTip::showText(help->globalPos(), describe(op), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

} // namespace opsched
