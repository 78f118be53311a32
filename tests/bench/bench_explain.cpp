// explain's breakdown on two runs of 100k kernels and 100k host calls each (the size the timeline
// is benchmarked at): median of 10 runs of explainDifference, which sorts, unions and matches; then
// what `opsched-cli explain` does end to end, both runs read back from a results database first.
#include "analysis/speedup_breakdown.h"
#include "store/store.h"

#include <filesystem>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using namespace opsched;

namespace {

store::RunRecord syntheticRun(std::int64_t id, std::uint64_t seed, std::size_t kernels)
{
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<std::int64_t> length(1000, 20000), gap(0, 3000);
    store::RunRecord r;
    r.id = store::RunId(id);
    r.model.sha256 = "synthetic";
    r.model.name = "synthetic";
    r.device.key = r.device.name = "sim:h100";
    std::vector<std::int64_t> streamEnd(8, 0);
    for (std::size_t i = 0; i < kernels; ++i) {
        store::KernelRecord k;
        const std::size_t s = i % streamEnd.size();
        k.start = streamEnd[s] + gap(rng);
        k.end = k.start + length(rng);
        streamEnd[s] = k.end;
        k.streamId = static_cast<std::int64_t>(s);
        k.opId = static_cast<std::int64_t>(i / 2);
        k.part = static_cast<std::int64_t>(i % 2);
        k.shortName = "Conv";
        r.hostCalls.push_back({ k.start - 500, k.start - 100, "cudaLaunchKernel", std::nullopt });
        r.kernels.push_back(std::move(k));
    }
    r.latenciesNs = { static_cast<double>(*std::max_element(streamEnd.begin(), streamEnd.end())) };
    return r;
}

} // namespace

int main()
{
    constexpr std::size_t kKernels = 100000;
    const store::RunRecord a = syntheticRun(1, 1, kKernels), b = syntheticRun(2, 2, kKernels);
    std::vector<double> ms;
    double sum = 0;
    for (int i = 0; i < 10; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        const analysis::SpeedupBreakdown r = analysis::explainDifference(a, b);
        ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        sum += r.termSumNs() - r.differenceNs;
    }
    std::sort(ms.begin(), ms.end());
    std::printf("explain: 2 runs x %zu kernels and %zu host calls: median %.1f ms (min %.1f, max %.1f); "
                "terms - difference %.3g ns\n",
        kKernels, kKernels, ms[ms.size() / 2], ms.front(), ms.back(), sum / 10);

    const std::string path = (std::filesystem::temp_directory_path() / "opsched_bench_explain.db").string();
    std::filesystem::remove(path);
    store::RunId ida, idb;
    {
        store::Store db = store::Store::open(path, store::OpenMode::ReadWrite);
        ida = db.writeRun(a);
        idb = db.writeRun(b);
    }
    std::vector<double> endToEnd;
    for (int i = 0; i < 5; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        store::Store db = store::Store::open(path, store::OpenMode::ReadOnly);
        const analysis::SpeedupBreakdown r = analysis::explainDifference(db.loadRun(ida), db.loadRun(idb));
        endToEnd.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        if (std::abs(r.termSumNs() - r.differenceNs) > 1e3) // more than 1 us apart: a broken breakdown
            return 1;
    }
    std::sort(endToEnd.begin(), endToEnd.end());
    std::printf("explain from the database (open, read both runs, break down): median %.1f ms of 5\n",
        endToEnd[endToEnd.size() / 2]);
    std::filesystem::remove(path);
    return 0;
}
