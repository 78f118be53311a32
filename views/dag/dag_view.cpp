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
    auto scopes = std::make_shared<NameScopes>();
    if (graph_) { // what tells each op's name apart, for boxes too narrow for the whole name
        std::vector<QString> names;
        std::vector<std::string> plain;
        std::vector<int> kinds;
        for (const Op& op : graph_->ops()) {
            names.push_back(QString::fromStdString(op.name));
            plain.push_back(op.name);
            kinds.push_back(static_cast<int>(op.kind));
        }
        distinct_ = distinctEndings(names);
        try {
            *scopes = buildNameScopes(plain, kinds, graph_->dag());
        } catch (const std::exception&) {
            // a cyclic graph: no scopes; the layout reports it
        }
    }
    scopes_ = std::move(scopes);
    scopeTitles_ = scopeTitles(*scopes_);
    criticalPath_.clear();
    critical_.clear();
    expanded_ = graph_ && graph_->opCount() > groupAbove_ ? defaultExpansion(*scopes_, 48) : allExpanded(*scopes_);
    focus_ = 0;
    zoomOnto_ = -1;
    centreOn_ = OpId();
    view_.reset();
    layout_.reset();
    unwrapped_.reset();
    layoutFailed_ = false;
    layers_.clear();
    edgeBounds_.clear();
    placement_.clear();
    stageCount_ = 0;
    selected_ = OpId();
    autoFit_ = true;
    relayout();
}

void DagView::relayout()
{
    ++generation_;
    update();
    if (!graph_)
        return;

    // The worker reads only immutable inputs and writes only `result`, which the GUI thread reads
    // after `finished`.
    struct Result {
        std::shared_ptr<const ScopeView> view;
        std::shared_ptr<const LayeredLayout> layout;
    };
    auto result = std::make_shared<Result>();
    QThread* worker
        = QThread::create([graph = graph_, scopes = scopes_, expanded = expanded_, fold = foldRepeats_, result] {
              try {
                  auto view = std::make_shared<ScopeView>();
                  if (scopes->size() > 0) {
                      *view = collapseScopes(*scopes, graph->dag(), expanded, fold);
                  } else { // no scopes (a cyclic graph): one node per op, for the layout to refuse
                      view->dag = graph->dag();
                      for (std::uint32_t op = 0; op < graph->opCount(); ++op) {
                          view->nodes.push_back({ ScopeNode::Kind::Op, op, {}, { op } });
                          view->nodeOf.push_back(op);
                      }
                  }
                  result->layout = std::make_shared<const LayeredLayout>(layeredLayout(view->dag, layoutOptions()));
                  result->view = std::move(view);
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
            return; // a newer graph or view was asked for meanwhile
        if (result->layout) {
            view_ = result->view;
            unwrapped_ = result->layout;
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
    if (autoFit_ && zoomOnto_ < 0 && !centreOn_.valid())
        fitToView();
    afterLayout();
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
    if (selected_.valid() && view_ && isGroup(nodeOfOp(selected_))) {
        // Inside a closed scope: open what holds it and centre it once laid out.
        openScopesOf(selected_);
        centreOn_ = selected_;
        relayout();
        emit scopesChanged();
        return;
    }
    if (selected_.valid() && layout_) {
        const QRectF box = opRect(selected_);
        if (!rect().toRectF().contains(box)) {
            // Centre it, at a scale where its label can be read.
            const double s = std::max(scale_, std::min(1.0, 0.8 * width() / layout_->options.nodeWidth));
            const std::uint32_t v = nodeOfOp(selected_);
            const QPointF centre(layout_->nodes[v].x, layout_->nodes[v].y);
            setTransform(s, QPointF(width() / 2.0, height() / 2.0) - centre * s);
        }
    }
    update();
}

QRectF DagView::opRect(OpId op) const
{
    if (!layout_ || !view_ || !op.valid() || op.value() >= view_->nodeOf.size())
        return {};
    return nodeRect(nodeOfOp(op));
}

QRectF DagView::nodeRect(std::uint32_t v) const
{
    if (!layout_ || v >= layout_->nodes.size())
        return {};
    return { mapFromLayout({ layout_->left(v), layout_->top(v) }),
        mapFromLayout({ layout_->right(v), layout_->bottom(v) }) };
}

OpId DagView::opAt(const QPointF& widgetPos) const
{
    const int v = nodeAt(widgetPos);
    if (v < 0 || isGroup(static_cast<std::uint32_t>(v)))
        return {};
    return OpId(view_->nodes[static_cast<std::size_t>(v)].op);
}

int DagView::nodeAt(const QPointF& widgetPos) const
{
    if (!layout_ || layers_.empty())
        return -1;
    const QPointF p = mapToLayout(widgetPos);
    const LayeredLayoutOptions& o = layout_->options;
    const double pitch = o.nodeHeight + o.layerGap;
    if (p.y() < 0)
        return -1;
    const auto layer = static_cast<std::size_t>(p.y() / pitch);
    if (layer >= layers_.size() || p.y() - static_cast<double>(layer) * pitch > o.nodeHeight)
        return -1;
    const auto& row = layers_[layer];
    // Boxes of a layer are sorted by x and do not overlap: the first whose right side is past p.
    const auto it = std::lower_bound(
        row.begin(), row.end(), p.x(), [&](std::uint32_t v, double x) { return layout_->right(v) < x; });
    if (it != row.end() && layout_->left(*it) <= p.x())
        return static_cast<int>(*it);
    return -1;
}

DagView::ViewTransform DagView::fitTransform(const QSize& size) const
{
    if (!layout_ || layout_->width <= 0 || layout_->height <= 0)
        return { 1.0, { kMargin, kMargin } };
    const double w = std::max(1.0, size.width() - 2 * kMargin);
    // The legend at the bottom is left free (all its lines: it wraps when the view is narrow).
    const double legend = legendRect(size).height() + 6;
    const double crumbs = breadcrumbHeight();
    const double h = std::max(1.0, size.height() - 2 * kMargin - legend - crumbs);
    const double s = std::min({ w / layout_->width, h / layout_->height, kMaxFitScale });
    // Centred horizontally, and vertically in the room between the breadcrumb and the legend.
    const double x = (size.width() - layout_->width * s) / 2;
    const double y = crumbs + std::max(kMargin, (size.height() - crumbs - legend - layout_->height * s) / 2);
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

    drawFocusTint(p, size, t);
    drawEdges(p, size, t);
    drawBoxes(p, size, t);
    drawCriticalPath(p, size, t);
    drawLegend(p, size);
    drawBreadcrumb(p);
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
    const std::uint32_t selectedNode = selected_.valid() ? nodeOfOp(selected_) : 0;
    for (std::size_t i = 0; i < layout_->edges.size(); ++i) {
        if (!edgeBounds_[i].adjusted(-1, -1, 1, 1).intersects(visible))
            continue;
        const LayoutEdge& e = layout_->edges[i];
        if (selected_.valid() && (e.from == selectedNode || e.to == selectedNode)) {
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
        if (isGroup(v)) {
            p.setRenderHint(QPainter::Antialiasing, rounded);
            drawGroup(p, v, box, twoLines, oneLine);
            continue;
        }
        const OpId op(view_->nodes[v].op);
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
            const std::uint32_t id = op.value();
            if (hasSchedule() && placement_[id].stage >= 0)
                tag = QStringLiteral(" · %1/%2").arg(placement_[id].stage).arg(placement_[id].group);
            else if (hasDevices() && deviceOf_[id] >= 0
                && static_cast<std::size_t>(deviceOf_[id]) < deviceNames_.size())
                tag = QStringLiteral(" · ")
                    + QString::fromStdString(deviceNames_[static_cast<std::size_t>(deviceOf_[id])]);
            const QString line
                = dagBoxLabel(label(op, false), tag, fm, static_cast<int>(text.width()), distinctName(op));
            p.drawText(text, Qt::AlignCenter, line);
        }
    }
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
    if (event->button() == Qt::RightButton) {
        // Closes the innermost open scope around what was clicked.
        const int v = nodeAt(event->position());
        if (v >= 0 && view_) {
            const ScopeNode& node = view_->nodes[static_cast<std::size_t>(v)];
            const int inner = node.kind == ScopeNode::Kind::Op
                ? scopes_->scopeOf[node.op]
                : scopes_->scopes[static_cast<std::size_t>(node.scopes.front())].parent;
            if (inner > 0)
                collapseScope(inner);
        }
        return;
    }
    if (event->button() != Qt::LeftButton)
        return;
    // QWidget's mouseDoubleClickEvent() delivers the second press of a double click here: on
    // empty space it fits the graph (and starts no drag).
    if (event->type() == QEvent::MouseButtonDblClick) {
        if (nodeAt(event->position()) < 0)
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
    // The breadcrumb: a part closes what lies below it.
    const std::vector<QRectF> crumbs = breadcrumbRects();
    for (std::size_t i = 0; i < crumbs.size(); ++i)
        if (crumbs[i].contains(event->position())) {
            const std::vector<int> path = scopes_->pathTo(focus_);
            if (i < path.size())
                collapseScope(path[i]);
            return;
        }
    const int v = nodeAt(event->position());
    if (v >= 0 && isGroup(static_cast<std::uint32_t>(v))) {
        expandScope(view_->nodes[static_cast<std::size_t>(v)].scopes.front());
        return;
    }
    const OpId op = v >= 0 ? OpId(view_->nodes[static_cast<std::size_t>(v)].op) : OpId();
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
    case Qt::Key_Backspace:
        if (focus_ > 0)
            collapseScope(focus_);
        break;
    case Qt::Key_R:
        setFoldRepeats(!foldRepeats_);
        break;
    case Qt::Key_C:
        setShowCriticalPath(!showCritical_);
        break;
    default:
        QWidget::keyPressEvent(event);
    }
}

bool DagView::event(QEvent* event)
{
    if (event->type() == QEvent::ToolTip) {
        auto* help = static_cast<QHelpEvent*>(event);
        const int v = nodeAt(help->pos());
        if (v >= 0 && isGroup(static_cast<std::uint32_t>(v)))
            QToolTip::showText(help->globalPos(), nodeDetail(static_cast<std::uint32_t>(v)), this);
        else if (v >= 0)
            QToolTip::showText(help->globalPos(), describe(OpId(view_->nodes[static_cast<std::size_t>(v)].op)), this);
        else
            QToolTip::hideText();
        return true;
    }
    return QWidget::event(event);
}

} // namespace opsched
