// What a front end offers the user to choose from, each list from its one registry: the built-in
// networks, the schedulers, the mappers, the simulated device presets, and the local GPUs.
#pragma once

#include "cupti/cupti_info.h"
#include "exec/cuda/cuda_runtime_info.h"

#include <string>
#include <vector>

namespace opsched::engine {

struct CatalogEntry {
    std::string name; // as the user types it: "inception_v3" (after zoo:), "ios", "milp-split"
    std::string summary; // one line; empty where the registry has none
    std::vector<std::string> parameters; // built-in networks: the keys they accept (zoo:NAME?key=N)
};

// The built-in networks (zoo:NAME), in the registry's order.
std::vector<CatalogEntry> builtInNetworks();
// Scheduler names, in the order `compare` shows them.
std::vector<std::string> schedulerNames();
// The mappers (map --mapper; the window's "map:NAME").
std::vector<CatalogEntry> mapperEntries();
// The simulated device presets as device references: "sim:v100", "sim:a100", ...
std::vector<std::string> simulatedDeviceNames();
// The local GPUs as the CUDA runtime reports them (none, and why, on a machine without one).
CudaRuntimeStatus localGpus();
// What this build and machine offer for profiling on them (`devices`): the CUDA runtime, driver,
// cuDNN and CUPTI versions, each with the reason where one is missing.
struct MachineSupport {
    CudaRuntimeStatus cuda;
    CuptiInfo cupti;
};
MachineSupport machineSupport();

} // namespace opsched::engine
