#include "sim/sim_device.h"

#include "util/error.h"

#include <cctype>
#include <cstdlib>
#include <utility>

namespace opsched {

namespace {

// A preset: its data sheet (FP32 without tensor cores; SXM parts where both exist), then the
// fitted constants in which it differs from V100's, the defaults in sim_device.h.
struct Preset {
    const char* name;
    const char* description;
    int multiprocessors, maxWarpsPerMultiprocessor;
    double peakFlops, memoryBandwidth, l2MiB;
    std::vector<std::pair<double SimDevice::*, double>> fitted;
};

const std::vector<Preset>& presets()
{
    static const std::vector<Preset> table = {
        { "v100", "NVIDIA Tesla V100 SXM2 16 GB (Volta, 80 SMs, 15.7 TFLOP/s FP32, 900 GB/s)", 80, 64, 15.7e12, 900e9,
            6.0, {} },
        { "a100", "NVIDIA A100 SXM4 40 GB (Ampere, 108 SMs, 19.5 TFLOP/s FP32, 1555 GB/s)", 108, 64, 19.5e12, 1555e9,
            40.0,
            { { &SimDevice::hostLaunchSeconds, 4e-6 }, { &SimDevice::launchLatencySeconds, 2.5e-6 },
                { &SimDevice::deviceLaunchSeconds, 0.8e-6 } } },
        { "h100", "NVIDIA H100 SXM5 80 GB (Hopper, 132 SMs, 67 TFLOP/s FP32, 3350 GB/s)", 132, 64, 67e12, 3350e9, 50.0,
            {
                { &SimDevice::hostLaunchSeconds, 3e-6 },
                // Fitted by `opsched-cli calibrate` to 5,538 stages measured on an H100 80GB HBM3 (driver
                // 580.159, cuDNN 9.19, TF32 on, CUDA graphs; inception_v3, squeezenet, googlenet at batch 1):
                // Spearman 0.82 -> 0.85, mean |error| 30% -> 18%. Small kernels cost ~8 us whatever their
                // size (the launch latency below), and TF32 convolutions beat the FP32 peak, hence
                // efficiencies at their bound.
                { &SimDevice::saturationWarpsPerSm, 10.5 },
                { &SimDevice::computeEfficiency, 0.99 },
                { &SimDevice::memoryEfficiency, 1.0 },
                { &SimDevice::launchLatencySeconds, 17e-6 },
                { &SimDevice::eventWaitSeconds, 4.2e-6 },
                { &SimDevice::concurrencyPenalty, 0.0034 },
                // Fitted to the 70 whole-plan latencies of docs/gpu-verification-h100.md (seven schedulers,
                // six networks and batches, CUDA graphs; RMS log error 0.34 at 0 s, 0.31 at 4 us, its
                // minimum): how the branches after each join get going separates those plans. On the H100
                // opsched's conv ops also launch cuDNN's layout changes (49 nchwToNhwc kernels in
                // googlenet), so one launch of the model costs more than one kernel's worth.
                { &SimDevice::deviceLaunchSeconds, 4e-6 },
            } },
        { "t4", "NVIDIA T4 (Turing, 40 SMs, 8.1 TFLOP/s FP32, 320 GB/s)", 40, 32, 8.1e12, 320e9, 4.0,
            { { &SimDevice::saturationWarpsPerSm, 12 } } },
        { "k80", "NVIDIA Tesla K80, one GK210 (Kepler, 13 SMs, 4.4 TFLOP/s FP32 boost, 240 GB/s)", 13, 64, 4.37e12,
            240e9, 1.5,
            { { &SimDevice::saturationWarpsPerSm, 32 }, { &SimDevice::computeEfficiency, 0.6 },
                { &SimDevice::hostLaunchSeconds, 7e-6 }, { &SimDevice::launchLatencySeconds, 5e-6 },
                { &SimDevice::deviceLaunchSeconds, 2e-6 } } },
        { "rtx2080ti", "NVIDIA GeForce RTX 2080 Ti (Turing, 68 SMs, 13.4 TFLOP/s FP32, 616 GB/s)", 68, 32, 13.4e12,
            616e9, 5.5, { { &SimDevice::saturationWarpsPerSm, 12 } } },
    };
    return table;
}

} // namespace

const std::vector<SimDevice>& simDevices()
{
    static const std::vector<SimDevice> devices = [] {
        std::vector<SimDevice> d;
        for (const auto& p : presets()) {
            SimDevice& s = d.emplace_back();
            s.name = p.name;
            s.description = p.description;
            s.multiprocessors = p.multiprocessors;
            s.maxWarpsPerMultiprocessor = p.maxWarpsPerMultiprocessor;
            s.peakFlops = p.peakFlops;
            s.memoryBandwidth = p.memoryBandwidth;
            s.l2Bytes = p.l2MiB * 1024 * 1024;
            for (const auto& [member, value] : p.fitted)
                s.*member = value;
        }
        return d;
    }();
    return devices;
}

const SimDevice& findSimDevice(std::string_view ref)
{
    std::string_view name = ref;
    if (name.starts_with("sim:"))
        name.remove_prefix(4);
    for (const auto& d : simDevices())
        if (d.name == name)
            return d;
    std::string names;
    for (const auto& d : simDevices())
        names += (names.empty() ? "sim:" : ", sim:") + d.name;
    throw Error("unknown simulated device '" + std::string(ref) + "' (available: " + names + ")");
}

const SimDevice& closestSimDevice(std::string_view gpuName, int multiprocessors)
{
    // Words of the name, lower case: "NVIDIA GeForce RTX 2080 Ti" -> nvidia geforce rtx 2080 ti.
    std::vector<std::string> words(1);
    for (char c : gpuName) {
        if (std::isalnum(static_cast<unsigned char>(c)))
            words.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        else if (!words.back().empty())
            words.emplace_back();
    }
    auto has = [&](std::string_view w) {
        for (const auto& word : words)
            if (word == w)
                return true;
        return false;
    };
    // Parts of one architecture share a preset: their SM counts and clocks are close.
    static const std::vector<std::pair<std::vector<std::string_view>, std::string_view>> byName = {
        { { "h100", "h200", "gh200", "h800" }, "h100" },
        { { "a100", "a800" }, "a100" },
        { { "v100", "v100s" }, "v100" },
        { { "t4" }, "t4" },
        { { "k80" }, "k80" },
        { { "2080" }, "rtx2080ti" },
    };
    for (const auto& [names, preset] : byName)
        for (auto n : names)
            if (has(n))
                return findSimDevice(preset);
    const SimDevice* best = &simDevices().front();
    for (const auto& d : simDevices())
        if (std::abs(d.multiprocessors - multiprocessors) < std::abs(best->multiprocessors - multiprocessors))
            best = &d;
    return *best;
}

} // namespace opsched
