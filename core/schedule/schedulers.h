// Every scheduler behind one call, so the CLI, the GUI and the batch profiler run them the same way.
#pragma once

#include "plan/lowering.h"
#include "plan/plan.h"
#include "schedule/ios_scheduler.h"
#include "schedule/scheduler_defaults.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace opsched {

struct SchedulerParams {
    std::size_t r = kDefaultIosR; // IOS: ops per group
    std::size_t s = kDefaultIosS; // IOS: groups per stage; greedy: ops per stage
    std::size_t maxPartOps = kDefaultMaxPartOps;
    // How stage schedules become plans (plan/lowering.h); with `best`, both lowerings are
    // evaluated whole on the cost model and the faster is kept.
    std::optional<Lowering> lowering = Lowering::Barriers; // nullopt: best

    std::function<bool(const IosProgress&)> progress;
};

struct SchedulerOutput {
    std::string scheduler;
    std::optional<Schedule> schedule; // stage schedulers; Nimble and Opara emit plans only
    Plan plan;
    nlohmann::ordered_json params = nlohmann::ordered_json::object();
    double searchSeconds = 0;
    std::size_t states = 0; // IOS only
    std::size_t transitions = 0; // IOS only
};

// Names accepted by runScheduler, in the order `compare` shows them.
const std::vector<std::string>& schedulerNames();

// A stage schedule lowered as asked (nullopt: both ways, the faster on `cost` kept); records the
// choice in `params` ("lowering", and "lowering_ms" when both were evaluated) unless it is barriers.
Plan lowerWithCost(const Graph& graph, const Schedule& schedule, std::optional<Lowering> lowering, StageCostModel& cost,
    nlohmann::ordered_json& params);

// Throws Error naming the scheduler when it is unknown or its parameters are invalid.
SchedulerOutput runScheduler(
    const std::string& name, const Graph& graph, StageCostModel& cost, const SchedulerParams& params = {});

} // namespace opsched
