#include "runs/run_list_model.h"

#include <algorithm>

namespace opsched {

void RunListModel::setRuns(std::vector<store::RunSummary> runs)
{
    // Same runs first, more after them: append. Anything else (another file, merged runs): reset.
    const bool extends = runs.size() >= runs_.size()
        && std::equal(runs_.begin(), runs_.end(), runs.begin(),
            [](const store::RunSummary& a, const store::RunSummary& b) { return a.id == b.id; });
    if (!extends) {
        beginResetModel();
        runs_ = std::move(runs);
        endResetModel();
        return;
    }
    if (runs.size() == runs_.size())
        return;
    beginInsertRows({}, static_cast<int>(runs_.size()), static_cast<int>(runs.size()) - 1);
    runs_ = std::move(runs);
    endInsertRows();
}

const store::RunSummary* RunListModel::run(int row) const
{
    if (row < 0 || row >= rowCount())
        return nullptr;
    return &runs_[static_cast<std::size_t>(row)];
}

int RunListModel::rowOf(store::RunId id) const
{
    const auto it = std::find_if(runs_.begin(), runs_.end(), [id](const store::RunSummary& r) { return r.id == id; });
    return it == runs_.end() ? -1 : static_cast<int>(it - runs_.begin());
}

int RunListModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(runs_.size());
}

int RunListModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunListModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const store::RunSummary& r = runs_[static_cast<std::size_t>(index.row())];
    const bool ok = r.status == store::RunStatus::Ok;
    const double latencyMs = r.latency ? r.latency->medianNs * 1e-6 : 0.0;
    if (role == SortRole) {
        switch (index.column()) {
        case SchedulerColumn:
            return QString::fromStdString(r.scheduler);
        case DeviceColumn:
            return QString::fromStdString(r.deviceKey);
        case LatencyColumn:
            return latencyMs;
        case WarpsColumn:
            return r.averageActiveWarps.value_or(0.0);
        case StatusColumn:
            return ok ? 0 : 1;
        default: // run, model, batch and kernels sort by what they show
            return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::TextAlignmentRole) {
        switch (index.column()) {
        case RunColumn:
        case BatchColumn:
        case LatencyColumn:
        case WarpsColumn:
        case KernelsColumn:
            return QVariant(Qt::AlignRight | Qt::AlignVCenter);
        }
        return {};
    }
    if (role == Qt::ToolTipRole) {
        if (!ok)
            return QString::fromStdString(r.error);
        return tr("%1 on %2, started %3")
            .arg(QString::fromStdString(r.modelRef), QString::fromStdString(r.deviceName),
                QString::fromStdString(r.startedAt));
    }
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case RunColumn:
        return static_cast<qlonglong>(r.id.value());
    case ModelColumn:
        return QString::fromStdString(r.modelName);
    case SchedulerColumn:
        return r.scheduler.empty() ? QStringLiteral("-") : QString::fromStdString(r.scheduler);
    case BatchColumn:
        return static_cast<qlonglong>(r.batch);
    case DeviceColumn:
        return QString::fromStdString(r.deviceKey) + (r.simulated ? QString() : QStringLiteral(" (measured)"));
    case LatencyColumn:
        return r.latency ? QString::number(latencyMs, 'f', 3) : QStringLiteral("-");
    case WarpsColumn:
        return r.averageActiveWarps ? QString::number(*r.averageActiveWarps, 'f', 0) : QStringLiteral("-");
    case KernelsColumn:
        return static_cast<qulonglong>(r.kernelCount);
    case StatusColumn:
        return ok ? tr("ok") : tr("failed");
    }
    return {};
}

QVariant RunListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case RunColumn:
        return tr("Run");
    case ModelColumn:
        return tr("Model");
    case SchedulerColumn:
        return tr("Scheduler");
    case BatchColumn:
        return tr("Batch");
    case DeviceColumn:
        return tr("Device");
    case LatencyColumn:
        return tr("Latency (ms)");
    case WarpsColumn:
        return tr("Avg warps");
    case KernelsColumn:
        return tr("Kernels");
    case StatusColumn:
        return tr("Status");
    }
    return {};
}

} // namespace opsched
