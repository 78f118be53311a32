#include "schedules/compare_view.h"

#include "common/bar_scale.h"
#include "engine/catalog.h"
#include "engine/results/mapping_result.h"
#include "engine/results/schedule_result.h"
#include "engine/results/stored_run.h"
#include "runs/run_identity.h"
#include "schedules/schedule_results_model.h"
#include "timeline/timeline_view.h"

#include <QPainter>
#include <QStringList>

#include <algorithm>
#include <vector>

namespace opsched {

CompareView::CompareView(QWidget* parent)
    : QWidget(parent)
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

QString CompareView::barLabel(const ScheduleResult& r)
{
    // Scheduler, device and batch, and a stored run's id: two runs never read the same.
    QString label = QStringLiteral("%1%2 · %3 · b%4")
                        .arg(QString::fromStdString(r.request.scheduler), objectiveTag(r),
                            QString::fromStdString(r.request.device))
                        .arg(r.batch);
    if (r.stored)
        label = QStringLiteral("#%1 ").arg(r.stored->id.value()) + label;
    else if (r.sequence > 0)
        label += QStringLiteral(" · #%1").arg(r.sequence);
    return label;
}

namespace {

constexpr int kMaxRowHeight = 26;

} // namespace

QColor CompareView::schedulerColour(const std::string& scheduler)
{
    // The schedulers and mappers in the catalogue's order, each its own colour from a qualitative
    // palette (a hash of the name gave greedy and opara the same one); an edited schedule keeps its
    // scheduler's colour.
    static const QRgb palette[] = { 0x9aa5b1, 0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f, 0xedc948, 0xb07aa1,
        0xff9da7, 0x9c755f, 0x2f4b7c, 0xd4a6c8, 0x8cd17d, 0x7f7f00, 0x499894, 0xd37295, 0xa0cbe8, 0xbab0ac };
    static const std::vector<std::string> names = [] {
        std::vector<std::string> all = engine::schedulerNames();
        for (const auto& m : engine::mapperEntries())
            all.push_back(kMapperPrefix + m.name);
        return all;
    }();
    const std::string base = scheduler.substr(0, scheduler.find(" ("));
    const auto it = std::find(names.begin(), names.end(), base);
    const std::size_t index = it != names.end() ? static_cast<std::size_t>(it - names.begin())
                                                : std::hash<std::string> {}(base) % std::size(palette);
    return QColor(palette[index % std::size(palette)]);
}

int CompareView::imageHeight() const
{
    const int rows = model_ ? model_->rowCount() : 0;
    const int axisHeight = fontMetrics().height() + 8;
    return std::max(60, 4 + rows * kMaxRowHeight + 2 + axisHeight + 8);
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
    std::vector<double> latencies;
    QStringList labels;
    for (int r = 0; r < rows; ++r) {
        // A throughput mapping's bar is its time per input, so it compares with one input's latency.
        latencies.push_back(model_->result(r)->latency / static_cast<double>(inputsCovered(*model_->result(r))));
        labels.push_back(barLabel(*model_->result(r)));
    }
    const BarScale scale(latencies);
    const QFontMetrics fm(p.font());
    int labelWidth = 0;
    for (const QString& l : labels)
        labelWidth = std::max(labelWidth, fm.horizontalAdvance(l));
    // Labels take what they need up to 40% of the width; longer ones lose their middle, not their end.
    labelWidth = std::min(labelWidth, size.width() * 2 / 5) + 12;
    bool perInput = false;
    for (int r = 0; r < rows; ++r)
        perInput = perInput || inputsCovered(*model_->result(r)) > 1;
    const int textWidth = fm.horizontalAdvance(perInput ? QStringLiteral("00.000 ms per input (16 in 00.000 ms)  0.00x")
                                                        : QStringLiteral("00.000 ms  0.00x  00000 warps"))
        + 12;
    const int barSpace = std::max(40, size.width() - labelWidth - textWidth - 8);
    const int axisHeight = fm.height() + 8;
    const int rowHeight = std::clamp((size.height() - 8 - axisHeight) / rows, 12, kMaxRowHeight);

    // The axis under the bars: ticks in ms, and "log" when the scale is.
    const int axisY = 4 + rows * rowHeight + 2;
    p.setPen(palette().mid().color());
    p.drawLine(labelWidth, axisY, labelWidth + barSpace, axisY);
    for (const double t : scale.ticks()) {
        const int x = labelWidth + static_cast<int>(t > 0 ? scale.length(t, barSpace) : 0);
        p.setPen(palette().mid().color());
        p.drawLine(x, 4, x, axisY + 3);
        p.setPen(palette().text().color());
        p.drawText(QRect(x - 40, axisY + 2, 80, fm.height()), Qt::AlignHCenter | Qt::AlignTop,
            QStringLiteral("%1 ms").arg(t * 1e3, 0, 'g', 3));
    }
    if (scale.logarithmic())
        p.drawText(QRect(4, axisY + 2, labelWidth - 8, fm.height()), Qt::AlignRight | Qt::AlignTop, tr("log scale"));

    for (int r = 0; r < rows; ++r) {
        const auto result = model_->result(r);
        const int y = 4 + r * rowHeight;
        p.setPen(palette().text().color());
        p.drawText(QRect(4, y, labelWidth - 8, rowHeight), Qt::AlignVCenter | Qt::AlignLeft,
            fm.elidedText(labels[r], Qt::ElideMiddle, labelWidth - 8));
        const double w = scale.length(latencies[static_cast<std::size_t>(r)], barSpace);
        p.fillRect(QRectF(labelWidth, y + 3, w, rowHeight - 6), schedulerColour(result->request.scheduler));
        const QString speedup = model_->index(r, ScheduleResultsModel::SpeedupColumn).data().toString();
        // Mappings and CPU runs have no warp count: nothing, not 0 (nor "- warps").
        QString text = inputsCovered(*result) > 1 ? tr("%1 ms per input (%2 in %3 ms)")
                                                        .arg(latencies[static_cast<std::size_t>(r)] * 1e3, 0, 'f', 3)
                                                        .arg(inputsCovered(*result))
                                                        .arg(result->latency * 1e3, 0, 'f', 3)
                                                  : tr("%1 ms").arg(result->latency * 1e3, 0, 'f', 3);
        if (!speedup.isEmpty() && speedup != QLatin1String("-"))
            text += QStringLiteral("  ") + speedup;
        if (result->averageActiveWarps > 0)
            text += tr("  %1 warps").arg(result->averageActiveWarps, 0, 'f', 0);
        p.drawText(QRect(labelWidth + static_cast<int>(w) + 6, y, textWidth, rowHeight),
            Qt::AlignVCenter | Qt::AlignLeft, text);
    }
}

} // namespace opsched
