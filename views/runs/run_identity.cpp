#include "runs/run_identity.h"

#include "engine/results/schedule_result.h"
#include "engine/results/stored_run.h"

#include "store/records.h"
#include "timeline/time_ruler.h"

#include <QObject>
#include <QRegularExpression>

#include <algorithm>

namespace opsched {

QString objectiveTag(const ScheduleResult& r)
{
    if (!r.mapping || r.request.objective != "throughput")
        return {};
    return QObject::tr(" · throughput, %1 inputs").arg(r.request.inputs);
}

std::int64_t inputsCovered(const ScheduleResult& r)
{
    return r.mapping && r.request.objective == "throughput" ? std::max<std::int64_t>(1, r.request.inputs) : 1;
}

QString runLabel(const ScheduleResult& r)
{
    QString label = QStringLiteral("%1%2 · %3 · batch %4 · %5")
                        .arg(QString::fromStdString(r.request.scheduler), objectiveTag(r),
                            QString::fromStdString(r.request.device))
                        .arg(r.batch)
                        .arg(QString::fromStdString(formatDuration(r.latency)));
    if (r.stored)
        label = QObject::tr("run %1: %2").arg(r.stored->id.value()).arg(label);
    else if (r.sequence > 0)
        label += QStringLiteral(" · #%1").arg(r.sequence);
    return label;
}

QString runModelName(const ScheduleResult& result, const QString& openModel)
{
    if (result.stored && !result.stored->model.name.empty())
        return QString::fromStdString(result.stored->model.name);
    return openModel;
}

QString runTitle(const ScheduleResult& result, const QString& openModel)
{
    const QString model = runModelName(result, openModel);
    return model.isEmpty() ? runLabel(result) : QStringLiteral("%1 — %2").arg(model, runLabel(result));
}

QString runFileStem(const ScheduleResult& result, const QString& openModel)
{
    QString stem = runModelName(result, openModel);
    if (stem.isEmpty())
        stem = QStringLiteral("run");
    stem += QLatin1Char('_') + QString::fromStdString(result.request.scheduler) + QLatin1Char('_')
        + QString::fromStdString(result.request.device) + QStringLiteral("_b%1").arg(result.batch);
    if (inputsCovered(result) > 1)
        stem += QStringLiteral("_throughput%1").arg(inputsCovered(result));
    if (result.stored)
        stem += QStringLiteral("_run%1").arg(result.stored->id.value());
    else if (result.sequence > 0)
        stem += QStringLiteral("_%1").arg(result.sequence);
    // Device names hold ':' and ',' (sim:h100, cpu,cuda:0) and edited schedules a space and brackets.
    static const QRegularExpression unsafe(QStringLiteral("[^A-Za-z0-9._-]+"));
    stem.replace(unsafe, QStringLiteral("-"));
    return stem;
}

} // namespace opsched
