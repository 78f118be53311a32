// `calibrate`: simulated against measured stage latencies. Runs the IOS search on the device
// (cuda:N, or a simulated device standing in for one), records every distinct stage it considered
// with its measured latency, simulates the same stages on the base preset, fits the simulator's
// constants to the measurements, and reports rank correlation and error before and after.
#include "commands.h"
#include "common_options.h"
#include "engine/device_target.h"
#include "engine/scheduling.h"

#include "model/model_ref.h"
#include "schedule/schedulers.h"
#include "schedule/stage_recorder.h"
#include "sim/calibration.h"
#include "sim/sim_device_file.h"

#include <cstdio>
#include <deque>
#include <fstream>
#include <iostream>
#include <memory>

namespace opsched::cli {
namespace {

std::string csvField(const std::string& s)
{
    if (s.find_first_of(",\"\n") == std::string::npos)
        return s;
    std::string q = "\"";
    for (char c : s)
        q += c == '"' ? std::string("\"\"") : std::string(1, c);
    return q + "\"";
}

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

void printChanges(const SimDevice& before, const SimDevice& after)
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
    std::printf("fitted       %s\n", line.empty() ? "(no constant changed)" : line.c_str());
}

nlohmann::ordered_json qualityJson(const CalibrationQuality& q)
{
    nlohmann::ordered_json j;
    j["spearman"] = q.spearman;
    j["rms_log_error"] = q.rmsLogError;
    j["mean_abs_rel_error"] = q.meanAbsRelError;
    return j;
}

nlohmann::ordered_json calibrationJson(const std::string& device, const std::string& simRef, std::int64_t batch,
    std::size_t stages, std::size_t chosenStages, const FitResult& result, const SimDevice& base)
{
    nlohmann::ordered_json j;
    j["device"] = device;
    j["simulated_device"] = simRef;
    j["batch"] = batch;
    j["stages"] = stages;
    j["chosen_stages"] = chosenStages;
    j["compared_stages"] = result.stagesCompared;
    j["fit_stages"] = result.stagesUsed;
    j["before"] = qualityJson(result.before);
    j["after"] = qualityJson(result.after);
    j["fitted_device"] = toJson(result.device, base.name);
    return j;
}

struct CalibrateOptions {
    std::vector<std::string> models;
    std::int64_t batch = engine::kBatch.def;
    std::string device = "cuda:0";
    std::string sim;
    PruningOptions pruning;
    CostCacheOptions cache;
    std::string csv;
    std::string deviceOut;
    std::size_t maxStages = engine::kCalibrateMaxStages.def;
    bool cudaGraph = false;
    bool json = false;
};

} // namespace

Runner addCalibrateCommand(CLI::App& app)
{
    auto opts = std::make_shared<CalibrateOptions>();
    auto* cmd = app.add_subcommand(
        "calibrate", "Simulated against measured stage latencies; fit the simulator's constants to the measurements");
    cmd->add_option("MODEL", opts->models, "zoo:NAME[?key=value&...] or model files")->required();
    addBatchOption(*cmd, opts->batch);
    cmd->add_option("--device,-d", opts->device,
           "Where stages are measured: cuda:N, or a simulated device standing in for one (sim:NAME, "
           "sim:FILE.json)")
        ->capture_default_str();
    cmd->add_option("--sim", opts->sim,
        "The simulated device to compare and fit: a preset (h100) or FILE.json (default: the preset "
        "closest to the measured GPU)");
    addPruningOptions(*cmd, opts->pruning);
    addCostCacheOptions(*cmd, opts->cache);
    cmd->add_option("-o,--output", opts->csv, "Write every stage with measured, simulated and fitted latency (CSV)");
    cmd->add_option("--write-device", opts->deviceOut, "Write the fitted device (JSON; use as --device sim:FILE.json)");
    cmd->add_option("--max-stages", opts->maxStages, "Fit on at most this many stages (chosen ones first)")
        ->check(rangeOf(engine::kCalibrateMaxStages))
        ->capture_default_str();
    cmd->add_flag("--cuda-graph", opts->cudaGraph,
        "Simulate stages as CUDA graph replays (always so for cuda:N, whose stages are captured as graphs)");
    cmd->add_flag("--json", opts->json, "Print JSON");

    return [opts]() {
        DeviceTarget target(opts->device, opts->cudaGraph, opts->cache);
        if (opts->sim.empty() && target.simulated())
            throw Error("calibrate with a simulated --device (" + target.name()
                + ") needs --sim NAME: the device whose constants are fitted");
        const std::string simRef = opts->sim.empty() ? "sim:" + target.cost().deviceModel().name
            : opts->sim.starts_with("sim:")          ? opts->sim
                                                     : "sim:" + opts->sim;
        const SimDevice& base = simDeviceFor(simRef);
        const SimOptions simOptions { opts->cudaGraph || !target.simulated() };

        std::deque<Graph> graphs; // the recorded stages point into them
        StageRecorder recorder(target.cost());
        const SchedulerParams params = engine::schedulerParams(opts->pruning);
        for (const auto& ref : opts->models) {
            const Graph& graph = graphs.emplace_back(loadModel(ref, opts->batch));
            const SchedulerOutput out = runScheduler("ios", graph, recorder, params);
            if (out.schedule)
                recorder.markChosen(graph, *out.schedule);
        }
        target.flush();
        const auto& stages = recorder.stages();
        FitOptions fit;
        fit.maxStages = opts->maxStages;
        const FitResult result = fitSimDevice(stages, base, simOptions, fit);
        const std::vector<double> simulated = simulateStages(stages, base, simOptions);
        const std::vector<double> fitted = simulateStages(stages, result.device, simOptions);
        if (!opts->csv.empty())
            writeStagesCsv(opts->csv, stages, simulated, fitted);
        if (!opts->deviceOut.empty())
            writeSimDeviceFile(opts->deviceOut, result.device, base.name);

        std::size_t chosenStages = 0;
        for (const auto& s : stages)
            chosenStages += s.chosen ? 1 : 0;
        if (opts->json) {
            std::cout << calibrationJson(target.name(), simRef, opts->batch, stages.size(), chosenStages, result, base)
                             .dump(2)
                      << "\n";
            return kExitOk;
        }
        std::printf("calibrate on %s against %s, batch %lld%s\n", target.describe().c_str(), simRef.c_str(),
            static_cast<long long>(opts->batch), simOptions.cudaGraph ? ", stages as CUDA graphs" : "");
        std::printf("stages       %zu distinct stages considered by ios over %zu model(s), %zu in the chosen "
                    "schedules\n",
            stages.size(), graphs.size(), chosenStages);
        auto line = [](const char* label, const CalibrationQuality& q) {
            std::printf("%-12s spearman %.3f, rms log error %.3f, mean |error| %.1f%%\n", label, q.spearman,
                q.rmsLogError, q.meanAbsRelError * 100);
        };
        line("before", result.before);
        line("after", result.after);
        std::printf("fit          on %zu of the %zu stages that run kernels, %d simulations of them\n",
            result.stagesUsed, result.stagesCompared, result.evaluations);
        printChanges(base, result.device);
        if (!opts->csv.empty())
            std::printf("written to   %s\n", opts->csv.c_str());
        if (!opts->deviceOut.empty())
            std::printf("device       %s (use --device sim:%s)\n", opts->deviceOut.c_str(), opts->deviceOut.c_str());
        return kExitOk;
    };
}

} // namespace opsched::cli
