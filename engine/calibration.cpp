#include "engine/calibration.h"

#include "engine/device_target.h"
#include "engine/model.h"
#include "engine/scheduling.h"

#include "schedule/stage_recorder.h"
#include "sim/sim_device_file.h"
#include "util/csv.h"
#include "util/error.h"

#include <cstdio>
#include <fstream>

namespace opsched::engine {
namespace {

std::string groupsText(const Graph& graph, const Stage& stage)
{
    std::string s;
    for (const auto& group : stage.groups) {
        if (!s.empty())
            s += " | ";
        for (std::size_t i = 0; i < group.size(); ++i)
            s += (i ? " > " : "") + graph.op(group[i]).name;
    }
    return s;
}

void writeStagesCsv(const std::string& path, const std::vector<CalibrationStage>& stages,
    const std::vector<double>& simulated, const std::vector<double>& fitted)
{
    std::ofstream out(path);
    out << "model,stage,strategy,groups,ops,chosen,measured_ms,simulated_ms,fitted_ms,op_groups,signature\n";
    char buf[64];
    auto ms = [&](double s) {
        std::snprintf(buf, sizeof buf, "%.6f", s * 1e3);
        return std::string(buf);
    };
    for (std::size_t i = 0; i < stages.size(); ++i) {
        const auto& s = stages[i];
        out << csvField(s.graph->name()) << "," << i << "," << toString(s.stage.strategy) << ","
            << s.stage.groups.size() << "," << s.stage.opCount() << "," << (s.chosen ? 1 : 0) << "," << ms(s.measured)
            << "," << ms(simulated[i]) << "," << ms(fitted[i]) << "," << csvField(groupsText(*s.graph, s.stage)) << ","
            << s.signature << "\n";
    }
    if (!out)
        throw Error("cannot write '" + path + "'");
}

} // namespace

Calibration calibrate(const CalibrateRequest& request)
{
    DeviceTarget target(request.device, request.cudaGraph, request.cache);
    if (request.sim.empty() && target.simulated())
        throw Error("calibrate with a simulated --device (" + target.name()
            + ") needs --sim NAME: the device whose constants are fitted");
    Calibration c;
    c.device = target.name();
    c.deviceDescription = target.describe();
    c.simulatedDevice = request.sim.empty() ? "sim:" + target.cost().deviceModel().name
        : request.sim.starts_with("sim:")   ? request.sim
                                            : "sim:" + request.sim;
    c.base = simDeviceFor(c.simulatedDevice);
    c.cudaGraph = request.cudaGraph || !target.simulated();
    const SimOptions simOptions { c.cudaGraph };

    StageRecorder recorder(target.cost());
    const SchedulerParams params = schedulerParams(request.pruning);
    for (const auto& ref : request.models) {
        const Graph& graph = c.graphs.emplace_back(openModel({ ref, request.batch, {} }));
        const SchedulerOutput out = runScheduler("ios", graph, recorder, params);
        if (out.schedule)
            recorder.markChosen(graph, *out.schedule);
    }
    target.flush();
    c.stages = recorder.stages();
    for (const auto& s : c.stages)
        c.chosenStages += s.chosen ? 1 : 0;
    FitOptions fit;
    fit.maxStages = request.maxStages;
    c.fit = fitSimDevice(c.stages, c.base, simOptions, fit);
    c.fittedDevice = toJson(c.fit.device, c.base.name);
    if (!request.stagesCsv.empty())
        writeStagesCsv(request.stagesCsv, c.stages, simulateStages(c.stages, c.base, simOptions),
            simulateStages(c.stages, c.fit.device, simOptions));
    if (!request.deviceFile.empty())
        writeSimDeviceFile(request.deviceFile, c.fit.device, c.base.name);
    return c;
}

std::string fittedChanges(const SimDevice& before, const SimDevice& after)
{
    std::string line;
    for (const auto& name : fittedSimConstants()) {
        const double a = simConstant(before, name), b = simConstant(after, name);
        if (a == b)
            continue;
        char buf[160];
        std::snprintf(buf, sizeof buf, "%s%s %.4g -> %.4g", line.empty() ? "" : ", ", name.c_str(), a, b);
        line += buf;
    }
    return line;
}

} // namespace opsched::engine
