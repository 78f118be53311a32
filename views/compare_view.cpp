#include "compare_view.h"

#include "schedule_results_model.h"
#include "timeline_view.h"

#include <QPainter>

#include <algorithm>

namespace opsched {

CompareView::CompareView(QWidget* parent) : QWidget(parent)
{
    setMinimumHeight(120);
}

void CompareView::setModel(ScheduleResultsModel* model)
{
    if (model == model_)
        return;
    if (model_)
        disconnect(model_, nullptr, this, nullptr);
    model_ = model;
    update();
    if (!model)
        return;
    auto refresh = [this] { update(); };
    connect(model, &QAbstractItemModel::rowsInserted, this, refresh);
    connect(model, &QAbstractItemModel::modelReset, this, refresh);
    connect(model, &QAbstractItemModel::dataChanged, this, refresh);
}

void CompareView::paintEvent(QPaintEvent*)
{
    QPainter p(this);
    render(p, size());
}

void CompareView::render(QPainter& p, const QSize& size) const
{
    p.fillRect(QRect(QPoint(0, 0), size), palette().base());
    if (!model_ || model_->rowCount() == 0) {
        p.setPen(palette().placeholderText().color());
        p.drawText(QRect(QPoint(0, 0), size), Qt::AlignCenter, tr("Run schedulers to compare them here"));
        return;
    }
    const int rows = model_->rowCount();
    double longest = 0;
    for (int r = 0; r < rows; ++r)
        longest = std::max(longest, model_->result(r)->latency);
    const QFontMetrics fm(p.font());
    const int labelWidth = fm.horizontalAdvance(QStringLiteral("ios-parallel sim:rtx2080ti ")) + 8;
    const int textWidth = fm.horizontalAdvance(QStringLiteral("00.000 ms  0.00x  00000 warps")) + 12;
    const int barSpace = std::max(40, size.width() - labelWidth - textWidth - 8);
    const int rowHeight = std::clamp((size.height() - 8) / rows, 12, 26);
    for (int r = 0; r < rows; ++r) {
        const auto result = model_->result(r);
        const int y = 4 + r * rowHeight;
        p.setPen(palette().text().color());
        p.drawText(QRect(4, y, labelWidth - 8, rowHeight), Qt::AlignVCenter | Qt::AlignLeft,
                   QString::fromStdString(result->request.scheduler + " " + result->request.device));
        const double w = longest > 0 ? result->latency / longest * barSpace : 0;
        p.fillRect(QRectF(labelWidth, y + 3, std::max(1.0, w), rowHeight - 6),
                   spanColour(static_cast<std::uint32_t>(std::hash<std::string>{}(result->request.scheduler) % 97)));
        const QString speedup = model_->index(r, ScheduleResultsModel::SpeedupColumn).data().toString();
        p.drawText(QRect(labelWidth + static_cast<int>(w) + 6, y, textWidth, rowHeight), Qt::AlignVCenter | Qt::AlignLeft,
                   tr("%1 ms  %2  %3 warps")
                       .arg(result->latency * 1e3, 0, 'f', 3)
                       .arg(speedup)
                       .arg(result->averageActiveWarps, 0, 'f', 0));
    }
}

} // namespace opsched
