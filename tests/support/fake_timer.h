// Test doubles for the measured cost model: a StageTimer whose "GPU" is the simulator (so results
// can be checked against the simulator itself) and that counts what it was asked, and a persistent
// cache kept in memory.
#pragma once

#include "schedule/measured_stage_cost.h"
#include "sim/sim_stage_timer.h"

#include <map>
#include <string>
#include <utility>

namespace opsched::test {

class CountingTimer : public StageTimer {
public:
    explicit CountingTimer(
        SimDevice truth, TimerIdentity identity = { "fake:0 Simulated H100", "1.0/13000/91900", "tf32=on" })
        : sim_(std::move(truth))
        , identity_(std::move(identity))
    {
    }
    TimerIdentity identity() const override { return identity_; }
    double timeStage(const Graph& graph, const Stage& stage) override
    {
        ++stages;
        return sim_.timeStage(graph, stage);
    }
    double timeOp(const Graph& graph, OpId op) override
    {
        ++ops;
        return sim_.timeOp(graph, op);
    }
    std::vector<double> timePlan(const Graph& graph, const Plan& plan, int repeats) override
    {
        ++plans;
        return sim_.timePlan(graph, plan, repeats);
    }

    std::size_t stages = 0, ops = 0, plans = 0;

private:
    SimStageTimer sim_;
    TimerIdentity identity_;
};

class MemoryCostStore : public StageCostStore {
public:
    std::unordered_map<std::string, double> load(const std::string& key, std::int64_t batch) override
    {
        ++loads;
        return entries[{ key, batch }];
    }
    void add(const std::string& key, std::int64_t batch, const std::vector<std::pair<std::string, double>>& e) override
    {
        ++adds;
        for (const auto& [sig, seconds] : e)
            entries[{ key, batch }][sig] = seconds;
    }
    std::size_t size() const
    {
        std::size_t n = 0;
        for (const auto& [k, m] : entries)
            n += m.size();
        return n;
    }

    std::map<std::pair<std::string, std::int64_t>, std::unordered_map<std::string, double>> entries;
    std::size_t loads = 0, adds = 0;
};

} // namespace opsched::test
