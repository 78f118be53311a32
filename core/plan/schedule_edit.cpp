#include "plan/schedule_edit.h"

#include "util/error.h"

#include <algorithm>

namespace opsched {
namespace {

void dropEmpty(Schedule& s)
{
    for (auto& stage : s.stages)
        stage.groups.erase(
            std::remove_if(stage.groups.begin(), stage.groups.end(), [](const auto& g) { return g.empty(); }),
            stage.groups.end());
    s.stages.erase(std::remove_if(s.stages.begin(), s.stages.end(), [](const Stage& st) { return st.groups.empty(); }),
        s.stages.end());
}

// Takes op out, leaving its (possibly empty) group in place so indices stay meaningful.
OpPlace takeOut(Schedule& s, OpId op)
{
    const auto place = findOp(s, op);
    if (!place)
        throw Error("op " + std::to_string(op.value()) + " is not in the schedule");
    auto& group = s.stages[place->stage].groups[place->group];
    group.erase(group.begin() + static_cast<std::ptrdiff_t>(place->position));
    return *place;
}

} // namespace

std::optional<OpPlace> findOp(const Schedule& schedule, OpId op)
{
    for (std::size_t s = 0; s < schedule.stages.size(); ++s)
        for (std::size_t g = 0; g < schedule.stages[s].groups.size(); ++g) {
            const auto& group = schedule.stages[s].groups[g];
            const auto it = std::find(group.begin(), group.end(), op);
            if (it != group.end())
                return OpPlace { s, g, static_cast<std::size_t>(it - group.begin()) };
        }
    return std::nullopt;
}

Schedule moveOp(const Schedule& schedule, OpId op, std::size_t stage, std::size_t group, std::size_t position)
{
    if (stage > schedule.stages.size())
        throw Error("there is no stage " + std::to_string(stage));
    if (stage < schedule.stages.size() && group > schedule.stages[stage].groups.size())
        throw Error("stage " + std::to_string(stage) + " has no group " + std::to_string(group));
    Schedule out = schedule;
    const OpPlace from = takeOut(out, op);
    if (stage == out.stages.size())
        out.stages.push_back(Stage {});
    auto& groups = out.stages[stage].groups;
    if (group >= groups.size()) {
        groups.emplace_back();
        group = groups.size() - 1;
    }
    auto& target = groups[group];
    // Moving down within the same group: the op's own removal shifted the later positions.
    if (from.stage == stage && from.group == group && from.position < position)
        --position;
    position = std::min(position, target.size());
    target.insert(target.begin() + static_cast<std::ptrdiff_t>(position), op);
    dropEmpty(out);
    return out;
}

Schedule moveOpToNewStage(const Schedule& schedule, OpId op, std::size_t beforeStage)
{
    if (beforeStage > schedule.stages.size())
        throw Error("there is no stage " + std::to_string(beforeStage));
    Schedule out = schedule;
    takeOut(out, op);
    out.stages.insert(
        out.stages.begin() + static_cast<std::ptrdiff_t>(beforeStage), Stage { StageStrategy::Concurrent, { { op } } });
    dropEmpty(out);
    return out;
}

Schedule setStrategy(const Schedule& schedule, std::size_t stage, StageStrategy strategy)
{
    if (stage >= schedule.stages.size())
        throw Error("there is no stage " + std::to_string(stage));
    Schedule out = schedule;
    out.stages[stage].strategy = strategy;
    return out;
}

} // namespace opsched
