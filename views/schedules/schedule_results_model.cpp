#include "schedules/schedule_results_model.h"

namespace opsched {

void ScheduleResultsModel::add(std::shared_ptr<const ScheduleResult> result)
{
    if (!result)
        return;
    const int row = static_cast<int>(results_.size());
    beginInsertRows({}, row, row);
    results_.push_back(std::move(result));
    endInsertRows();
    // A new sequential run changes the speedups of the rows on its device and batch.
    if (row > 0)
        emit dataChanged(index(0, SpeedupColumn), index(row, SpeedupColumn));
}

void ScheduleResultsModel::clear()
{
    beginResetModel();
    results_.clear();
    endResetModel();
}

void ScheduleResultsModel::remove(int row)
{
    if (row < 0 || row >= rowCount())
        return;
    beginRemoveRows({}, row, row);
    results_.erase(results_.begin() + row);
    endRemoveRows();
    // Speedups are over the sequential run of the same device and batch, which may have gone.
    if (rowCount() > 0)
        emit dataChanged(index(0, SpeedupColumn), index(rowCount() - 1, SpeedupColumn));
}

std::shared_ptr<const ScheduleResult> ScheduleResultsModel::result(int row) const
{
    if (row < 0 || row >= rowCount())
        return nullptr;
    return results_[static_cast<std::size_t>(row)];
}

int ScheduleResultsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(results_.size());
}

int ScheduleResultsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

double ScheduleResultsModel::speedup(const ScheduleResult& r) const
{
    for (const auto& other : results_)
        if (other->request.scheduler == "sequential" && other->request.device == r.request.device
            && other->request.cudaGraph == r.request.cudaGraph && other->batch == r.batch && r.latency > 0)
            return other->latency / r.latency;
    return 0.0;
}

QVariant ScheduleResultsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const ScheduleResult& r = *results_[static_cast<std::size_t>(index.row())];
    const auto stages = r.output.schedule ? static_cast<int>(r.output.schedule->stages.size()) : 0;
    if (role == SortRole) {
        switch (index.column()) {
        case SchedulerColumn:
            return QString::fromStdString(r.request.scheduler);
        case DeviceColumn:
            return QString::fromStdString(r.request.device);
        case BatchColumn:
            return static_cast<qlonglong>(r.batch);
        case LatencyColumn:
            return r.latency;
        case SpeedupColumn:
            return speedup(r);
        case StagesColumn:
            return stages;
        case StreamsColumn:
            return r.output.plan.streams;
        case WarpsColumn:
            return r.averageActiveWarps;
        case SearchColumn:
            return r.output.searchSeconds;
        }
        return {};
    }
    if (role == Qt::TextAlignmentRole)
        return index.column() >= BatchColumn ? QVariant(Qt::AlignRight | Qt::AlignVCenter) : QVariant();
    if (role != Qt::DisplayRole && role != Qt::ToolTipRole)
        return {};
    switch (index.column()) {
    case SchedulerColumn:
        return QString::fromStdString(r.request.scheduler);
    case DeviceColumn:
        return QString::fromStdString(r.request.device)
            + (r.request.cudaGraph ? QStringLiteral(" (graph)") : QString());
    case BatchColumn:
        return static_cast<qlonglong>(r.batch);
    case LatencyColumn:
        return QString::number(r.latency * 1e3, 'f', 3);
    case SpeedupColumn: {
        const double s = speedup(r);
        return s > 0 ? QStringLiteral("%1x").arg(s, 0, 'f', 2) : QStringLiteral("-");
    }
    case StagesColumn:
        return stages ? QString::number(stages) : QStringLiteral("-");
    case StreamsColumn:
        return r.output.plan.streams;
    // Mappings and CPU runs record no warps: "-", not a measured 0.
    case WarpsColumn:
        return r.averageActiveWarps > 0 ? QString::number(r.averageActiveWarps, 'f', 0) : QStringLiteral("-");
    case SearchColumn:
        return QString::number(r.output.searchSeconds, 'f', 3);
    }
    return {};
}

QVariant ScheduleResultsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return QAbstractTableModel::headerData(section, orientation, role);
    // Short headers so that every column fits the Schedules panel; the tooltip says it in full.
    const bool full = role == Qt::ToolTipRole;
    switch (section) {
    case SchedulerColumn:
        return tr("Scheduler");
    case DeviceColumn:
        return tr("Device");
    case BatchColumn:
        return full ? tr("Batch size") : tr("Batch");
    case LatencyColumn:
        return full ? tr("Latency in milliseconds (simulated, or measured for stored runs)") : tr("ms");
    case SpeedupColumn:
        return full ? tr("Speedup over the sequential schedule on the same device and batch") : tr("Speedup");
    case StagesColumn:
        return full ? tr("Stages of the stage schedule (- for plans)") : tr("Stages");
    case StreamsColumn:
        return tr("Streams");
    case WarpsColumn:
        return full ? tr("Average active warps") : tr("Warps");
    case SearchColumn:
        return full ? tr("Search time in seconds") : tr("Search s");
    }
    return {};
}

} // namespace opsched
