// The comparison the IOS paper draws in its Figures 2 and 8, live: for every schedule computed on
// the open model, its latency as a bar, its speedup over sequential and its average active warps.
// The bars share an axis (log once they span more than a factor 10, bar_scale.h).
#pragma once

#include <QColor>
#include <QWidget>

#include <string>

namespace opsched {

class ScheduleResultsModel;
struct ScheduleResult;

class CompareView : public QWidget {
    Q_OBJECT

public:
    explicit CompareView(QWidget* parent = nullptr);
    void setModel(ScheduleResultsModel* model);
    void render(QPainter& painter, const QSize& size) const;
    // The height the bars, their labels and the axis need at full row height: what an exported
    // image is given.
    int imageHeight() const;
    // A bar's colour: each scheduler and mapper its own, "ios (edited)" as ios.
    static QColor schedulerColour(const std::string& scheduler);
    // "#8 nimble · sim:h100 · b4": a bar's label (the run id for a stored run).
    static QString barLabel(const ScheduleResult& result);

protected:
    void paintEvent(QPaintEvent* event) override;
    QSize sizeHint() const override { return { 500, 260 }; }

private:
    ScheduleResultsModel* model_ = nullptr;
};

} // namespace opsched
