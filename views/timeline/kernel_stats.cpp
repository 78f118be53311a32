#include "timeline/kernel_stats.h"

#include "common/name_fit.h"

#include "timeline/time_ruler.h"

#include "util/csv.h"

#include <algorithm>
#include <cstdio>
#include <map>

namespace opsched {

std::vector<KernelSummaryRow> kernelSummary(const TimelineData& data, std::optional<std::pair<double, double>> range,
    KernelGrouping grouping, const std::function<std::string(std::uint32_t)>& typeName)
{
    std::map<std::string, KernelSummaryRow> groups;
    double all = 0;
    for (std::size_t r = 0; r < data.rows.rowCount(); ++r) {
        if (data.rowKind(r) != TimelineRowKind::Kernels)
            continue;
        const auto& spans = data.rows.row(r);
        std::size_t first = 0, last = spans.size();
        if (range) {
            const double a = std::min(range->first, range->second), b = std::max(range->first, range->second);
            std::tie(first, last) = data.rows.visible(r, a, b);
        }
        for (std::size_t i = first; i < last; ++i) {
            const TimelineSpan& s = spans[i];
            if (range
                && (s.end < std::min(range->first, range->second) || s.start > std::max(range->first, range->second)))
                continue;
            std::string key;
            if (grouping == KernelGrouping::ByOpType)
                key = typeName ? typeName(s.colour) : "type " + std::to_string(s.colour);
            else
                key = s.id < data.kernels.size() ? data.kernels[s.id].name : "kernel " + std::to_string(s.id);
            const double d = std::max(0.0, s.end - s.start);
            auto [it, fresh] = groups.try_emplace(key);
            KernelSummaryRow& row = it->second;
            if (fresh) {
                row.name = key;
                row.min = row.max = d;
            }
            ++row.count;
            row.total += d;
            row.min = std::min(row.min, d);
            row.max = std::max(row.max, d);
            all += d;
        }
    }
    std::vector<KernelSummaryRow> rows;
    rows.reserve(groups.size());
    for (auto& [key, row] : groups) {
        row.share = all > 0 ? row.total / all : 0.0;
        rows.push_back(std::move(row));
    }
    std::stable_sort(rows.begin(), rows.end(),
        [](const KernelSummaryRow& a, const KernelSummaryRow& b) { return a.total > b.total; });
    return rows;
}

std::string kernelSummaryCsv(const std::vector<KernelSummaryRow>& rows)
{
    std::string out = "name,count,total_us,avg_us,min_us,max_us,time_percent\n";
    char buffer[256];
    for (const auto& r : rows) {
        std::snprintf(buffer, sizeof buffer, ",%zu,%.3f,%.3f,%.3f,%.3f,%.2f\n", r.count, r.total * 1e6,
            r.average() * 1e6, r.min * 1e6, r.max * 1e6, r.share * 100.0);
        out += csvField(r.name);
        out += buffer;
    }
    return out;
}

void KernelStatsModel::setRows(std::vector<KernelSummaryRow> rows)
{
    beginResetModel();
    rows_ = std::move(rows);
    std::vector<QString> names;
    for (const auto& r : rows_)
        names.push_back(QString::fromStdString(r.name));
    distinct_ = distinctEndings(names);
    endResetModel();
}

int KernelStatsModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int KernelStatsModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant KernelStatsModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount)
        return {};
    const KernelSummaryRow& r = rows_[static_cast<std::size_t>(index.row())];
    const auto column = static_cast<Column>(index.column());
    if (role == SortRole) {
        switch (column) {
        case TotalColumn:
            return r.total;
        case AverageColumn:
            return r.average();
        case MinColumn:
            return r.min;
        case MaxColumn:
            return r.max;
        case ShareColumn:
            return r.share;
        default: // the name and the count sort by what they show
            return data(index, Qt::DisplayRole);
        }
    }
    if (role == DistinctNameRole && column == NameColumn)
        return distinct_[static_cast<std::size_t>(index.row())];
    if (role == Qt::DisplayRole) {
        switch (column) {
        case NameColumn:
            return QString::fromStdString(r.name);
        case CountColumn:
            return static_cast<qulonglong>(r.count);
        case TotalColumn:
            return QString::fromStdString(formatDuration(r.total));
        case AverageColumn:
            return QString::fromStdString(formatDuration(r.average()));
        case MinColumn:
            return QString::fromStdString(formatDuration(r.min));
        case MaxColumn:
            return QString::fromStdString(formatDuration(r.max));
        case ShareColumn:
            return QStringLiteral("%1 %").arg(r.share * 100.0, 0, 'f', 1);
        case ColumnCount:
            break;
        }
        return {};
    }
    if (role == Qt::TextAlignmentRole && column != NameColumn)
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::ToolTipRole && column == NameColumn)
        return QString::fromStdString(r.name);
    return {};
}

QVariant KernelStatsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case NameColumn:
        return tr("Kernel");
    case CountColumn:
        return tr("Count");
    case TotalColumn:
        return tr("Total");
    case AverageColumn:
        return tr("Avg");
    case MinColumn:
        return tr("Min");
    case MaxColumn:
        return tr("Max");
    case ShareColumn:
        return tr("Time %");
    default:
        return {};
    }
}

} // namespace opsched
