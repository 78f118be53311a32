// Active warps over time under the timeline, on the same time axis (QPainter; no Qt Charts): the
// same ruler ticks as the timeline, the timeline's cursor and selected range, and on hover the time
// and the active warps under the mouse. Above the curve, a lane with the host thread's calls
// (launches, waits, barriers), which explain the time no kernel runs.
#pragma once

#include "engine/timeline/time_axis.h"
#include "engine/timeline/timeline_data.h"

#include <QWidget>

#include <memory>
#include <optional>

namespace opsched {

class WarpChart : public QWidget {
    Q_OBJECT

public:
    explicit WarpChart(QWidget* parent = nullptr);
    void setData(std::shared_ptr<const TimelineData> timeline);
    void render(QPainter& painter, const QSize& size) const;
    const TimeAxis& axis() const { return axis_; }
    // What the chart says about pixel x: "12.5 ms: 840 active warps"; empty off the plot.
    QString readoutAt(double x) const;

    static constexpr int kTickHeight = 16; // the ruler labels under the curve
    static constexpr int kHostLaneHeight = 18; // the host thread's calls, above the curve
    int hostLaneHeight() const; // 0 for a run without host calls

public slots:
    void setAxis(const opsched::TimeAxis& axis);
    void setCursorTime(double time); // NaN: none
    void setSelection(std::optional<std::pair<double, double>> range);

signals:
    void cursorMoved(double time); // NaN: the mouse left
    // The wheel over the chart zooms the timeline it follows, around the same instant.
    void zoomRequested(double factor, double plotX);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void leaveEvent(QEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    QSize sizeHint() const override { return { 800, 100 }; }
    QSize minimumSizeHint() const override { return { 200, 56 }; }

private:
    void renderHostLane(QPainter& painter, const QSize& size) const;
    void renderWarps(QPainter& painter, const QSize& size) const;
    std::shared_ptr<const TimelineData> data_;
    TimeAxis axis_;
    std::optional<double> cursor_;
    std::optional<std::pair<double, double>> selection_;
};

} // namespace opsched
