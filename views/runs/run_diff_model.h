// Two runs of one model compared op by op (engine/timeline/run_diff.h), as the Diff view's sortable
// table: where each op started, how long it ran and on which stream in run A and in run B.
#pragma once

#include "common/sortable_table_model.h"
#include "engine/timeline/run_diff.h"

#include <vector>

namespace opsched {

class RunDiffModel : public SortableTableModel {
    Q_OBJECT

public:
    enum Column {
        OpColumn,
        StartAColumn,
        StartBColumn,
        StartDeltaColumn,
        DurationAColumn,
        DurationBColumn,
        DurationDeltaColumn,
        StreamAColumn,
        StreamBColumn,
        ColumnCount
    };
    static constexpr int OpRole = Qt::UserRole + 2;

    using SortableTableModel::SortableTableModel;
    void setDiff(RunDiff diff);
    const RunDiff& diff() const { return diff_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    RunDiff diff_;
    std::vector<QString> distinct_; // per row: distinctEndings of the op names
};

} // namespace opsched
