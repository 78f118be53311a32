#include "device_option.h"

#include "exec/cuda/cuda_runtime_info.h"
#include "util/error.h"

namespace opsched::cli {

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
