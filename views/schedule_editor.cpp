#include "schedule_editor.h"

#include "plan/plan.h"
#include "sim/simulator.h"
#include "util/error.h"

#include <QHBoxLayout>
#include <QLabel>
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
        : QUndoCommand(text), set_(std::move(set)), before_(std::move(before)), after_(std::move(after))
    {
    }
    void undo() override { set_(before_); }
    void redo() override { set_(after_); }

private:
    std::function<void(const Schedule&)> set_;
    Schedule before_, after_;
};

} // namespace

ScheduleEditor::ScheduleEditor(QWidget* parent) : QWidget(parent)
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

void ScheduleEditor::edit(std::shared_ptr<const Graph> graph, const Schedule& schedule, const std::string& device,
                          bool cudaGraph)
{
    graph_ = std::move(graph);
    device_ = device;
    cudaGraph_ = cudaGraph;
    undo_->clear();
    model_->setGraph(graph_);
    setCurrent(schedule);
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
    undo_->push(new SetScheduleCommand([this](const Schedule& s) { setCurrent(s); }, model_->schedule(), schedule,
                                       description));
}

void ScheduleEditor::setCurrent(const Schedule& schedule)
{
    model_->setSchedule(schedule);
    tree_->expandToDepth(0);
    evaluate();
}

void ScheduleEditor::evaluate()
{
    problems_ = graph_ ? validate(*graph_, model_->schedule()) : std::vector<std::string>{"no model"};
    valid_ = problems_.empty();
    latency_ = 0;
    if (valid_) {
        try {
            const Plan plan = compileSchedule(*graph_, model_->schedule());
            latency_ = simulate(*graph_, plan, findSimDevice(device_), SimOptions{cudaGraph_}).latency;
        } catch (const Error& e) {
            valid_ = false;
            problems_ = {e.what()};
        }
    }
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
