#include "schedule/measured_stage_cost.h"

#include "util/error.h"
#include "util/statistics.h"

#include <cmath>

namespace opsched {
namespace {

// Entries are written in batches of this many, so an interrupted search on a GPU keeps most of
// what it measured without a transaction per stage.
constexpr std::size_t kFlushEvery = 64;

} // namespace

std::string timerKey(const TimerIdentity& identity)
{
    return "measured|" + identity.device + "|" + identity.driver + "|" + identity.options;
}

MeasuredStageCost::MeasuredStageCost(
    StageTimer& timer, std::string deviceName, SimDevice deviceModel, StageCostStore* store)
    : timer_(timer)
    , deviceName_(std::move(deviceName))
    , deviceModel_(std::move(deviceModel))
    , store_(store)
    , identity_(timer.identity())
    , timerKey_(timerKey(identity_))
{
}

MeasuredStageCost::~MeasuredStageCost()
{
    try {
        flush();
    } catch (...) { // NOLINT(bugprone-empty-catch): a destructor must not throw; flush() reports
    }
}

const StageSignatures& MeasuredStageCost::signaturesFor(const Graph& graph)
{
    if (!signatures_ || signaturesGraph_ != graph.instanceId()) {
        signatures_ = std::make_unique<StageSignatures>(graph);
        signaturesGraph_ = graph.instanceId();
    }
    return *signatures_;
}

template <typename Measure>
double MeasuredStageCost::lookup(
    const Graph& graph, const std::string& signature, Measure&& measure, std::size_t& timedCounter)
{
    const std::int64_t batch = graph.batch();
    const std::string memoryKey = std::to_string(batch) + "/" + signature;
    if (auto it = memory_.find(memoryKey); it != memory_.end()) {
        ++counts_.memoryHits;
        return it->second;
    }
    if (store_) {
        auto stored = stored_.find(batch);
        if (stored == stored_.end())
            stored = stored_.emplace(batch, store_->load(timerKey_, batch)).first;
        if (auto it = stored->second.find(signature); it != stored->second.end()) {
            ++counts_.storeHits;
            memory_.emplace(memoryKey, it->second);
            return it->second;
        }
    }
    const double seconds = measure();
    if (!std::isfinite(seconds) || seconds < 0)
        throw Error("the timer on " + identity_.device + " returned an invalid time (" + std::to_string(seconds)
            + " s) for " + graph.name());
    ++timedCounter;
    memory_.emplace(memoryKey, seconds);
    if (store_) {
        auto& pending = pending_[batch];
        pending.emplace_back(signature, seconds);
        if (pending.size() >= kFlushEvery)
            flush();
    }
    return seconds;
}

double MeasuredStageCost::stageLatency(const Graph& graph, const Stage& stage)
{
    const std::string signature = signaturesFor(graph)(stage);
    return lookup(
        graph, signature, [&] { return timer_.timeStage(graph, stage); }, counts_.stagesTimed);
}

double MeasuredStageCost::opLatency(const Graph& graph, OpId op)
{
    const std::string signature = "op:" + signaturesFor(graph).op(op);
    return lookup(
        graph, signature, [&] { return timer_.timeOp(graph, op); }, counts_.opsTimed);
}

std::vector<double> MeasuredStageCost::opLatencies(const Graph& graph)
{
    std::vector<double> seconds;
    seconds.reserve(graph.opCount());
    for (const auto& op : graph.ops())
        seconds.push_back(opLatency(graph, op.id));
    return seconds;
}

PlanTiming MeasuredStageCost::planLatency(const Graph& graph, const Plan& plan, int repeats)
{
    PlanTiming t;
    t.samples = timer_.timePlan(graph, plan, repeats);
    if (t.samples.empty())
        throw Error("the timer on " + identity_.device + " returned no replays of the plan for " + graph.name());
    t.seconds = spreadOf(t.samples);
    return t;
}

void MeasuredStageCost::flush()
{
    if (!store_)
        return;
    for (auto& [batch, entries] : pending_) {
        if (entries.empty())
            continue;
        auto writing = std::exchange(entries, {});
        store_->add(timerKey_, batch, writing);
    }
}

double MeasuredStageCost::planLatency(const Graph& graph, const Plan& plan)
{
    return spreadOf(timer_.timePlan(graph, plan, 7)).median;
}

} // namespace opsched
