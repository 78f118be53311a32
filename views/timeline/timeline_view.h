// The stage timeline: a time ruler on top, one row per stream, ops as boxes, stage bands behind
// them, and for runs with kernel data a thinner row of kernels under each stream (collapsible per
// stream). Rows scroll vertically under the fixed ruler.
//
// Mouse, as in Perfetto and Nsight Systems: the wheel zooms around the cursor (Shift+wheel, or the
// wheel over the row names, scrolls the rows); dragging with the left button selects a time range;
// dragging with the middle or right button (or Ctrl+left) pans; clicking a box selects its op;
// clicking a stream's name collapses or expands its kernel rows. Keys: F fits the run, W/S (or +/-)
// zoom, A/D (or Left/Right) pan, Up/Down/Page Up/Page Down scroll the rows, Z zooms to the selected
// range, Esc clears it. Draws only what is visible and folds boxes narrower than a few pixels.
#pragma once

#include "engine/timeline/row_layout.h"
#include "engine/timeline/time_axis.h"
#include "engine/timeline/timeline_data.h"

#include <QWidget>

#include <functional>
#include <memory>
#include <optional>

class QScrollBar;

namespace opsched {

class TimelineView : public QWidget {
    Q_OBJECT

public:
    explicit TimelineView(QWidget* parent = nullptr);

    // `describe(id)` gives the tooltip text of a span (an op's name, shapes, times).
    void setData(std::shared_ptr<const TimelineData> timeline, std::function<QString(std::uint32_t)> describe = {});
    const TimelineData* data() const { return data_.get(); }
    const std::shared_ptr<const TimelineData>& sharedData() const { return data_; }
    const std::function<QString(std::uint32_t)>& describer() const { return describe_; }
    const TimeAxis& axis() const { return axis_; }
    const RowLayout& layout() const { return layout_; }
    // The time the view may show up to (fit, clamping); by default the run's end. Two views side by
    // side share the longer run's end, so their axes align.
    void setTimeExtent(std::optional<double> end);
    // What the corner above the row names says (its tooltip the whole); by default the ruler's unit.
    void setCornerLabel(const QString& label);

    static constexpr int kLabelWidth = 88;
    static constexpr int kRowHeight = 22;
    static constexpr int kKernelRowHeight = 15;
    static constexpr int kRulerHeight = 24;
    // Streams beyond this many start with their kernel rows collapsed.
    static constexpr std::size_t kCollapseAbove = 12;
    // Pixels kept free right of the plot for the scroll bar, here and on the warps chart, so the
    // two share their time axis to the pixel.
    static int rightMargin();

    // Row geometry in widget pixels (rows differ in height and scroll): top pixel of a row, its
    // height (0 when collapsed), and the row under pixel y (-1: none, or the ruler).
    int rowTop(std::size_t row) const { return kRulerHeight + layout_.top(row) - scrollY_; }
    int rowHeight(std::size_t row) const { return layout_.height(row); }
    int rowAt(int y) const;
    // Tooltip text of the span under (x, y), empty when there is none.
    QString describeAt(QPoint pos) const;
    // The name of a span as search and labels see it: the op's name, or the kernel's.
    QString spanName(std::size_t row, const TimelineSpan& span) const;

    // Vertical scrolling: content pixels scrolled out above the rows.
    int scrollY() const { return scrollY_; }
    int maxScrollY() const;
    void setScrollY(int y);
    // Scrolls so that `row` is fully in view (expanding nothing).
    void ensureRowVisible(std::size_t row);

    // Collapsing hides a stream's kernel rows; `row` is its op row.
    void setCollapsed(std::size_t row, bool collapsed);
    void setAllCollapsed(bool collapsed);
    bool isCollapsed(std::size_t row) const { return layout_.isCollapsed(row); }

    // The selected time range [start, end] in seconds.
    std::optional<std::pair<double, double>> selection() const { return selection_; }
    void setSelection(double t0, double t1);
    void clearSelection();
    // The time under the mouse (for the ruler's readout); empty when the mouse is not over the plot.
    std::optional<double> cursorTime() const { return cursorTime_; }

    // Search: spans whose name contains `text` (case-insensitive) are outlined; next/previous move
    // to a match, bringing it into view. Returns the number of matches.
    int setSearchText(const QString& text);
    int matchCount() const { return static_cast<int>(matches_.size()); }
    int currentMatch() const { return currentMatch_; } // -1: none yet
    void nextMatch() { stepMatch(+1); }
    void previousMatch() { stepMatch(-1); }

    // Outlines the spans of these ops (sorted ids) as search matches: next/previous step through
    // them. Returns the number of spans outlined; an empty list clears them.
    int setHighlightedOps(const std::vector<std::uint32_t>& ops);

    // On demand: arrows for the plan's cross-stream waits, and the critical path outlined.
    void setShowFlows(bool show);
    bool showFlows() const { return showFlows_; }
    void setShowCriticalPath(bool show);
    bool showCriticalPath() const { return showCritical_; }

    // Outlines op `op`'s box, scrolls its row into view and pans to it if it is off screen.
    // Returns false when the op is not on the timeline.
    bool revealOp(std::uint32_t op);
    std::optional<std::uint32_t> revealedOp() const { return revealed_; }

    // Renders into `painter`'s device: the ruler, then the rows from `scrollY` down (the current
    // scroll position when negative). Also used for image export and benchmarks.
    void render(QPainter& painter, const QSize& size, int scrollY = -1) const;
    // The size that shows every row at the current width (for exporting the whole timeline).
    QSize fullSize() const;

public slots:
    void setAxis(const opsched::TimeAxis& axis);
    void resetZoom(); // fit the whole run
    void zoomToSelection();
    void zoomBy(double factor); // around the cursor when it is over the plot, else the middle
    void zoomAt(double factor, double plotX); // keeping the time at plot pixel plotX in place
    void panBy(double fraction); // of the visible width; positive shows later times

signals:
    void axisChanged(const opsched::TimeAxis& axis);
    void spanClicked(std::uint32_t id);
    void selectionChanged(); // selection() tells what
    void cursorMoved(double time); // NaN: the mouse left the plot
    void searchMoved(int current, int count);

protected:
    // Painting and geometry, then input (event(): tooltips and shortcut overrides).
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    bool event(QEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    enum class Drag { None, Pending, Select, Pan };
    double plotWidth() const;
    double viewEnd() const;
    void applyAxis(TimeAxis axis);
    void relayout();
    void updateScrollBar();
    QString describeOp(std::uint32_t id) const;
    const TimelineSpan* spanAt(QPoint pos, std::size_t* row) const;
    void stepMatch(int delta);
    void bringIntoView(std::size_t row, double t0, double t1);
    void rebuildMarks();
    void drawRuler(QPainter& p, const TimeAxis& axis, int width) const;
    void drawFlows(QPainter& p, const TimeAxis& axis, int scrollY, int height) const;
    // render's layers, back to front (drawFlows and drawRuler too).
    void drawStageBands(QPainter& p, const TimeAxis& axis, int height) const;
    void drawRows(QPainter& p, const TimeAxis& axis, int scrollY, int height) const;
    void drawSelectionAndCursor(QPainter& p, const TimeAxis& axis, int height) const;

    std::shared_ptr<const TimelineData> data_;
    std::function<QString(std::uint32_t)> describe_;
    std::vector<bool> collapsed_;
    RowLayout layout_;
    TimeAxis axis_;
    std::optional<double> extent_;
    QString corner_;
    int scrollY_ = 0;
    QScrollBar* scrollBar_ = nullptr;

    Drag drag_ = Drag::None;
    QPointF pressPos_;
    QPointF lastPos_;
    std::optional<std::pair<double, double>> selection_;
    std::optional<double> cursorTime_;

    // Per row and span: 1 search match, 2 critical path, 4 revealed op, 8 current match.
    std::vector<std::vector<std::uint8_t>> marks_;
    struct Match {
        double start;
        std::size_t row;
        std::size_t index;
    };
    std::vector<Match> matches_;
    // Outlines the spans `matches` accepts (search, highlighted ops); returns how many.
    int setMatches(const std::function<bool(std::size_t row, const TimelineSpan& span)>& matches);
    int currentMatch_ = -1;
    bool showFlows_ = false;
    bool showCritical_ = false;
    std::optional<std::uint32_t> revealed_;
    TimelineRows flowIndex_; // one row: each flow as a span [from, to], id = index in data_->flows
};

// A stable colour per colour class (op kind).
QColor spanColour(std::uint32_t colourClass);

} // namespace opsched
