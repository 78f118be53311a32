// The schedules computed for the open model, one row each, with speedup over the sequential run
// on the same device and batch (when there is one).
#pragma once

#include "common/sortable_table_model.h"
#include "engine/results/schedule_result.h"

#include <memory>
#include <vector>

namespace opsched {

class ScheduleResultsModel : public SortableTableModel {
    Q_OBJECT

public:
    enum Column {
        SchedulerColumn,
        DeviceColumn,
        BatchColumn,
        LatencyColumn,
        SpeedupColumn,
        StagesColumn,
        StreamsColumn,
        WarpsColumn,
        SearchColumn,
        ColumnCount
    };

    using SortableTableModel::SortableTableModel;

    void add(std::shared_ptr<const ScheduleResult> result);
    void clear();
    void remove(int row); // out of range: nothing
    std::shared_ptr<const ScheduleResult> result(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    double speedup(const ScheduleResult& r) const; // 0 when there is no sequential baseline
    std::vector<std::shared_ptr<const ScheduleResult>> results_;
};

} // namespace opsched
