#include "timeline/range_stats_model.h"

#include "common/byte_format.h"

#include "timeline/time_ruler.h"

namespace opsched {

void RangeStatsModel::setStats(RangeStats stats)
{
    beginResetModel();
    stats_ = std::move(stats);
    endResetModel();
}

int RangeStatsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(stats_.streams.size());
}

int RangeStatsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RangeStatsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const StreamRangeStats& s = stats_.streams[static_cast<std::size_t>(index.row())];
    const auto column = static_cast<Column>(index.column());
    if (role == RowRole)
        return static_cast<qulonglong>(s.row);
    if (role == SortRole) {
        switch (column) {
        case StreamColumn:
            return static_cast<qulonglong>(s.row);
        case BusyColumn:
        case ShareColumn:
            return s.busy;
        case ConcurrencyColumn:
            return s.concurrency;
        case OpsColumn:
            return static_cast<qulonglong>(s.ops);
        case KernelsColumn:
            return static_cast<qulonglong>(s.kernels);
        case ColumnCount:
            break;
        }
        return {};
    }
    if (role == Qt::DisplayRole) {
        switch (column) {
        case StreamColumn:
            return QString::fromStdString(s.name);
        case BusyColumn:
            return QString::fromStdString(formatDuration(s.busy));
        case ShareColumn:
            return QStringLiteral("%1 %").arg(stats_.utilisation(s) * 100.0, 0, 'f', 1);
        case ConcurrencyColumn:
            return s.busy > 0 ? QString::number(s.concurrency, 'f', 2) : QStringLiteral("-");
        case OpsColumn:
            return static_cast<qulonglong>(s.ops);
        case KernelsColumn:
            return stats_.hasKernels ? QVariant(static_cast<qulonglong>(s.kernels)) : QVariant(tr("n/a"));
        case ColumnCount:
            break;
        }
        return {};
    }
    if (role == Qt::ToolTipRole && column == KernelsColumn && !stats_.hasKernels)
        return tr("This run has no kernel data: a mapping is predicted from per-op costs.");
    if (role == Qt::TextAlignmentRole && column != StreamColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

// Header tooltips: what each number is.
static QString columnHelp(int section)
{
    switch (section) {
    case RangeStatsModel::BusyColumn:
        return QObject::tr("Time in the range when one of the stream's ops runs");
    case RangeStatsModel::ShareColumn:
        return QObject::tr("Busy time as a share of the range");
    case RangeStatsModel::ConcurrencyColumn:
        return QObject::tr("While this stream is busy, how many streams (itself included) are busy on average");
    case RangeStatsModel::OpsColumn:
        return QObject::tr("Ops overlapping the range");
    case RangeStatsModel::KernelsColumn:
        return QObject::tr("Kernels overlapping the range");
    default:
        return {};
    }
}

QVariant RangeStatsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole)
        return columnHelp(section);
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case StreamColumn:
        return tr("Stream");
    case BusyColumn:
        return tr("Busy");
    case ShareColumn:
        return tr("Busy %");
    case ConcurrencyColumn:
        return tr("Conc.");
    case OpsColumn:
        return tr("Ops");
    case KernelsColumn:
        return tr("Kernels");
    default:
        return {};
    }
}

QString describeRange(const RangeStats& stats)
{
    // A mapping has devices, not streams, and no kernels: it says what crossed its links instead.
    const QString work = stats.hasKernels
        ? QObject::tr("%1 ops, %2 kernels · %3 streams busy on average (peak %4)")
              .arg(stats.ops)
              .arg(stats.kernels)
              .arg(stats.averageConcurrency, 0, 'f', 2)
              .arg(stats.peakConcurrency)
        : QObject::tr("%1 ops, %n transfer(s) (%2) · %3 devices busy on average (peak %4)", nullptr,
            static_cast<int>(stats.transfers))
              .arg(stats.ops)
              .arg(QString::fromStdString(formatBytes(stats.transferredBytes)))
              .arg(stats.averageConcurrency, 0, 'f', 2)
              .arg(stats.peakConcurrency);
    QString text = QObject::tr("Δt %1 (%2 – %3) · %4")
                       .arg(QString::fromStdString(formatDuration(stats.duration())),
                           QString::fromStdString(formatTime(stats.start, stats.end, stats.duration() / 100)),
                           QString::fromStdString(formatTime(stats.end, stats.end, stats.duration() / 100)), work);
    if (stats.hasWarps)
        text += QObject::tr(" · %1 active warps on average").arg(stats.averageWarps, 0, 'f', 0);
    // The host row: a range where no kernel runs is explained by launches (host-bound) or waits.
    if (stats.hasHost) {
        text += QObject::tr(" · host: %n launch call(s) (%1)", nullptr, static_cast<int>(stats.hostLaunches))
                    .arg(QString::fromStdString(formatDuration(stats.hostLaunchSeconds)));
        if (stats.hostWaitSeconds > 0)
            text += QObject::tr(", waiting for kernels %1")
                        .arg(QString::fromStdString(formatDuration(stats.hostWaitSeconds)));
        if (stats.hostBarrierSeconds > 0)
            text += QObject::tr(", joining streams %1")
                        .arg(QString::fromStdString(formatDuration(stats.hostBarrierSeconds)));
        if (stats.hostOtherSeconds > 0)
            text += QObject::tr(", other CUDA calls %1")
                        .arg(QString::fromStdString(formatDuration(stats.hostOtherSeconds)));
    }
    return text;
}

} // namespace opsched
