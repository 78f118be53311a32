// Lowering a stage schedule to a plan, the one contract backends run. Two ways:
//  - barriers: every stage boundary joins all streams (IOS's execution model, what its dynamic
//    program adds up: a stage's latency includes the join after it);
//  - events: the same launches on the same streams in the same order, with no barrier; a launch
//    waits only for the launches on other streams that it depends on (the fewest waits that order
//    every dependency), so a stage's ops start as soon as their inputs are ready. What a stage
//    boundary costs then shrinks to the dependencies that cross it.
#pragma once

#include "plan/plan.h"

#include <optional>
#include <string>
#include <string_view>

namespace opsched {

enum class Lowering : std::uint8_t { Barriers, Events };

const char* toString(Lowering lowering);
// "barriers" or "events"; nullopt otherwise.
std::optional<Lowering> parseLowering(std::string_view text);

Plan lowerSchedule(const Graph& graph, const Schedule& schedule, Lowering lowering);

// Replaces every launch's waits with the fewest cross-stream waits that order each dependency
// between launches (vector clocks over stream order and earlier waits); keeps the barriers. The
// launches must hold every op of `graph` once, in an order that is topological.
void addDependencyWaits(const Graph& graph, Plan& plan);

} // namespace opsched
