#include "common_options.h"

#include "exec/cuda/cuda_runtime_info.h"
#include "util/error.h"

namespace opsched::cli {

void addTargetOptions(CLI::App& cmd, TargetOptions& o)
{
    cmd.add_option("MODEL", o.model, "zoo:NAME[?key=value&...] or a model file")->required();
    cmd.add_option("--batch,-b", o.batch, "Batch size")->check(CLI::Range(1, 65536));
    cmd.add_option("--device,-d", o.device, "Device: sim:NAME (sim:v100, sim:a100, sim:h100, sim:t4, ...)")
        ->capture_default_str();
    cmd.add_flag("--cuda-graph", o.cudaGraph, "Estimate plans as one CUDA graph replay (no host launches)");
    cmd.add_flag("--json", o.json, "Print JSON");
}

void addPruningOptions(CLI::App& cmd, PruningOptions& o)
{
    cmd.add_option("--r", o.r, "IOS pruning: most ops per group")->check(CLI::Range(1, 64))->capture_default_str();
    cmd.add_option("--s", o.s, "IOS pruning: most groups per stage (greedy: most ops per stage)")
        ->check(CLI::Range(1, 64))
        ->capture_default_str();
}

const SimDevice& simDeviceFor(const std::string& device)
{
    if (device.starts_with("cuda")) {
        const auto status = queryCudaRuntime();
        if (!status.available)
            throw Error("--device " + device + ": " + status.reason + "; use a simulated GPU instead, e.g. --device sim:h100");
        throw Error("--device " + device + ": running and measuring on the GPU is not part of this version yet; "
                    "use a simulated GPU, e.g. --device sim:h100");
    }
    if (device == "cpu")
        throw Error("--device cpu: the CPU executor is not part of this version yet; use --device sim:NAME");
    return findSimDevice(device);
}

std::unique_ptr<StageCostModel> makeCostModel(const std::string& device)
{
    return std::make_unique<SimulatedStageCost>(simDeviceFor(device));
}

} // namespace opsched::cli
