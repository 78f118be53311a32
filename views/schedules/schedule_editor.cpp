#include "schedules/schedule_editor.h"

#include "engine/evaluation.h"

#include "engine/device_ref.h"
#include "plan/plan.h"
#include "util/error.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QScrollBar>
#include <QToolButton>
#include <QTreeView>
#include <QUndoCommand>
#include <QUndoStack>
#include <QVBoxLayout>

namespace opsched {
namespace {

// An edit is the schedule before and after: schedules are values.
class SetScheduleCommand : public QUndoCommand {
public:
    SetScheduleCommand(std::function<void(const Schedule&)> set, Schedule before, Schedule after, const QString& text)
        : QUndoCommand(text)
        , set_(std::move(set))
        , before_(std::move(before))
        , after_(std::move(after))
    {
    }
    void undo() override { set_(before_); }
    void redo() override { set_(after_); }

private:
    std::function<void(const Schedule&)> set_;
    Schedule before_, after_;
};

} // namespace

ScheduleEditor::ScheduleEditor(QWidget* parent)
    : QWidget(parent)
{
    model_ = new ScheduleEditorModel(this);
    undo_ = new QUndoStack(this);
    tree_ = new QTreeView;
    tree_->setObjectName(QStringLiteral("scheduleTree"));
    tree_->setModel(model_);
    tree_->setHeaderHidden(true);
    tree_->setDragDropMode(QAbstractItemView::DragDrop);
    tree_->setDefaultDropAction(Qt::MoveAction);
    tree_->setDropIndicatorShown(true);
    status_ = new QLabel;
    status_->setObjectName(QStringLiteral("editorStatus"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* undoButton = new QToolButton;
    undoButton->setDefaultAction(undo_->createUndoAction(this, tr("Undo")));
    auto* redoButton = new QToolButton;
    redoButton->setDefaultAction(undo_->createRedoAction(this, tr("Redo")));
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(undoButton);
    buttons->addWidget(redoButton);
    buttons->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->addLayout(buttons);
    layout->addWidget(status_);
    layout->addWidget(tree_, 1);

    connect(model_, &ScheduleEditorModel::editRequested, this, &ScheduleEditor::apply, Qt::QueuedConnection);
    clear();
}

void ScheduleEditor::edit(
    std::shared_ptr<const Graph> graph, const Schedule& schedule, const std::string& device, bool cudaGraph)
{
    graph_ = std::move(graph);
    device_ = device;
    cudaGraph_ = cudaGraph;
    undo_->clear();
    model_->setGraph(graph_);
    setCurrent(schedule, false);
    setEnabled(true);
}

void ScheduleEditor::clear()
{
    graph_.reset();
    undo_->clear();
    model_->setGraph(nullptr);
    valid_ = false;
    latency_ = 0;
    problems_.clear();
    status_->setText(tr("Select a stage schedule (sequential, greedy, ios) to edit it."));
    setEnabled(false);
}

void ScheduleEditor::apply(const Schedule& schedule, const QString& description)
{
    if (!graph_)
        return;
    undo_->push(new SetScheduleCommand(
        [this](const Schedule& s) { setCurrent(s); }, model_->schedule(), schedule, description));
}

void ScheduleEditor::setCurrent(const Schedule& schedule, bool keepExpansion)
{
    // An edit resets the model: remember which stages and groups were open (by position) and where
    // the tree was scrolled, and restore both, so the tree does not collapse under the user.
    std::vector<std::pair<int, int>> open; // (stage, -1) or (stage, group)
    const int scroll = tree_->verticalScrollBar()->value();
    if (keepExpansion)
        for (int st = 0; st < model_->rowCount(); ++st) {
            const QModelIndex stage = model_->index(st, 0);
            if (!tree_->isExpanded(stage))
                continue;
            open.emplace_back(st, -1);
            for (int g = 0; g < model_->rowCount(stage); ++g)
                if (tree_->isExpanded(model_->index(g, 0, stage)))
                    open.emplace_back(st, g);
        }
    model_->setSchedule(schedule);
    if (!keepExpansion)
        tree_->expandToDepth(0);
    else {
        for (const auto& [st, g] : open) {
            if (st >= model_->rowCount())
                continue;
            const QModelIndex stage = model_->index(st, 0);
            tree_->expand(g < 0 ? stage : model_->index(g, 0, stage));
        }
        tree_->verticalScrollBar()->setValue(scroll);
    }
    evaluate();
}

bool ScheduleEditor::hasUnsavedEdits() const
{
    return graph_ && undo_->count() > 0 && !undo_->isClean();
}

void ScheduleEditor::markSaved()
{
    undo_->setClean();
}

void ScheduleEditor::evaluate()
{
    latency_ = 0;
    if (!graph_) {
        problems_ = { "no model" };
    } else {
        try {
            // Edits are timed on the simulator after every change; simDeviceFor refuses, in the
            // engine's words, a device that is not simulated.
            (void)engine::simDeviceFor(device_);
            engine::DeviceTarget target(device_, cudaGraph_);
            const engine::Evaluation e = engine::evaluateSchedule(*graph_, model_->schedule(), target);
            problems_ = e.problems;
            latency_ = e.valid() ? e.latency.median : 0;
        } catch (const Error& e) { // a device that cannot be used
            problems_ = { e.what() };
        }
    }
    valid_ = problems_.empty();
    status_->setText(verdict());
    emit evaluated(valid_, latency_);
}

QString ScheduleEditor::verdict() const
{
    if (valid_)
        return tr("valid: %1 ms on %2").arg(latency_ * 1e3, 0, 'f', 3).arg(QString::fromStdString(device_));
    QString text = tr("invalid:");
    for (std::size_t i = 0; i < problems_.size() && i < 4; ++i)
        text += QStringLiteral("\n  ") + QString::fromStdString(problems_[i]);
    if (problems_.size() > 4)
        text += tr("\n  ... and %1 more").arg(problems_.size() - 4);
    return text;
}

} // namespace opsched
