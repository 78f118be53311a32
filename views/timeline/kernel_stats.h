// The GPU kernel summary of Nsight Systems for a run or a time range: per kernel name (or per op
// type) the number of launches, total, average, minimum and maximum time, and the share of all
// kernel time. A value type (kernelSummary, kernelSummaryCsv) and the sortable table model that
// shows it.
#pragma once

#include "common/sortable_table_model.h"
#include "engine/timeline/timeline_data.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace opsched {

struct KernelSummaryRow {
    std::string name;
    std::size_t count = 0;
    double total = 0; // seconds
    double min = 0;
    double max = 0;
    double share = 0; // total / the total of every row, 0..1

    double average() const { return count ? total / static_cast<double>(count) : 0.0; }
};

enum class KernelGrouping { ByName, ByOpType };

// The kernels of `data`'s kernel rows (whole kernels that overlap `range` when given), grouped,
// largest total first (ties by name). `typeName(colourClass)` names an op type for ByOpType; by
// default the class number. Empty when the run has no kernel rows.
std::vector<KernelSummaryRow> kernelSummary(const TimelineData& data,
    std::optional<std::pair<double, double>> range = std::nullopt, KernelGrouping grouping = KernelGrouping::ByName,
    const std::function<std::string(std::uint32_t)>& typeName = {});

// RFC 4180 CSV with a header; times in microseconds, the share in percent.
std::string kernelSummaryCsv(const std::vector<KernelSummaryRow>& rows);

class KernelStatsModel : public SortableTableModel {
    Q_OBJECT

public:
    enum Column { NameColumn, CountColumn, TotalColumn, AverageColumn, MinColumn, MaxColumn, ShareColumn, ColumnCount };

    using SortableTableModel::SortableTableModel;
    void setRows(std::vector<KernelSummaryRow> rows);
    const std::vector<KernelSummaryRow>& rows() const { return rows_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<KernelSummaryRow> rows_;
    std::vector<QString> distinct_; // per row: distinctEndings of the names
};

} // namespace opsched
