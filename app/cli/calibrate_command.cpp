// `calibrate`: simulated against measured stage latencies (engine/calibration.h does the work):
// options in, the fit's quality before and after out.
#include "commands.h"
#include "common_options.h"
#include "engine/calibration.h"

#include <cstdio>
#include <iostream>
#include <memory>

namespace opsched::cli {
namespace {

nlohmann::ordered_json qualityJson(const CalibrationQuality& q)
{
    nlohmann::ordered_json j;
    j["spearman"] = q.spearman;
    j["rms_log_error"] = q.rmsLogError;
    j["mean_abs_rel_error"] = q.meanAbsRelError;
    return j;
}

nlohmann::ordered_json calibrationJson(const engine::Calibration& c, std::int64_t batch)
{
    nlohmann::ordered_json j;
    j["device"] = c.device;
    j["simulated_device"] = c.simulatedDevice;
    j["batch"] = batch;
    j["stages"] = c.stages.size();
    j["chosen_stages"] = c.chosenStages;
    j["compared_stages"] = c.fit.stagesCompared;
    j["fit_stages"] = c.fit.stagesUsed;
    j["before"] = qualityJson(c.fit.before);
    j["after"] = qualityJson(c.fit.after);
    j["fitted_device"] = c.fittedDevice;
    return j;
}

struct CalibrateOptions : engine::CalibrateRequest {
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
    cmd->add_option(
        "-o,--output", opts->stagesCsv, "Write every stage with measured, simulated and fitted latency (CSV)");
    cmd->add_option(
        "--write-device", opts->deviceFile, "Write the fitted device (JSON; use as --device sim:FILE.json)");
    cmd->add_option("--max-stages", opts->maxStages, "Fit on at most this many stages (chosen ones first)")
        ->check(rangeOf(engine::kCalibrateMaxStages))
        ->capture_default_str();
    cmd->add_flag("--cuda-graph", opts->cudaGraph,
        "Simulate stages as CUDA graph replays (always so for cuda:N, whose stages are captured as graphs)");
    cmd->add_flag("--json", opts->json, "Print JSON");

    return [opts]() {
        const engine::Calibration c = engine::calibrate(*opts);
        if (opts->json) {
            std::cout << calibrationJson(c, opts->batch).dump(2) << "\n";
            return kExitOk;
        }
        std::printf("calibrate on %s against %s, batch %lld%s\n", c.deviceDescription.c_str(),
            c.simulatedDevice.c_str(), static_cast<long long>(opts->batch),
            c.cudaGraph ? ", stages as CUDA graphs" : "");
        std::printf("stages       %zu distinct stages considered by ios over %zu model(s), %zu in the chosen "
                    "schedules\n",
            c.stages.size(), c.graphs.size(), c.chosenStages);
        auto line = [](const char* label, const CalibrationQuality& q) {
            std::printf("%-12s spearman %.3f, rms log error %.3f, mean |error| %.1f%%\n", label, q.spearman,
                q.rmsLogError, q.meanAbsRelError * 100);
        };
        line("before", c.fit.before);
        line("after", c.fit.after);
        std::printf("fit          on %zu of the %zu stages that run kernels, %d simulations of them\n",
            c.fit.stagesUsed, c.fit.stagesCompared, c.fit.evaluations);
        const std::string changes = engine::fittedChanges(c.base, c.fit.device);
        std::printf("fitted       %s\n", changes.empty() ? "(no constant changed)" : changes.c_str());
        if (!opts->stagesCsv.empty())
            std::printf("written to   %s\n", opts->stagesCsv.c_str());
        if (!opts->deviceFile.empty())
            std::printf("device       %s (use --device sim:%s)\n", opts->deviceFile.c_str(), opts->deviceFile.c_str());
        return kExitOk;
    };
}

} // namespace opsched::cli
