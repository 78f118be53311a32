// Active warps over time under the timeline, on the same time axis (QPainter; no Qt Charts).
#pragma once

#include "time_axis.h"
#include "timeline_data.h"

#include <QWidget>

#include <memory>

namespace opsched {

class WarpChart : public QWidget {
    Q_OBJECT

public:
    explicit WarpChart(QWidget* parent = nullptr);
    void setData(std::shared_ptr<const TimelineData> timeline);
    void render(QPainter& painter, const QSize& size) const;

public slots:
    void setAxis(const opsched::TimeAxis& axis);

protected:
    void paintEvent(QPaintEvent* event) override;
    QSize sizeHint() const override { return {800, 90}; }

private:
    std::shared_ptr<const TimelineData> data_;
    TimeAxis axis_;
};

} // namespace opsched
