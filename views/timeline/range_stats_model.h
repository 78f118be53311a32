// The per-stream rows of a RangeStats as a sortable table: stream, busy time, busy share of the
// range, streams running with it (its concurrency), ops and kernels in it.
#pragma once

#include "common/sortable_table_model.h"
#include "engine/timeline/range_stats.h"

namespace opsched {

class RangeStatsModel : public SortableTableModel {
    Q_OBJECT

public:
    enum Column { StreamColumn, BusyColumn, ShareColumn, ConcurrencyColumn, OpsColumn, KernelsColumn, ColumnCount };
    static constexpr int RowRole = Qt::UserRole + 2; // the stream's timeline row

    using SortableTableModel::SortableTableModel;
    void setStats(RangeStats stats);
    const RangeStats& stats() const { return stats_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    RangeStats stats_;
};

// One line about a range: "Δt 1.23 ms · 57 ops, 212 kernels · 3.4 streams busy on average (peak 9)
// · 1234 active warps on average".
QString describeRange(const RangeStats& stats);

} // namespace opsched
