#include "run_throughput.h"

#include "commands.h"
#include "common_options.h"
#include "engine/run/run_check.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace opsched::cli {

int printThroughputRun(const Graph& graph, const engine::ThroughputRunResult& r, const ThroughputRunOptions& o)
{
    const std::size_t L = r.inputs;
    const auto& devices = r.devices;
    const auto failed = std::count_if(r.checks.begin(), r.checks.end(), [](const auto& c) { return !c.passed; });
    if (o.json) {
        nlohmann::ordered_json j { { "model", graph.name() }, { "objective", "throughput" },
            { "file_mapper", r.mapper }, { "devices", devices }, { "inputs", L }, { "batches", r.batches },
            { "predicted_ms", r.predictedMs }, { "measured_ms", r.measuredMs },
            { "measured_over_predicted", r.measuredMs / r.predictedMs },
            { "measured_throughput_per_s", static_cast<double>(L) / r.measuredMs * 1e3 },
            { "predicted_throughput_per_s", static_cast<double>(L) / r.predictedMs * 1e3 } };
        if (o.check)
            j["check"] = { { "outputs", r.checks.size() }, { "failed", failed } };
        std::cout << j.dump(2) << "\n";
    } else {
        std::printf("mapping      %s (throughput), %zu inputs in %zu batches over", r.mapper.c_str(), L, r.batches);
        for (const auto& d : devices)
            std::printf(" %s", d.c_str());
        std::printf("\nmakespan     %.3f ms measured (median of %zu), %.3f ms predicted: %.2fx\n", r.measuredMs,
            r.spansMs.size(), r.predictedMs, r.measuredMs / r.predictedMs);
        std::printf("throughput   %.1f inputs/s measured, %.1f predicted\n",
            static_cast<double>(L) / r.measuredMs * 1e3, static_cast<double>(L) / r.predictedMs * 1e3);
        if (o.check)
            std::printf("check        %s against %s: %zu outputs of %zu inputs, %s\n",
                toleranceText(o.tolerance).c_str(), kSingleDeviceReference, r.checks.size(), L,
                failed ? "FAIL" : "pass");
    }
    std::fflush(stdout);
    if (failed)
        throw Error(checkFailureMessage(r.checks, kSingleDeviceReference, o.tolerance));
    return kExitOk;
}

} // namespace opsched::cli
