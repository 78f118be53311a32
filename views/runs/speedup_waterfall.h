// The speedup breakdown of two runs (profiler/analysis/speedup_breakdown.h) as a waterfall: A's
// latency, then each term as a step from the level before it (down: time B saves; up: time B
// spends more), then B's latency. A click on a bar selects its term (termClicked); the chart
// exports as an image (views/common/export.h) or as CSV.
#pragma once

#include "engine/timeline/timeline_breakdown.h" // explainTimelines, what this draws

#include <QRectF>
#include <QString>
#include <QWidget>

#include <optional>
#include <vector>

namespace opsched {

class SpeedupWaterfall : public QWidget {
    Q_OBJECT

public:
    struct Bar {
        QString key; // "a", a term's key, "b"
        QString label; // under the bar
        double fromMs = 0, toMs = 0; // the level before and after it (A and B: 0 to the latency)
        QRectF rect; // where it is drawn at the size laid out for
    };

    explicit SpeedupWaterfall(QWidget* parent = nullptr);

    // Nothing to show: `message` says why (no kernels recorded, no two runs).
    void setBreakdown(const std::optional<analysis::SpeedupBreakdown>& breakdown, const QString& message = {});
    bool hasBreakdown() const { return breakdown_.has_value(); }

    // The bars laid out for `size` (the widget's own when not given).
    std::vector<Bar> bars(const QSize& size) const;
    std::vector<Bar> bars() const { return bars(size()); }
    // term,label,ms,share: A's and B's latency, then each term (ms positive: time B saves).
    QString csv() const;
    void paintTo(QPainter& p, const QSize& size) const;
    QString selectedTerm() const { return selected_; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void termClicked(const QString& key);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    bool event(QEvent* event) override; // tooltips: the term's definition, ms and share

private:
    std::optional<Bar> barAt(const QPointF& pos) const;

    std::optional<analysis::SpeedupBreakdown> breakdown_;
    QString message_;
    QString selected_;
};

} // namespace opsched
