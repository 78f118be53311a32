// One row per op of a graph, in the graph's (topological) order: what a person scans first to see
// what a network is made of.
#pragma once

#include "common/sortable_table_model.h"
#include "graph/graph.h"

#include <memory>

namespace opsched {

class OpTableModel : public SortableTableModel {
    Q_OBJECT

public:
    enum Column { NameColumn, TypeColumn, ShapeColumn, GflopColumn, MegabytesColumn, InputsColumn, ColumnCount };

    explicit OpTableModel(QObject* parent = nullptr);

    // Null clears the table.
    void setGraph(std::shared_ptr<const Graph> graph);
    const std::shared_ptr<const Graph>& graph() const { return graph_; }

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::shared_ptr<const Graph> graph_;
    std::vector<QStringList> inputNames_; // predecessor op names per op, in input-term order
};

} // namespace opsched
