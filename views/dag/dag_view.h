// The operator DAG, drawn top to bottom with the layered layout of core/graph/layered_layout.h:
// boxes labelled with op names (when big enough on screen), edges as polylines with arrowheads.
// Boxes are coloured by op kind (as in the timeline) or, once a schedule is set, by stage with an
// alternating palette, the box showing its stage and group (stream). Wheel zooms around the
// cursor, dragging pans, double-click or Home fits the graph; clicking an op selects it. The
// layout is computed on a worker thread: layout() is null until layoutReady().
//
// Large graphs open grouped by name scope (core/graph/name_scopes.h), as TensorBoard's graph view:
// a scope draws as one box with its op count, kind mix and work; a click opens it and zooms onto its
// contents, the breadcrumb at the top (or Backspace, or a right click inside) closes it again, and
// R folds identical sibling scopes (a transformer's layers) into one "x12" stack. Layout nodes are
// the view's nodes (scopeView()): an op, a scope or a stack.
#pragma once

#include "graph/graph.h"
#include "graph/layered_layout.h"
#include "graph/name_scopes.h"
#include "plan/schedule.h"

#include <QPointF>
#include <QRectF>
#include <QWidget>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

class QThread;

namespace opsched {

class DagView : public QWidget {
    Q_OBJECT

public:
    explicit DagView(QWidget* parent = nullptr);
    ~DagView() override;

    // Starts laying the graph out (off the GUI thread); clears the schedule and the selection.
    void setGraph(std::shared_ptr<const Graph> graph);
    const std::shared_ptr<const Graph>& graph() const { return graph_; }
    // Colours ops by the schedule's stages (copied; the pointer need not outlive the call).
    // nullptr goes back to colouring by op kind.
    void setSchedule(const Schedule* schedule);
    bool hasSchedule() const { return !placement_.empty(); }
    // Colours ops by the device a mapping puts them on (one entry per op id; names label the
    // legend and each box). Replaces a schedule's colouring; setSchedule replaces this.
    // `title` heads the legend (empty: "device").
    void setDevices(std::vector<int> deviceOf, std::vector<std::string> names, std::string title = {});
    bool hasDevices() const { return !deviceOf_.empty(); }
    int deviceOf(OpId op) const;

    // The heaviest chain (in order), outlined on its boxes and edges while shown (C toggles); a
    // group on it is outlined too and says how many of its ops are.
    void setCriticalPath(std::vector<OpId> path);
    bool showsCriticalPath() const { return showCritical_; }
    void setShowCriticalPath(bool show);
    bool onCriticalPath(std::uint32_t node) const;

    // Null while the layout is being computed (or with no graph). Node v of the layout is node v
    // of scopeView().
    const LayeredLayout* layout() const { return layout_.get(); }
    const ScopeView* scopeView() const { return view_.get(); }
    const NameScopes& scopes() const { return *scopes_; }

    // Graphs of more ops than this open grouped by scope (default 160; SIZE_MAX: never). Applies
    // to the next setGraph.
    void setGroupAbove(std::size_t ops) { groupAbove_ = ops; }
    bool isExpanded(int scope) const;
    // Opens a scope (and the scopes holding it) and zooms onto its contents once laid out; a stack's
    // scope opens alone, the rest of the stack stays folded.
    void expandScope(int scope);
    // Closes a scope (and every scope inside it); the breadcrumb moves up to its parent.
    void collapseScope(int scope);
    void expandAll();
    bool foldsRepeats() const { return foldRepeats_; }
    void setFoldRepeats(bool fold);
    // The scope the breadcrumb ends at (0: the whole graph), and the breadcrumb's parts on screen.
    int focusScope() const { return focus_; }
    std::vector<QRectF> breadcrumbRects() const;
    // A view node's box in widget pixels, and the node under a widget position (-1: none).
    QRectF nodeRect(std::uint32_t node) const;
    int nodeAt(const QPointF& widgetPos) const;
    // A group node's two label lines ("l3 · 22 ops", "MatMul 6 · Add 4 … · 1.8 GFLOP" or the stages
    // or devices it spans), and its tooltip.
    QString nodeTitle(std::uint32_t node) const;
    QString nodeDetail(std::uint32_t node) const;
    // A node's fill: an op's colour, or a group's largest share of its mix, lightened.
    QColor nodeColour(std::uint32_t node) const;
    // A group's mix by what the boxes are coloured by (kind, stage or device): colour and share.
    std::vector<std::pair<QColor, double>> nodeMix(std::uint32_t node) const;
    bool isLayingOut() const { return graph_ && !layout_ && !layoutFailed_; }

    // Highlights an op and scrolls it into view if it is off screen. Does not emit opSelected.
    // An invalid id clears the selection.
    void selectOp(OpId op);
    OpId selectedOp() const { return selected_; }

    // The fill colour of an op's box: by kind, or by stage when a schedule is set.
    QColor opColour(OpId op) const;
    // Stage and group of an op in the current schedule, or -1 when there is none.
    int stageOf(OpId op) const;
    int groupOf(OpId op) const;

    // Layout units <-> widget pixels, for the current zoom and pan.
    QPointF mapFromLayout(const QPointF& p) const { return p * scale_ + offset_; }
    QPointF mapToLayout(const QPointF& p) const { return (p - offset_) / scale_; }
    // An op's box in widget pixels (empty before the layout is ready).
    QRectF opRect(OpId op) const;
    // The op under a widget position, or an invalid id.
    OpId opAt(const QPointF& widgetPos) const;
    double scale() const { return scale_; }
    // Where the colour legend sits for a widget of `size` (bottom left, wrapped onto several lines
    // when narrow); a fitted graph stays above it.
    QRectF legendRect(const QSize& size) const;

    // Draws the view into `painter`'s device at `size` (export, tests). Until the user zooms or
    // pans, the graph is fitted to `size`; afterwards the current zoom and pan are kept.
    void render(QPainter& painter, const QSize& size) const;
    // The whole graph, whatever is zoomed into now (for image export): its natural size, and a
    // rendering of all of it fitted to `size`.
    QSize fullSize() const;
    void renderWhole(QPainter& painter, const QSize& size) const;

public slots:
    void fitToView();
    // Zooms by `factor` keeping the layout point under `anchor` (widget pixels) in place.
    void zoomBy(double factor, const QPointF& anchor);

signals:
    void opSelected(std::uint32_t op);
    void layoutReady();
    // Scopes opened or closed, or stacks folded (the layout follows with layoutReady); the critical
    // path shown or hidden.
    void scopesChanged();

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    // The wheel and keys zoom and fit; event() shows tooltips.
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;
    bool event(QEvent* event) override;
    QSize sizeHint() const override { return { 800, 600 }; }
    // A drag pans, a click selects; a double click (it arrives as a press) on empty space fits.
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;

private:
    struct Placement {
        int stage = -1;
        int group = -1;
        bool merged = false;
    };
    struct ViewTransform {
        double scale = 1;
        QPointF offset;
    };

    void applyLayout(std::shared_ptr<const LayeredLayout> layout);
    // Lays out the view of the scopes open now (off the GUI thread); the current drawing stays
    // until the new one arrives.
    void relayout();
    void afterLayout(); // zooms onto the scope opened or the op selected meanwhile
    void openScopesOf(OpId op); // so that the op has a box of its own
    std::uint32_t nodeOfOp(OpId op) const;
    bool isGroup(std::uint32_t node) const;
    double breadcrumbHeight() const;
    void drawBreadcrumb(QPainter& p) const;
    // A tint behind the boxes of the breadcrumb's scope: what it opened into.
    void drawFocusTint(QPainter& p, const QSize& size, const ViewTransform& t) const;
    void drawCriticalPath(QPainter& p, const QSize& size, const ViewTransform& t) const;
    void drawGroup(QPainter& p, std::uint32_t node, const QRectF& box, bool twoLines, bool oneLine) const;
    // Folds unwrapped_ into the columns that suit the view's shape now, and applies it.
    void wrapForViewShape();
    double viewAspect() const; // width / height (1.6 while the view has no size yet)
    ViewTransform fitTransform(const QSize& size) const;
    struct LegendEntry {
        QColor colour; // invalid: text only
        QString text;
    };
    std::vector<LegendEntry> legendEntries(QString* title) const;
    void drawLegend(QPainter& p, const QSize& size) const;
    void renderWith(QPainter& p, const QSize& size, const ViewTransform& t) const;
    void drawEdges(QPainter& p, const QSize& size, const ViewTransform& t) const;
    void drawBoxes(QPainter& p, const QSize& size, const ViewTransform& t) const;
    void setTransform(double scale, const QPointF& offset);
    QString label(OpId op, bool longForm) const;
    QString distinctName(OpId op) const; // the ending of its name no other op's ends with
    QString describe(OpId op) const;

    std::shared_ptr<const Graph> graph_;
    std::shared_ptr<const NameScopes> scopes_ = std::make_shared<const NameScopes>();
    std::vector<bool> expanded_; // per scope
    std::vector<QString> scopeTitles_; // per scope: the ending of its path that tells it apart
    bool foldRepeats_ = false;
    std::size_t groupAbove_ = 160;
    int focus_ = 0; // the breadcrumb's last scope
    int zoomOnto_ = -1; // a scope just opened: zoom onto it when its layout arrives
    OpId centreOn_; // an op selected inside a closed scope: centre it when its layout arrives
    std::shared_ptr<const ScopeView> view_; // the nodes layout_ draws
    std::vector<QString> distinct_;
    std::vector<OpId> criticalPath_;
    std::vector<char> critical_; // per op: on criticalPath_
    bool showCritical_ = false; // per op: distinctEndings of the op names (common/name_fit.h)
    std::shared_ptr<const LayeredLayout> layout_;
    std::shared_ptr<const LayeredLayout> unwrapped_; // as laid out, before folding into columns
    double wrappedAspect_ = 1.6; // the view's width / height layout_ was folded for
    bool layoutFailed_ = false;
    std::vector<std::vector<std::uint32_t>> layers_; // ops per layer, left to right
    std::vector<QRectF> edgeBounds_; // per layout edge, layout units
    std::vector<Placement> placement_; // per op; empty without a schedule
    int stageCount_ = 0;
    std::vector<int> deviceOf_; // per op; empty unless a mapping is shown
    std::vector<std::string> deviceNames_;
    std::string deviceTitle_;
    OpId selected_;

    double scale_ = 1;
    QPointF offset_;
    bool autoFit_ = true; // until the user zooms or pans, the graph follows the widget's size

    bool dragging_ = false;
    bool moved_ = false;
    QPointF pressPos_;
    QPointF lastPos_;

    std::uint64_t generation_ = 0;
    std::vector<QThread*> workers_;
};

// Per scope, the title of its box: the shortest ending of its path no other scope's path ends with
// ("encoder_layer_2", but "l3.attn" where every layer has an "attn").
std::vector<QString> scopeTitles(const NameScopes& scopes);

// The one-line label of a box `width` pixels wide: "Mixed_5b.branch1x1 · 9/0" when it fits, else the
// name's last component with the tag ("branch1x1 · 9/0"), else the name alone, its end kept
// ("…3x3dbl_2"), else the tag alone; never a name cut at both ends.
QString dagBoxLabel(
    const QString& name, const QString& tag, const QFontMetrics& fm, int width, const QString& distinct = {});

} // namespace opsched
