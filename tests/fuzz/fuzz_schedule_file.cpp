// Schedule and plan JSON against a fixed model, as `evaluate --schedule` and `run --schedule`
// read it: parse, check the form, validate, lower (both ways), simulate. A valid plan must
// simulate to a finite, non-negative latency.
#include "fuzz_support.h"
#include "json_mutator.h"

#include "model/model_ref.h"
#include "plan/lowering.h"
#include "schedule/schedule_file.h"
#include "sim/sim_device.h"
#include "sim/simulator.h"
#include "util/error.h"

#include <cmath>
#include <cstdint>

namespace {

void simulateIfValid(const opsched::Graph& graph, const opsched::Plan& plan)
{
    if (!opsched::validate(graph, plan).empty())
        return;
    const double t = opsched::simulate(graph, plan, opsched::findSimDevice("sim:h100")).latency;
    if (!std::isfinite(t) || t < 0)
        opsched::fuzz::finding("a valid plan simulated to a latency that is not finite and non-negative");
}

} // namespace

OPSCHED_FUZZ_JSON_MUTATOR

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const opsched::Graph graph = opsched::loadModel("zoo:squeezenet");
    const auto j = nlohmann::json::parse(data, data + size, nullptr, false);
    if (j.is_discarded())
        return 0;
    try {
        const opsched::ScheduleDocument doc = opsched::scheduleFromJson(graph, j);
        if (doc.schedule) {
            if (!opsched::validate(graph, *doc.schedule).empty())
                return 0;
            simulateIfValid(graph, doc.executablePlan(graph));
            for (const auto lowering : { opsched::Lowering::Barriers, opsched::Lowering::Events }) {
                const opsched::Plan plan = opsched::lowerSchedule(graph, *doc.schedule, lowering);
                if (!opsched::validate(graph, plan).empty())
                    opsched::fuzz::finding("a valid schedule lowered to an invalid plan");
            }
        } else if (doc.plan) {
            simulateIfValid(graph, *doc.plan);
        }
    } catch (const opsched::Error&) {
    }
    return 0;
}
