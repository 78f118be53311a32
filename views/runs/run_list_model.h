// The runs of a results database, one row each: model, scheduler, batch, device, median latency,
// average active warps, kernels recorded and status. Refreshing with a longer list of the same
// runs (a profiling batch adding runs) appends rows, so selections and scroll positions stay.
#pragma once

#include "common/sortable_table_model.h"
#include "store/records.h"

#include <vector>

namespace opsched {

class RunListModel : public SortableTableModel {
    Q_OBJECT

public:
    enum Column {
        RunColumn,
        ModelColumn,
        SchedulerColumn,
        BatchColumn,
        DeviceColumn,
        LatencyColumn,
        WarpsColumn,
        KernelsColumn,
        StatusColumn,
        ColumnCount
    };

    using SortableTableModel::SortableTableModel;

    void setRuns(std::vector<store::RunSummary> runs);
    void clear() { setRuns({}); }
    const store::RunSummary* run(int row) const;
    // Row of a run id, -1 when not listed.
    int rowOf(store::RunId id) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<store::RunSummary> runs_;
};

} // namespace opsched
