#include "dag/op_properties_widget.h"

#include "engine/results/schedule_result.h"

#include "plan/schedule_edit.h"

#include <QFormLayout>
#include <QLabel>

namespace opsched {
namespace {

const char* const kFields[] = { "Name", "Type", "Layers", "Inputs", "Output", "GFLOP", "MB moved", "Stage", "Group",
    "Stream", "Start", "End", "Duration" };

} // namespace

OpPropertiesWidget::OpPropertiesWidget(QWidget* parent)
    : QWidget(parent)
{
    form_ = new QFormLayout(this);
    form_->setLabelAlignment(Qt::AlignRight);
    for (const char* name : kFields) {
        auto* value = new QLabel;
        value->setTextInteractionFlags(Qt::TextSelectableByMouse);
        value->setWordWrap(true);
        form_->addRow(tr(name) + QLatin1Char(':'), value);
        fields_.emplace_back(QString::fromLatin1(name), value);
    }
}

QLabel* OpPropertiesWidget::field(const QString& name)
{
    for (auto& [n, label] : fields_)
        if (n == name)
            return label;
    return nullptr;
}

QString OpPropertiesWidget::text(const QString& name) const
{
    for (const auto& [n, label] : fields_)
        if (n == name)
            return label->text();
    return {};
}

void OpPropertiesWidget::show(
    const std::shared_ptr<const Graph>& graph, OpId id, const std::shared_ptr<const ScheduleResult>& result)
{
    for (auto& [n, label] : fields_)
        label->clear();
    if (!graph || !id.valid() || id.value() >= graph->opCount())
        return;
    const Op& op = graph->op(id);
    field(QStringLiteral("Name"))->setText(QString::fromStdString(op.name));
    field(QStringLiteral("Type"))->setText(QString::fromUtf8(toString(op.kind)));
    QStringList layers;
    for (const auto& l : op.layers)
        layers << QString::fromUtf8(l.kindName())
                + (l.activation.kind != ActivationKind::None
                        ? QStringLiteral("+") + QString::fromUtf8(toString(l.activation.kind))
                        : QString());
    field(QStringLiteral("Layers"))->setText(layers.join(QStringLiteral(", ")));
    QStringList inputs;
    for (auto t : op.inputTensors())
        inputs << QStringLiteral("%1 %2").arg(
            QString::fromStdString(graph->tensor(t).name), QString::fromStdString(graph->tensor(t).shape.toString()));
    field(QStringLiteral("Inputs"))->setText(inputs.join(QLatin1Char('\n')));
    field(QStringLiteral("Output"))->setText(QString::fromStdString(graph->tensor(op.output).shape.toString()));
    field(QStringLiteral("GFLOP"))->setText(QString::number(op.cost.flops / 1e9, 'f', 4));
    field(QStringLiteral("MB moved"))->setText(QString::number(op.cost.bytes() / 1e6, 'f', 3));
    if (!result)
        return;
    if (result->output.schedule)
        if (const auto place = findOp(*result->output.schedule, id)) {
            field(QStringLiteral("Stage"))->setText(QString::number(place->stage));
            field(QStringLiteral("Group"))->setText(QString::number(place->group));
        }
    for (const auto& launch : result->output.plan.launches)
        if (std::find(launch.ops.begin(), launch.ops.end(), id) != launch.ops.end())
            field(QStringLiteral("Stream"))
                ->setText(QString::number(launch.stream.value()) + (launch.merged() ? tr(" (merged)") : QString()));
    if (!result->timeline)
        return;
    const TimelineRows& rows = result->timeline->rows;
    for (std::size_t r = 0; r < rows.rowCount(); ++r) {
        if (result->timeline->rowKind(r) != TimelineRowKind::Ops)
            continue; // kernel rows: span ids are kernel indices
        for (const auto& span : rows.row(r))
            if (span.id == id.value()) {
                field(QStringLiteral("Start"))->setText(tr("%1 us").arg(span.start * 1e6, 0, 'f', 1));
                field(QStringLiteral("End"))->setText(tr("%1 us").arg(span.end * 1e6, 0, 'f', 1));
                field(QStringLiteral("Duration"))->setText(tr("%1 us").arg((span.end - span.start) * 1e6, 0, 'f', 1));
                return;
            }
    }
}

} // namespace opsched
