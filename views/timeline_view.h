// The stage timeline: one row per stream, ops as boxes, stage bands behind them, and for runs with
// kernel data a thinner row of kernels under each stream. Wheel zooms around the cursor, dragging
// pans, hovering shows the op or kernel. Draws only what is visible and folds boxes narrower than
// a few pixels.
#pragma once

#include "time_axis.h"
#include "timeline_data.h"

#include <QWidget>

#include <functional>
#include <memory>

namespace opsched {

class TimelineView : public QWidget {
    Q_OBJECT

public:
    explicit TimelineView(QWidget* parent = nullptr);

    // `describe(id)` gives the tooltip text of a span (an op's name, shapes, times).
    void setData(std::shared_ptr<const TimelineData> timeline, std::function<QString(std::uint32_t)> describe = {});
    const TimelineData* data() const { return data_.get(); }
    const std::function<QString(std::uint32_t)>& describer() const { return describe_; }
    const TimeAxis& axis() const { return axis_; }

    static constexpr int kLabelWidth = 80;
    static constexpr int kRowHeight = 22;
    static constexpr int kKernelRowHeight = 15;

    // Row geometry (rows differ in height): top pixel of a row, and the row under pixel y (-1: none).
    int rowTop(std::size_t row) const { return rowTops_[row]; }
    int rowHeight(std::size_t row) const { return rowTops_[row + 1] - rowTops_[row]; }
    int rowAt(int y) const;
    // Tooltip text of the span under (x, y), empty when there is none.
    QString describeAt(QPoint pos) const;

    // Renders the visible part into `painter`'s device (also used for PNG export and benchmarks).
    void render(QPainter& painter, const QSize& size) const;

public slots:
    void setAxis(const opsched::TimeAxis& axis);
    void resetZoom();

signals:
    void axisChanged(const opsched::TimeAxis& axis);
    void spanClicked(std::uint32_t id);

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override;
    QSize sizeHint() const override;

private:
    double plotWidth() const { return std::max(1, width() - kLabelWidth); }
    void applyAxis(TimeAxis axis);
    QString describeOp(std::uint32_t id) const;
    const TimelineSpan* spanAt(QPoint pos, std::size_t* row) const;

    std::shared_ptr<const TimelineData> data_;
    std::function<QString(std::uint32_t)> describe_;
    std::vector<int> rowTops_{4}; // rowTops_[r] is row r's top; the last entry is the bottom
    TimeAxis axis_;
    bool dragging_ = false;
    double dragX_ = 0;
    bool moved_ = false;
};

// A stable colour per colour class (op kind).
QColor spanColour(std::uint32_t colourClass);

} // namespace opsched
