// Simulated-device JSON (`--device sim:FILE.json`, what `calibrate --write-device` writes): a
// device the reader accepts must give every plan a finite, positive latency.
#include "fuzz_support.h"
#include "json_mutator.h"

#include "model/model_ref.h"
#include "plan/plan.h"
#include "schedule/basic_schedulers.h"
#include "sim/sim_device_file.h"
#include "sim/simulator.h"
#include "util/error.h"

#include <cmath>
#include <cstdint>

OPSCHED_FUZZ_JSON_MUTATOR

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const opsched::Graph graph = opsched::loadModel("zoo:random?ops=10&width=3&seed=1");
    static const opsched::Plan greedy = opsched::compileSchedule(graph, opsched::greedySchedule(graph));
    const auto j = nlohmann::json::parse(data, data + size, nullptr, false);
    if (j.is_discarded())
        return 0;
    try {
        const opsched::SimDevice device = opsched::simDeviceFromJson(j, "fuzz input");
        for (const bool cudaGraph : { false, true }) {
            const opsched::SimResult r = opsched::simulate(graph, greedy, device, opsched::SimOptions { cudaGraph });
            if (!std::isfinite(r.latency) || !(r.latency > 0))
                opsched::fuzz::finding("an accepted device gives a latency that is not finite and positive");
            if (!std::isfinite(r.averageActiveWarps) || r.averageActiveWarps < 0)
                opsched::fuzz::finding("an accepted device gives an average of active warps that is not finite");
        }
    } catch (const opsched::Error&) {
    }
    return 0;
}
