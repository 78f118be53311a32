// The comparison the IOS paper draws in its Figures 2 and 8, live: for every schedule computed on
// the open model, its latency as a bar, its speedup over sequential and its average active warps.
#pragma once

#include <QWidget>

namespace opsched {

class ScheduleResultsModel;

class CompareView : public QWidget {
    Q_OBJECT

public:
    explicit CompareView(QWidget* parent = nullptr);
    void setModel(ScheduleResultsModel* model);
    void render(QPainter& painter, const QSize& size) const;

protected:
    void paintEvent(QPaintEvent* event) override;
    QSize sizeHint() const override { return {500, 260}; }

private:
    ScheduleResultsModel* model_ = nullptr;
};

} // namespace opsched
