// The comparison the IOS paper draws in its Figures 2 and 8, live: for every schedule computed on
// the open model, its latency as a bar, its speedup over sequential and its average active warps.
// The bars share an axis (log once they span more than a factor 10, bar_scale.h).
#pragma once

#include <QWidget>

namespace opsched {

class ScheduleResultsModel;
struct ScheduleResult;

class CompareView : public QWidget {
    Q_OBJECT

public:
    explicit CompareView(QWidget* parent = nullptr);
    void setModel(ScheduleResultsModel* model);
    void render(QPainter& painter, const QSize& size) const;
    // "#8 nimble · sim:h100 · b4": a bar's label (the run id for a stored run).
    static QString barLabel(const ScheduleResult& result);

protected:
    void paintEvent(QPaintEvent* event) override;
    QSize sizeHint() const override { return { 500, 260 }; }

private:
    ScheduleResultsModel* model_ = nullptr;
};

} // namespace opsched
