// `calibrate`: the simulator's constants fitted to measured stage latencies. The IOS search runs on
// the device (cuda:N, or a simulated device standing in for one), every distinct stage it considers
// is recorded with its measured latency, and the same stages are simulated on the base preset
// before and after the fit; rank correlation and error say how well the simulator now agrees.
#pragma once

#include "engine/device_ref.h"
#include "engine/limits.h"
#include "engine/requests.h"

#include "sim/calibration.h"

#include <nlohmann/json.hpp>

#include <deque>
#include <string>
#include <vector>

namespace opsched::engine {

struct CalibrateRequest {
    std::vector<std::string> models;
    std::int64_t batch = kBatch.def;
    std::string device = "cuda:0"; // where stages are measured
    std::string sim; // the preset or FILE.json fitted; empty: the one closest to the measured GPU
    PruningRequest pruning;
    CostCacheOptions cache;
    std::size_t maxStages = kCalibrateMaxStages.def;
    bool cudaGraph = false;
    std::string stagesCsv; // written when not empty: every stage, measured, simulated and fitted
    std::string deviceFile; // written when not empty: the fitted device (sim:FILE.json)
};

struct Calibration {
    std::string device; // "cuda:0"
    std::string deviceDescription;
    std::string simulatedDevice; // "sim:h100"
    SimDevice base;
    bool cudaGraph = false; // stages simulated as CUDA graph replays
    std::deque<Graph> graphs; // the recorded stages point into them
    std::vector<CalibrationStage> stages;
    std::size_t chosenStages = 0; // stages of the schedules ios chose
    FitResult fit;
    nlohmann::ordered_json fittedDevice; // the fitted device as --write-device writes it
};

// Throws Error naming the problem (a simulated --device without `sim`, an unknown preset, a file
// that cannot be written).
Calibration calibrate(const CalibrateRequest& request);

// The simulator's constants the fit changed, "name before -> after, ..."; empty when none did.
std::string fittedChanges(const SimDevice& before, const SimDevice& after);

} // namespace opsched::engine
