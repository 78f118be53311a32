#include "engine/results/result_export.h"

#include "engine/results/stored_run.h"

#include "export/export.h"
#include "schedule/schedule_file.h"
#include "util/error.h"

namespace opsched {

void writeResultSchedule(const std::string& file, const Graph* graph, const ScheduleResult& result)
{
    if (result.stored) {
        profiler::writeTextFile(file, profiler::exportRun(*result.stored, profiler::ExportFormat::Schedule));
        return;
    }
    if (result.mappingFile) { // a mapping: its file, as `opsched-cli map -o` writes it
        profiler::writeTextFile(file, result.mappingFile->dump(2) + "\n");
        return;
    }
    if (result.mapping)
        throw Error("a throughput mapping has no schedule file here: `opsched-cli map --objective throughput -o "
                    "FILE` writes one (File > Open Mapping reads it)");
    if (!graph)
        throw Error("open the model first");
    ScheduleDocument doc = result.output.schedule
        ? makeScheduleDocument(*graph, *result.output.schedule, result.request.scheduler)
        : makePlanDocument(*graph, result.output.plan, result.request.scheduler);
    doc.device = result.request.device;
    doc.params = result.output.params;
    doc.params["cuda_graph"] = result.request.cudaGraph;
    doc.latencyMs = result.latency * 1e3;
    writeScheduleFile(file, toJson(*graph, doc));
}

void writeResultTrace(const std::string& file, TraceFormat format, const Graph* graph, const std::string& modelRef,
    const ScheduleResult& result)
{
    if (!result.stored && !graph)
        throw Error("open the model first");
    const store::RunRecord run = result.stored ? *result.stored : recordFromResult(*graph, modelRef, result);
    const auto f
        = format == TraceFormat::ChromeTrace ? profiler::ExportFormat::ChromeTrace : profiler::ExportFormat::Csv;
    profiler::writeTextFile(file, profiler::exportRun(run, f));
}

} // namespace opsched
