#include "runs/run_diff_model.h"

#include "common/name_fit.h"

#include "timeline/time_ruler.h"

#include <QColor>

#include <algorithm>
#include <cmath>
#include <limits>

namespace opsched {

void RunDiffModel::setDiff(RunDiff diff)
{
    beginResetModel();
    diff_ = std::move(diff);
    std::vector<QString> names;
    for (const auto& d : diff_.ops)
        names.push_back(QString::fromStdString(d.name));
    distinct_ = distinctEndings(names);
    endResetModel();
}

int RunDiffModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(diff_.ops.size());
}

int RunDiffModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunDiffModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const OpDiff& d = diff_.ops[static_cast<std::size_t>(index.row())];
    const auto column = static_cast<Column>(index.column());
    if (role == OpRole)
        return d.op;
    auto number = [&]() -> std::optional<double> {
        switch (column) {
        case StartAColumn:
            return d.a ? std::optional<double>(d.a->start) : std::nullopt;
        case StartBColumn:
            return d.b ? std::optional<double>(d.b->start) : std::nullopt;
        case StartDeltaColumn:
            return d.inBoth() ? std::optional<double>(d.startDelta()) : std::nullopt;
        case DurationAColumn:
            return d.a ? std::optional<double>(d.a->duration()) : std::nullopt;
        case DurationBColumn:
            return d.b ? std::optional<double>(d.b->duration()) : std::nullopt;
        case DurationDeltaColumn:
            return d.inBoth() ? std::optional<double>(d.durationDelta()) : std::nullopt;
        case StreamAColumn:
            return d.a ? std::optional<double>(static_cast<double>(d.a->stream)) : std::nullopt;
        case StreamBColumn:
            return d.b ? std::optional<double>(static_cast<double>(d.b->stream)) : std::nullopt;
        default:
            return std::nullopt;
        }
    };
    if (role == SortRole) {
        if (column == OpColumn)
            return d.op;
        const auto v = number();
        return v ? QVariant(*v) : QVariant(std::numeric_limits<double>::lowest());
    }
    if (role == DistinctNameRole && column == OpColumn)
        return distinct_[static_cast<std::size_t>(index.row())];
    if (role == Qt::DisplayRole) {
        if (column == OpColumn)
            return QString::fromStdString(d.name);
        const auto v = number();
        if (!v)
            return QStringLiteral("—");
        if (column == StreamAColumn || column == StreamBColumn)
            return static_cast<qlonglong>(*v);
        const std::string text = formatDuration(std::abs(*v));
        const bool delta = column == StartDeltaColumn || column == DurationDeltaColumn;
        return QString::fromStdString((delta && *v > 0 ? "+" : delta && *v < 0 ? "-" : "") + text);
    }
    if (role == Qt::TextAlignmentRole && column != OpColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ForegroundRole) {
        if ((column == StreamBColumn && d.streamChanged()))
            return QColor(180, 80, 0);
        if (column == DurationDeltaColumn && d.inBoth() && std::abs(d.durationDelta()) > 1e-12)
            return d.durationDelta() > 0 ? QColor(190, 30, 30) : QColor(20, 130, 40);
    }
    return {};
}

QVariant RunDiffModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case OpColumn:
        return tr("Op");
    case StartAColumn:
        return tr("Start A");
    case StartBColumn:
        return tr("Start B");
    case StartDeltaColumn:
        return tr("Δ Start");
    case DurationAColumn:
        return tr("Duration A");
    case DurationBColumn:
        return tr("Duration B");
    case DurationDeltaColumn:
        return tr("Δ Duration");
    case StreamAColumn:
        return tr("Stream A");
    case StreamBColumn:
        return tr("Stream B");
    default:
        return {};
    }
}

} // namespace opsched
