// Mapping JSON against a fixed model, as `run --mapping` reads it: parse, check the form, rebuild
// the problem from its costs and links, evaluate, lower to a plan. What is accepted must evaluate
// to a finite makespan or a named problem, and lower to a valid plan when it evaluates.
#include "fuzz_support.h"
#include "json_mutator.h"

#include "map/bridge/mapping_plan.h"
#include "map/files/mapping_file.h"
#include "model/model_ref.h"
#include "util/error.h"

#include <cmath>
#include <cstdint>

OPSCHED_FUZZ_JSON_MUTATOR

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    static const opsched::Graph graph = opsched::loadModel("zoo:rwnn?modules=2&n=6&res=32&width=8");
    const auto j = nlohmann::json::parse(data, data + size, nullptr, false);
    if (j.is_discarded())
        return 0;
    try {
        const auto doc = opsched::map::mappingFromJson(graph, j);
        bool costed = true;
        for (std::size_t t = 0; t < graph.opCount(); ++t)
            costed = costed && std::isfinite(doc.costsMs[t * doc.devices.size() + doc.mapping.device[t]]);
        std::vector<double> starts;
        if (costed) {
            const auto problem = opsched::map::problemFromDocument(graph, doc);
            const auto times = opsched::map::evaluate(problem, doc.mapping);
            if (times.feasible && (!std::isfinite(times.makespan) || times.makespan < 0))
                opsched::fuzz::finding(
                    "a feasible mapping evaluated to a makespan that is not finite and non-negative");
            if (!times.feasible && times.problem.empty())
                opsched::fuzz::finding("an infeasible mapping without a reason");
            if (!times.feasible)
                return 0;
            starts = times.start;
        }
        const opsched::Plan plan = opsched::map::planForMapping(graph, doc.mapping, starts);
        if (!opsched::validate(graph, plan).empty())
            opsched::fuzz::finding("an accepted mapping lowered to an invalid plan");
    } catch (const opsched::Error&) {
    }
    return 0;
}
