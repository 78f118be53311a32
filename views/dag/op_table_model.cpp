#include "dag/op_table_model.h"

#include <QLocale>

namespace opsched {

OpTableModel::OpTableModel(QObject* parent)
    : SortableTableModel(parent)
{
}

void OpTableModel::setGraph(std::shared_ptr<const Graph> graph)
{
    beginResetModel();
    graph_ = std::move(graph);
    inputNames_.clear();
    if (graph_) {
        // Computed once: sorting and filtering ask for every row many times.
        inputNames_.reserve(graph_->opCount());
        for (const auto& op : graph_->ops()) {
            QStringList names;
            for (auto t : op.inputTensors())
                if (auto producer = graph_->tensor(t).producer; producer.valid())
                    names << QString::fromStdString(graph_->op(producer).name);
            inputNames_.push_back(std::move(names));
        }
    }
    endResetModel();
}

int OpTableModel::rowCount(const QModelIndex& parent) const
{
    return parent.isValid() || !graph_ ? 0 : static_cast<int>(graph_->opCount());
}

int OpTableModel::columnCount(const QModelIndex& parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant OpTableModel::data(const QModelIndex& index, int role) const
{
    if (!index.isValid() || !graph_)
        return {};
    Q_ASSERT(checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid));
    const Op& op = graph_->op(OpId(index.row()));
    const Shape& shape = graph_->tensor(op.output).shape;
    const QStringList& inputs = inputNames_[static_cast<std::size_t>(index.row())];

    switch (role) {
    case Qt::DisplayRole:
        switch (index.column()) {
        case NameColumn:
            return QString::fromStdString(op.name);
        case TypeColumn:
            return QString::fromLatin1(toString(op.kind));
        case ShapeColumn:
            return QString::fromStdString(shape.toString());
        case GflopColumn:
            return QString::number(op.cost.flops / 1e9, 'f', 3);
        case MegabytesColumn:
            return QString::number(op.cost.bytes() / 1e6, 'f', 2);
        case InputsColumn:
            return inputs.join(QStringLiteral(", "));
        }
        break;
    case SortRole:
        switch (index.column()) {
        case ShapeColumn:
            return static_cast<qlonglong>(shape.elements());
        case GflopColumn:
            return op.cost.flops;
        case MegabytesColumn:
            return op.cost.bytes();
        case InputsColumn:
            return static_cast<int>(inputs.size());
        default:
            return data(index, Qt::DisplayRole);
        }
    case Qt::ToolTipRole: {
        const QLocale locale;
        switch (index.column()) {
        case NameColumn:
        case TypeColumn: {
            QStringList layers;
            for (const auto& layer : op.layers)
                layers << QString::fromLatin1(layer.kindName());
            return tr("%1: %2 (%3)")
                .arg(QString::fromStdString(op.name), QString::fromLatin1(toString(op.kind)),
                    layers.join(QStringLiteral(" → ")));
        }
        case ShapeColumn:
            return tr("%1 elements").arg(locale.toString(static_cast<qlonglong>(shape.elements())));
        case GflopColumn:
            return tr("%1 FLOP").arg(locale.toString(op.cost.flops, 'f', 0));
        case MegabytesColumn:
            return tr("%1 B read, %2 B written")
                .arg(locale.toString(op.cost.bytesRead, 'f', 0), locale.toString(op.cost.bytesWritten, 'f', 0));
        case InputsColumn:
            return inputs.isEmpty() ? tr("reads only graph inputs") : inputs.join(QLatin1Char('\n'));
        }
        break;
    }
    case Qt::TextAlignmentRole:
        if (index.column() == GflopColumn || index.column() == MegabytesColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        break;
    default:
        break;
    }
    return {};
}

QVariant OpTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Vertical)
        return QAbstractTableModel::headerData(section, orientation, role); // 1-based position in topological order
    if (role == Qt::DisplayRole) {
        switch (section) {
        case NameColumn:
            return tr("Name");
        case TypeColumn:
            return tr("Type");
        case ShapeColumn:
            return tr("Output shape");
        case GflopColumn:
            return tr("GFLOP");
        case MegabytesColumn:
            return tr("MB moved");
        case InputsColumn:
            return tr("Inputs");
        }
    }
    if (role == Qt::ToolTipRole) {
        switch (section) {
        case GflopColumn:
            return tr("Floating-point operations, 10⁹ (a multiply-add counts as 2)");
        case MegabytesColumn:
            return tr("Bytes read (inputs and weights) plus written, 10⁶");
        case InputsColumn:
            return tr("Ops whose outputs this op reads");
        }
    }
    return {};
}

} // namespace opsched
