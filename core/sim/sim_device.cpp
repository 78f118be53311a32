#include "sim/sim_device.h"

#include "util/error.h"

#include <cctype>
#include <cstdlib>

namespace opsched {

const std::vector<SimDevice>& simDevices()
{
    // Specs from the vendors' data sheets (FP32 without tensor cores; SXM parts where both exist).
    static const std::vector<SimDevice> devices = [] {
        std::vector<SimDevice> d;
        SimDevice v100;
        v100.name = "v100";
        v100.description = "NVIDIA Tesla V100 SXM2 16 GB (Volta, 80 SMs, 15.7 TFLOP/s FP32, 900 GB/s)";
        d.push_back(v100);

        SimDevice a100 = v100;
        a100.name = "a100";
        a100.description = "NVIDIA A100 SXM4 40 GB (Ampere, 108 SMs, 19.5 TFLOP/s FP32, 1555 GB/s)";
        a100.multiprocessors = 108;
        a100.peakFlops = 19.5e12;
        a100.memoryBandwidth = 1555e9;
        a100.l2Bytes = 40.0 * 1024 * 1024;
        a100.hostLaunchSeconds = 4e-6;
        a100.launchLatencySeconds = 2.5e-6;
        a100.deviceLaunchSeconds = 0.8e-6;
        d.push_back(a100);

        SimDevice h100 = a100;
        h100.name = "h100";
        h100.description = "NVIDIA H100 SXM5 80 GB (Hopper, 132 SMs, 67 TFLOP/s FP32, 3350 GB/s)";
        h100.multiprocessors = 132;
        h100.peakFlops = 67e12;
        h100.memoryBandwidth = 3350e9;
        h100.l2Bytes = 50.0 * 1024 * 1024;
        h100.hostLaunchSeconds = 3e-6;
        // Fitted by `opsched-cli calibrate` to 5,538 stages measured on an H100 80GB HBM3 (driver
        // 580.159, cuDNN 9.19, TF32 on, CUDA graphs; inception_v3, squeezenet, googlenet at batch 1):
        // Spearman 0.82 -> 0.85, mean |error| 30% -> 18%. Small kernels cost ~8 us whatever their
        // size (the launch latency below), and TF32 convolutions beat the FP32 peak, hence
        // efficiencies at their bound.
        h100.saturationWarpsPerSm = 10.5;
        h100.computeEfficiency = 0.99;
        h100.memoryEfficiency = 1.0;
        h100.launchLatencySeconds = 17e-6;
        h100.eventWaitSeconds = 4.2e-6;
        h100.concurrencyPenalty = 0.0034;
        // Fitted to the 70 whole-plan latencies of docs/gpu-verification-h100.md (seven schedulers,
        // six networks and batches, CUDA graphs; RMS log error 0.34 at 0 s, 0.31 at 4 us, its
        // minimum): how the branches after each join get going separates those plans. On the H100
        // opsched's conv ops also launch cuDNN's layout changes (49 nchwToNhwc kernels in
        // googlenet), so one launch of the model costs more than one kernel's worth.
        h100.deviceLaunchSeconds = 4e-6;
        d.push_back(h100);

        SimDevice t4 = v100;
        t4.name = "t4";
        t4.description = "NVIDIA T4 (Turing, 40 SMs, 8.1 TFLOP/s FP32, 320 GB/s)";
        t4.multiprocessors = 40;
        t4.maxWarpsPerMultiprocessor = 32;
        t4.saturationWarpsPerSm = 12;
        t4.peakFlops = 8.1e12;
        t4.memoryBandwidth = 320e9;
        t4.l2Bytes = 4.0 * 1024 * 1024;
        d.push_back(t4);

        SimDevice k80 = v100;
        k80.name = "k80";
        k80.description = "NVIDIA Tesla K80, one GK210 (Kepler, 13 SMs, 4.4 TFLOP/s FP32 boost, 240 GB/s)";
        k80.multiprocessors = 13;
        k80.saturationWarpsPerSm = 32;
        k80.peakFlops = 4.37e12;
        k80.memoryBandwidth = 240e9;
        k80.l2Bytes = 1.5 * 1024 * 1024;
        k80.computeEfficiency = 0.6;
        k80.hostLaunchSeconds = 7e-6;
        k80.launchLatencySeconds = 5e-6;
        k80.deviceLaunchSeconds = 2e-6;
        d.push_back(k80);

        SimDevice rtx = v100;
        rtx.name = "rtx2080ti";
        rtx.description = "NVIDIA GeForce RTX 2080 Ti (Turing, 68 SMs, 13.4 TFLOP/s FP32, 616 GB/s)";
        rtx.multiprocessors = 68;
        rtx.maxWarpsPerMultiprocessor = 32;
        rtx.saturationWarpsPerSm = 12;
        rtx.peakFlops = 13.4e12;
        rtx.memoryBandwidth = 616e9;
        rtx.l2Bytes = 5.5 * 1024 * 1024;
        d.push_back(rtx);
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
