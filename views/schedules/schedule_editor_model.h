// A stage schedule as a tree (stages > groups > ops) that ops can be dragged around in. The model
// does not change the schedule itself: a drop becomes editRequested(new schedule), which the editor
// puts on its undo stack and sets back with setSchedule.
#pragma once

#include "graph/graph.h"
#include "plan/schedule.h"

#include <QAbstractItemModel>

#include <memory>

namespace opsched {

class ScheduleEditorModel : public QAbstractItemModel {
    Q_OBJECT

public:
    static constexpr const char* kMimeType = "application/x-opsched-op";
    enum Kind { StageItem, GroupItem, OpItem };

    using QAbstractItemModel::QAbstractItemModel;

    void setGraph(std::shared_ptr<const Graph> graph);
    void setSchedule(const Schedule& schedule);
    const Schedule& schedule() const { return schedule_; }

    Kind kind(const QModelIndex& index) const;
    // For ops: the op; for groups and stages: invalid.
    OpId op(const QModelIndex& index) const;
    QModelIndex indexOf(OpId op) const;

    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

    Qt::DropActions supportedDropActions() const override { return Qt::MoveAction; }
    QStringList mimeTypes() const override;
    QMimeData* mimeData(const QModelIndexList& indexes) const override;
    bool canDropMimeData(
        const QMimeData* data, Qt::DropAction action, int row, int column, const QModelIndex& parent) const override;
    bool dropMimeData(
        const QMimeData* data, Qt::DropAction action, int row, int column, const QModelIndex& parent) override;

signals:
    void editRequested(const opsched::Schedule& schedule, const QString& description);

private:
    // Internal ids encode the item: stage s -> (s+1)<<40, group g of s -> ... (see .cpp).
    std::shared_ptr<const Graph> graph_;
    Schedule schedule_;
};

} // namespace opsched
