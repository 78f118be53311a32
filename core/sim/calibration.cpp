#include "sim/calibration.h"

#include "sim/sim_device_file.h"
#include "sim/simulator.h"
#include "util/error.h"
#include "util/statistics.h"

#include <algorithm>
#include <cmath>
#include <map>

namespace opsched {

namespace {

// Kernel tables per graph, built once for the many simulations of a fit.
class StageSimulator {
public:
    double operator()(const CalibrationStage& s, const SimDevice& device, const SimOptions& options)
    {
        auto it = tables_.find(s.graph);
        if (it == tables_.end())
            it = tables_.emplace(s.graph, std::make_unique<KernelTable>(*s.graph)).first;
        return simulateStage(*s.graph, s.stage, device, options, it->second.get());
    }

private:
    std::map<const Graph*, std::unique_ptr<KernelTable>> tables_;
};

// Where each constant may go: a fit must not leave the physically meaningful range.
struct Bounds {
    double lo, hi;
    double fromZero; // the value to try when the constant is 0 (log steps cannot leave 0)
};

Bounds boundsOf(const std::string& name, const SimDevice& base)
{
    if (name == "compute_efficiency" || name == "memory_efficiency")
        return { 0.02, 1.0, 0.5 };
    if (name == "saturation_warps_per_sm")
        return { 0.5, static_cast<double>(base.maxWarpsPerMultiprocessor), 8 };
    if (name == "concurrency_penalty" || name == "contention")
        return { 0.0, 10.0, 0.05 };
    return { 0.0, 1e-3, 1e-6 }; // seconds
}

double rmsLog(const std::vector<double>& sim, const std::vector<double>& measured)
{
    double sum = 0;
    for (std::size_t i = 0; i < sim.size(); ++i) {
        const double r = std::log(std::max(sim[i], 1e-12) / measured[i]);
        sum += r * r;
    }
    return std::sqrt(sum / static_cast<double>(sim.size()));
}

} // namespace

std::vector<double> simulateStages(
    const std::vector<CalibrationStage>& stages, const SimDevice& device, const SimOptions& options)
{
    StageSimulator sim;
    std::vector<double> out;
    out.reserve(stages.size());
    for (const auto& s : stages)
        out.push_back(sim(s, device, options));
    return out;
}

CalibrationQuality calibrationQuality(const std::vector<double>& simulated, const std::vector<double>& measured)
{
    if (simulated.size() != measured.size() || simulated.size() < 2)
        throw Error("comparing simulated with measured latencies needs two or more stages with both");
    for (std::size_t i = 0; i < measured.size(); ++i)
        if (!(measured[i] > 0) || !(simulated[i] > 0))
            throw Error("stage " + std::to_string(i) + " has no positive latency (simulated "
                + std::to_string(simulated[i]) + " s, measured " + std::to_string(measured[i]) + " s)");
    CalibrationQuality q;
    q.spearman = spearmanCorrelation(simulated, measured);
    q.rmsLogError = rmsLog(simulated, measured);
    double rel = 0;
    for (std::size_t i = 0; i < measured.size(); ++i)
        rel += std::abs(simulated[i] - measured[i]) / measured[i];
    q.meanAbsRelError = rel / static_cast<double>(measured.size());
    return q;
}

FitResult fitSimDevice(const std::vector<CalibrationStage>& stages, const SimDevice& base, const SimOptions& options,
    const FitOptions& fit)
{
    // Stages of views only (a concat written in place) take no time in the simulator whatever its
    // constants: they carry nothing to fit, and no log error.
    const std::vector<double> baseSeconds = simulateStages(stages, base, options);
    std::vector<const CalibrationStage*> usable;
    for (std::size_t i = 0; i < stages.size(); ++i)
        if (stages[i].measured > 0 && std::isfinite(stages[i].measured) && baseSeconds[i] > 0)
            usable.push_back(&stages[i]);
    if (usable.size() < 2)
        throw Error("fitting the simulator needs two or more measured stages that run kernels (got "
            + std::to_string(usable.size()) + ")");

    // The fit sample: chosen stages first (they are what the final schedule pays), then the others
    // evenly spread, so a large search does not make every evaluation slow.
    std::vector<CalibrationStage> sample;
    for (const auto* s : usable)
        if (s->chosen && sample.size() < fit.maxStages)
            sample.push_back(*s);
    std::vector<const CalibrationStage*> others;
    for (const auto* s : usable)
        if (!s->chosen)
            others.push_back(s);
    const std::size_t room = fit.maxStages > sample.size() ? fit.maxStages - sample.size() : 0;
    for (std::size_t i = 0; i < room && i < others.size(); ++i)
        sample.push_back(*others[i * others.size() / std::min(room, others.size())]);

    std::vector<double> measured;
    for (const auto& s : sample)
        measured.push_back(s.measured);
    StageSimulator sim;
    FitResult result;
    auto objective = [&](const SimDevice& d) {
        ++result.evaluations;
        std::vector<double> predicted;
        predicted.reserve(sample.size());
        for (const auto& s : sample)
            predicted.push_back(sim(s, d, options));
        return rmsLog(predicted, measured);
    };

    SimDevice best = base;
    double bestError = objective(best);
    const auto& names = fittedSimConstants();
    std::vector<double> steps(names.size(), fit.initialStep);
    for (int round = 0; round < fit.maxRounds; ++round) {
        bool anyStep = false;
        for (std::size_t p = 0; p < names.size(); ++p) {
            if (steps[p] < fit.finalStep)
                continue;
            anyStep = true;
            const Bounds b = boundsOf(names[p], base);
            const double v = simConstant(best, names[p]);
            std::vector<double> candidates
                = v > 0 ? std::vector<double> { v * steps[p], v / steps[p] } : std::vector<double> { b.fromZero };
            bool improved = false;
            for (double c : candidates) {
                c = std::clamp(c, b.lo, b.hi);
                if (c == v)
                    continue;
                SimDevice trial = best;
                simConstant(trial, names[p]) = c;
                const double error = objective(trial);
                if (error < bestError * (1 - 1e-9)) {
                    best = trial;
                    bestError = error;
                    improved = true;
                }
            }
            if (!improved)
                steps[p] = std::sqrt(steps[p]);
        }
        if (!anyStep)
            break;
    }

    std::vector<double> all;
    for (const auto* s : usable)
        all.push_back(s->measured);
    std::vector<CalibrationStage> usableStages;
    for (const auto* s : usable)
        usableStages.push_back(*s);
    result.before = calibrationQuality(simulateStages(usableStages, base, options), all);
    result.after = calibrationQuality(simulateStages(usableStages, best, options), all);
    best.name = base.name + "-fitted";
    best.description = base.description + ", constants fitted to " + std::to_string(usable.size()) + " measured stages";
    result.device = std::move(best);
    result.stagesUsed = sample.size();
    result.stagesCompared = usable.size();
    return result;
}

} // namespace opsched
