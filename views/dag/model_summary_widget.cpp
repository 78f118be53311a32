#include "dag/model_summary_widget.h"

#include "engine/model.h"

#include <QFormLayout>
#include <QLabel>
#include <QLocale>

namespace opsched {
namespace {

QString scaled(double v)
{
    if (v >= 1e9)
        return QStringLiteral("%1 G").arg(v / 1e9, 0, 'f', 2);
    if (v >= 1e6)
        return QStringLiteral("%1 M").arg(v / 1e6, 0, 'f', 2);
    if (v >= 1e3)
        return QStringLiteral("%1 k").arg(v / 1e3, 0, 'f', 2);
    return QString::number(v, 'f', 0);
}

QString opNames(const Graph& graph, const std::vector<OpId>& ids, std::size_t limit)
{
    QStringList names;
    for (std::size_t i = 0; i < ids.size() && i < limit; ++i)
        names << QString::fromStdString(graph.op(ids[i]).name);
    if (ids.size() > limit)
        names << QStringLiteral("…");
    return names.join(QLatin1Char('\n'));
}

} // namespace

ModelSummaryWidget::ModelSummaryWidget(QWidget* parent)
    : QWidget(parent)
{
    auto* form = new QFormLayout(this);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setLabelAlignment(Qt::AlignRight);
    model_ = addRow(tr("Model:"));
    batch_ = addRow(tr("Batch:"));
    ops_ = addRow(tr("Ops:"));
    parameters_ = addRow(tr("Parameters:"));
    gflop_ = addRow(tr("GFLOP:"));
    width_ = addRow(tr("Width:"));
    blocks_ = addRow(tr("Blocks:"));
    criticalPath_ = addRow(tr("Critical path:"));
    clear();
}

QLabel* ModelSummaryWidget::addRow(const QString& label)
{
    auto* value = new QLabel(this);
    value->setTextInteractionFlags(Qt::TextSelectableByMouse);
    static_cast<QFormLayout*>(layout())->addRow(label, value);
    return value;
}

void ModelSummaryWidget::setGraph(const std::shared_ptr<const Graph>& graph)
{
    if (graph)
        setSummary(*graph, engine::describeModel(*graph).summary);
    else
        clear();
}

void ModelSummaryWidget::setSummary(const Graph& graph, const ModelSummary& s)
{
    model_->setText(QString::fromStdString(s.model));
    batch_->setText(QString::number(s.batch));

    ops_->setText(QString::number(s.ops));
    QStringList kinds;
    for (const auto& [kind, count] : s.opKinds)
        kinds << QStringLiteral("%1 %2").arg(QString::fromStdString(kind)).arg(count);
    ops_->setToolTip(kinds.join(QLatin1Char('\n')));

    parameters_->setText(scaled(static_cast<double>(s.parameters)));
    parameters_->setToolTip(QLocale().toString(static_cast<qlonglong>(s.parameters)));
    gflop_->setText(QString::number(s.flops / 1e9, 'f', 2));
    gflop_->setToolTip(tr("%1 MB moved").arg(s.bytes / 1e6, 0, 'f', 2));

    width_->setText(QString::number(s.width));
    width_->setToolTip(
        tr("The most ops no path joins, i.e. that could run at once, e.g.\n%1").arg(opNames(graph, s.antichain, 12)));

    QString blocks = QString::number(s.blocks.blocks.size());
    if (const Block* largest = s.blocks.largest())
        blocks += tr(" (largest: %1 ops, width %2)").arg(largest->nodes.size()).arg(largest->width);
    blocks_->setText(blocks);
    blocks_->setToolTip(tr("Segments between ops that every path passes through; each is scheduled on its own."));

    criticalOps_ = s.criticalPath;
    const double share = s.flops > 0 ? 100.0 * s.criticalPathFlops / s.flops : 0.0;
    criticalPath_->setText(tr("%1% of FLOPs (%2 ops)").arg(share, 0, 'f', 1).arg(s.criticalPath.size()));
    criticalPath_->setToolTip(tr("%1 GFLOP on the heaviest chain; no schedule can finish faster than it runs.")
                                  .arg(s.criticalPathFlops / 1e9, 0, 'f', 2));
}

void ModelSummaryWidget::clear()
{
    criticalOps_.clear();
    for (QLabel* label : { model_, batch_, ops_, parameters_, gflop_, width_, blocks_, criticalPath_ }) {
        label->setText(QStringLiteral("–"));
        label->setToolTip({});
    }
}

} // namespace opsched
