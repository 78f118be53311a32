// Hand editing of a stage schedule: drag ops between groups and stages, see at once whether the
// result is valid (and why not) and its latency on the device; undo and redo every step.
#pragma once

#include "schedules/schedule_editor_model.h"

#include <QWidget>

#include <memory>
#include <string>

class QLabel;
class QTreeView;
class QUndoStack;

namespace opsched {

class ScheduleEditor : public QWidget {
    Q_OBJECT

public:
    explicit ScheduleEditor(QWidget* parent = nullptr);

    // Starts editing `schedule` of `graph`, evaluated on `device` (sim:NAME).
    void edit(std::shared_ptr<const Graph> graph, const Schedule& schedule, const std::string& device, bool cudaGraph);
    void clear();

    const Schedule& schedule() const { return model_->schedule(); }
    QUndoStack* undoStack() const { return undo_; }
    ScheduleEditorModel* model() const { return model_; }
    bool isValid() const { return valid_; }
    double latency() const { return latency_; } // seconds; 0 when invalid
    QString verdict() const; // what the status line says
    // Edits made since the schedule was opened or last marked saved (an export marks it).
    bool hasUnsavedEdits() const;
    void markSaved();
    QTreeView* tree() const { return tree_; }

public slots:
    // Records an edit on the undo stack and shows its verdict.
    void apply(const opsched::Schedule& schedule, const QString& description);

signals:
    void evaluated(bool valid, double latencySeconds);

private:
    void setCurrent(const Schedule& schedule, bool keepExpansion = true); // no undo entry
    void evaluate();

    std::shared_ptr<const Graph> graph_;
    std::string device_;
    bool cudaGraph_ = false;
    ScheduleEditorModel* model_ = nullptr;
    QTreeView* tree_ = nullptr;
    QLabel* status_ = nullptr;
    QUndoStack* undo_ = nullptr;
    bool valid_ = false;
    double latency_ = 0;
    std::vector<std::string> problems_;
};

} // namespace opsched
