#include "schedules/schedule_editor_model.h"

#include "plan/schedule_edit.h"
#include "util/error.h"

#include <QMimeData>

namespace opsched {
namespace {

// internalId layout: kind in the top 2 bits, stage in 20 bits, group in 20 bits, op position in 20.
constexpr quintptr kStageTag = 1, kGroupTag = 2, kOpTag = 3;

quintptr pack(quintptr tag, std::size_t stage, std::size_t group = 0, std::size_t pos = 0)
{
    return (tag << 62) | (static_cast<quintptr>(stage) << 40) | (static_cast<quintptr>(group) << 20)
        | static_cast<quintptr>(pos);
}
quintptr tagOf(quintptr id)
{
    return id >> 62;
}
std::size_t stageOf(quintptr id)
{
    return (id >> 40) & 0xFFFFF;
}
std::size_t groupOf(quintptr id)
{
    return (id >> 20) & 0xFFFFF;
}
std::size_t posOf(quintptr id)
{
    return id & 0xFFFFF;
}

} // namespace

void ScheduleEditorModel::setGraph(std::shared_ptr<const Graph> graph)
{
    beginResetModel();
    graph_ = std::move(graph);
    schedule_ = Schedule {};
    endResetModel();
}

void ScheduleEditorModel::setSchedule(const Schedule& schedule)
{
    beginResetModel();
    schedule_ = schedule;
    endResetModel();
}

ScheduleEditorModel::Kind ScheduleEditorModel::kind(const QModelIndex& index) const
{
    const quintptr tag = tagOf(index.internalId());
    return tag == kStageTag ? StageItem : tag == kGroupTag ? GroupItem : OpItem;
}

OpId ScheduleEditorModel::op(const QModelIndex& index) const
{
    if (!index.isValid() || tagOf(index.internalId()) != kOpTag)
        return OpId {};
    const quintptr id = index.internalId();
    return schedule_.stages[stageOf(id)].groups[groupOf(id)][posOf(id)];
}

QModelIndex ScheduleEditorModel::indexOf(OpId op) const
{
    const auto place = findOp(schedule_, op);
    if (!place)
        return {};
    return createIndex(static_cast<int>(place->position), 0, pack(kOpTag, place->stage, place->group, place->position));
}

QModelIndex ScheduleEditorModel::index(int row, int column, const QModelIndex& parent) const
{
    if (row < 0 || column != 0 || row >= rowCount(parent))
        return {};
    const auto r = static_cast<std::size_t>(row);
    if (!parent.isValid())
        return createIndex(row, 0, pack(kStageTag, r));
    const quintptr p = parent.internalId();
    if (tagOf(p) == kStageTag)
        return createIndex(row, 0, pack(kGroupTag, stageOf(p), r));
    return createIndex(row, 0, pack(kOpTag, stageOf(p), groupOf(p), r));
}

QModelIndex ScheduleEditorModel::parent(const QModelIndex& child) const
{
    if (!child.isValid())
        return {};
    const quintptr id = child.internalId();
    if (tagOf(id) == kStageTag)
        return {};
    if (tagOf(id) == kGroupTag)
        return createIndex(static_cast<int>(stageOf(id)), 0, pack(kStageTag, stageOf(id)));
    return createIndex(static_cast<int>(groupOf(id)), 0, pack(kGroupTag, stageOf(id), groupOf(id)));
}

int ScheduleEditorModel::rowCount(const QModelIndex& parent) const
{
    if (!parent.isValid())
        return static_cast<int>(schedule_.stages.size());
    if (parent.column() != 0)
        return 0;
    const quintptr id = parent.internalId();
    if (tagOf(id) == kStageTag)
        return static_cast<int>(schedule_.stages[stageOf(id)].groups.size());
    if (tagOf(id) == kGroupTag)
        return static_cast<int>(schedule_.stages[stageOf(id)].groups[groupOf(id)].size());
    return 0;
}

int ScheduleEditorModel::columnCount(const QModelIndex&) const
{
    return 1;
}

QVariant ScheduleEditorModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || (role != Qt::DisplayRole && role != Qt::ToolTipRole))
        return {};
    const quintptr id = index.internalId();
    switch (tagOf(id)) {
    case kStageTag: {
        const Stage& s = schedule_.stages[stageOf(id)];
        return tr("stage %1 (%2, %3 ops)")
            .arg(stageOf(id))
            .arg(QString::fromUtf8(toString(s.strategy)))
            .arg(s.opCount());
    }
    case kGroupTag:
        return tr("group %1").arg(groupOf(id));
    default: {
        const OpId o = op(index);
        if (!graph_ || o.value() >= graph_->opCount())
            return QString::number(o.value());
        return QString::fromStdString(graph_->op(o).name);
    }
    }
}

Qt::ItemFlags ScheduleEditorModel::flags(const QModelIndex& index) const
{
    if (!index.isValid())
        return Qt::ItemIsDropEnabled; // dropping on the root makes a new stage
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (tagOf(index.internalId()) == kOpTag)
        return f | Qt::ItemIsDragEnabled;
    return f | Qt::ItemIsDropEnabled;
}

QStringList ScheduleEditorModel::mimeTypes() const
{
    return { QString::fromLatin1(kMimeType) };
}

QMimeData* ScheduleEditorModel::mimeData(const QModelIndexList& indexes) const
{
    for (const auto& i : indexes)
        if (op(i).valid()) {
            auto* mime = new QMimeData;
            mime->setData(QString::fromLatin1(kMimeType), QByteArray::number(op(i).value()));
            return mime;
        }
    return nullptr;
}

bool ScheduleEditorModel::canDropMimeData(
    const QMimeData* data, Qt::DropAction action, int, int, const QModelIndex&) const
{
    return data && action == Qt::MoveAction && data->hasFormat(QString::fromLatin1(kMimeType));
}

bool ScheduleEditorModel::dropMimeData(
    const QMimeData* data, Qt::DropAction action, int row, int column, const QModelIndex& parent)
{
    if (!canDropMimeData(data, action, row, column, parent))
        return false;
    bool ok = false;
    const OpId moved(data->data(QString::fromLatin1(kMimeType)).toUInt(&ok));
    if (!ok || !findOp(schedule_, moved))
        return false;
    const QString name = graph_ && moved.value() < graph_->opCount() ? QString::fromStdString(graph_->op(moved).name)
                                                                     : QString::number(moved.value());
    try {
        Schedule edited;
        QString what;
        if (!parent.isValid()) { // between stages: a stage of its own
            const auto before = row < 0 ? schedule_.stages.size() : static_cast<std::size_t>(row);
            edited = moveOpToNewStage(schedule_, moved, before);
            what = tr("move %1 to a new stage").arg(name);
        } else if (tagOf(parent.internalId()) == kStageTag) { // onto a stage: a new group there
            const std::size_t stage = stageOf(parent.internalId());
            edited = moveOp(schedule_, moved, stage, schedule_.stages[stage].groups.size(), 0);
            what = tr("move %1 to a new group of stage %2").arg(name).arg(stage);
        } else if (tagOf(parent.internalId()) == kGroupTag) {
            const std::size_t stage = stageOf(parent.internalId()), group = groupOf(parent.internalId());
            const auto pos = row < 0 ? schedule_.stages[stage].groups[group].size() : static_cast<std::size_t>(row);
            edited = moveOp(schedule_, moved, stage, group, pos);
            what = tr("move %1 to stage %2, group %3").arg(name).arg(stage).arg(group);
        } else {
            return false;
        }
        emit editRequested(edited, what);
    } catch (const Error&) {
        return false;
    }
    // The editor sets the new schedule (and resets the model); report no move so the view does not
    // remove the dragged row itself.
    return false;
}

} // namespace opsched
