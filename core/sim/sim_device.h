// Simulated GPUs: public specs plus the few fitted constants of the analytical model. Every
// parameter of the model lives in this table (sim_device.cpp), so fitting it to measurements of a
// real GPU means editing one place.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace opsched {

// The device a schedule, evaluation, run or profile is for when none is named (engine/limits.h
// and the profiler's jobs start from it).
inline constexpr const char* kDefaultDeviceRef = "sim:v100";

struct SimDevice {
    std::string name; // "v100": referenced as sim:v100
    std::string description;
    // Public specs.
    int multiprocessors = 80;
    int maxWarpsPerMultiprocessor = 64;
    double peakFlops = 15.7e12; // FP32 FLOP/s
    double memoryBandwidth = 900e9; // bytes/s
    double l2Bytes = 6.0 * 1024 * 1024;
    // Fitted constants. The defaults are V100's, fitted so that sequential/IOS at batch 1 lands
    // near the IOS paper's V100 speedups (Inception V3 1.62, RandWire 1.41, NasNet 1.43,
    // SqueezeNet 1.18) and greedy loses to sequential on SqueezeNet, as the paper measured. The
    // per-stream sync cost models the IOS engine, which joins every stream of a stage through
    // events and host calls.
    double saturationWarpsPerSm = 8; // resident warps per SM a kernel needs to reach peak
    double computeEfficiency = 0.7; // share of peak a library kernel reaches at full occupancy
    double memoryEfficiency = 0.8; // share of bandwidth reached at full occupancy
    double hostLaunchSeconds = 5e-6; // host time to issue one kernel
    double launchLatencySeconds = 3e-6; // launch -> start, and the gap between kernels of a stream
    // Device time to launch one kernel. The GPU launches the kernels whose dependencies are met one
    // at a time, the earliest submitted first (the host's issue order; in a CUDA graph, the
    // capture order): when a join releases several branches, the last one in that order starts
    // this much later per kernel ahead of it. A microsecond or so on every GPU; the launch
    // latency hides it until several kernels go at once.
    double deviceLaunchSeconds = 1e-6;
    double eventWaitSeconds = 2e-6; // a cross-stream event wait on the device
    double barrierSeconds = 1e-6; // a stage boundary: join the streams, resume the host
    double streamSyncSeconds = 20e-6; // extra cost of a stage boundary per additional stream joined
    double concurrencyPenalty = 0.1; // slowdown per extra concurrent kernel (shared caches, dispatch)
    double contention = 0.3; // further slowdown per extra concurrent kernel when their data spills L2

    // Warps the model treats as the whole GPU.
    double lanes() const { return multiprocessors * saturationWarpsPerSm; }
    int maxResidentWarps() const { return multiprocessors * maxWarpsPerMultiprocessor; }
};

// All presets: v100, a100, h100, t4, k80, rtx2080ti.
const std::vector<SimDevice>& simDevices();

// Looks up "sim:NAME" (or "NAME"). Throws Error listing the presets when unknown.
const SimDevice& findSimDevice(std::string_view ref);

// The preset closest to a real GPU: by its name ("NVIDIA H100 80GB HBM3" -> h100, H200 and GH200
// -> h100, "Tesla T4" -> t4, "GeForce RTX 2080 Ti" -> rtx2080ti), else the preset with the nearest
// SM count. A measured cost model hands it to schedulers that reason about kernels (Opara).
const SimDevice& closestSimDevice(std::string_view gpuName, int multiprocessors);

} // namespace opsched
