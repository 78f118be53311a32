// Hand edits of a stage schedule. Each returns a new schedule (schedules are values, so undo is
// keeping the old one); empty groups and stages left behind are removed. Edits never check
// validity: the editor shows validate()'s verdict after every edit, an invalid step included.
#pragma once

#include "plan/schedule.h"

#include <optional>

namespace opsched {

struct OpPlace {
    std::size_t stage = 0;
    std::size_t group = 0;
    std::size_t position = 0;
};

std::optional<OpPlace> findOp(const Schedule& schedule, OpId op);

// Moves `op` into group `group` of stage `stage` at `position` (clamped to the group's end).
// group == number of groups in that stage makes a new group; stage == number of stages makes a
// new stage at the end. Throws Error when op is not in the schedule or indices are out of range.
Schedule moveOp(const Schedule& schedule, OpId op, std::size_t stage, std::size_t group, std::size_t position);

// Moves `op` into a new stage of its own, inserted before stage `beforeStage` (== stage count: at
// the end).
Schedule moveOpToNewStage(const Schedule& schedule, OpId op, std::size_t beforeStage);

// Sets a stage's strategy (concurrent / merge).
Schedule setStrategy(const Schedule& schedule, std::size_t stage, StageStrategy strategy);

} // namespace opsched
