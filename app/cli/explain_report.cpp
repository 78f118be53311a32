#include "explain_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

namespace opsched::cli {
namespace {

constexpr double kMs = 1e-6; // ns -> ms

std::string schedulerOf(const store::RunRecord& run)
{
    return run.schedule ? run.schedule->scheduler : std::string("(no schedule)");
}

double share(double ns, double difference)
{
    return difference != 0 ? ns / difference : 0.0;
}

// Shares of a difference of nothing (two schedules the same run) say nothing.
bool noDifference(const analysis::SpeedupBreakdown& r)
{
    return std::abs(r.differenceNs) <= 1e-6 * std::max(r.a.latencyNs, r.b.latencyNs);
}

nlohmann::ordered_json accountJson(const store::RunRecord& run, const analysis::LatencyAccount& a)
{
    return { { "run", run.id.value() }, { "scheduler", schedulerOf(run) }, { "latency_ms", a.latencyNs * kMs },
        { "recorded_span_ms", a.spanNs * kMs }, { "kernels", a.kernels }, { "kernel_ms", a.kernelNs * kMs },
        { "busy_ms", a.busyNs * kMs }, { "overlap_ms", a.overlapNs * kMs }, { "launch_idle_ms", a.launchIdleNs * kMs },
        { "sync_idle_ms", a.syncIdleNs * kMs }, { "gap_idle_ms", a.gapIdleNs * kMs },
        { "variation_ms", a.variationNs * kMs } };
}

} // namespace

std::string runLabel(const store::RunRecord& run)
{
    return schedulerOf(run) + " (run " + std::to_string(run.id.value()) + ")";
}

nlohmann::ordered_json breakdownJson(
    const store::RunRecord& a, const store::RunRecord& b, const analysis::SpeedupBreakdown& r, std::size_t topOps)
{
    nlohmann::ordered_json j;
    j["model"] = a.model.name;
    j["batch"] = a.batch;
    j["device_a"] = a.device.key;
    j["device_b"] = b.device.key;
    j["a"] = accountJson(a, r.a);
    j["b"] = accountJson(b, r.b);
    j["difference_ms"] = r.differenceNs * kMs;
    j["speedup"] = r.b.latencyNs > 0 ? r.a.latencyNs / r.b.latencyNs : 0.0;
    j["terms"] = nlohmann::ordered_json::array();
    for (const auto& t : r.terms)
        j["terms"].push_back({ { "term", t.key }, { "label", t.label }, { "ms", t.ns * kMs },
            { "share", share(t.ns, r.differenceNs) } });
    j["term_sum_ms"] = r.termSumNs() * kMs;
    j["kernels"] = { { "shared", r.sharedKernels }, { "only_a", r.onlyAKernels }, { "only_b", r.onlyBKernels } };
    j["ops"] = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < std::min(topOps, r.ops.size()); ++i) {
        const auto& o = r.ops[i];
        j["ops"].push_back({ { "op", o.op }, { "op_id", o.opId }, { "a_kernel_ms", o.aNs * kMs },
            { "b_kernel_ms", o.bNs * kMs }, { "change_ms", o.changeNs() * kMs } });
    }
    return j;
}

void printBreakdown(
    const store::RunRecord& a, const store::RunRecord& b, const analysis::SpeedupBreakdown& r, std::size_t topOps)
{
    std::printf("%s, batch %lld: A = %s on %s, B = %s on %s\n", a.model.name.c_str(), static_cast<long long>(a.batch),
        runLabel(a).c_str(), a.device.key.c_str(), runLabel(b).c_str(), b.device.key.c_str());
    std::printf("latency      A %.4f ms, B %.4f ms: B is %.4f ms %s (%.2fx)\n", r.a.latencyNs * kMs,
        r.b.latencyNs * kMs, std::abs(r.differenceNs) * kMs, r.differenceNs >= 0 ? "faster" : "slower",
        r.b.latencyNs > 0 ? r.a.latencyNs / r.b.latencyNs : 0.0);
    if (noDifference(r))
        std::printf("no difference: the runs take the same time, shares below are of nothing\n");
    std::printf("\nwhere the difference comes from (A - B; + is time B saves)\n");
    std::printf("  %-62s %11s %8s\n", "term", "ms", "share");
    for (const auto& t : r.terms) {
        std::string label = t.label;
        if (t.key == "shared_kernels")
            label += " [" + std::to_string(r.sharedKernels) + "]";
        else if (t.key == "only_a_kernels")
            label += " [" + std::to_string(r.onlyAKernels) + "]";
        else if (t.key == "only_b_kernels")
            label += " [" + std::to_string(r.onlyBKernels) + "]";
        std::printf("  %-62s %+11.4f %7.1f%%\n", label.c_str(), t.ns * kMs, 100 * share(t.ns, r.differenceNs));
    }
    std::printf("  %-62s %+11.4f %7.1f%%\n", "sum (= latency A - latency B)", r.termSumNs() * kMs,
        100 * share(r.termSumNs(), r.differenceNs));
    std::printf("\neach run  %10s %10s %10s %10s %12s %10s %10s %10s\n", "latency", "kernels", "busy", "overlap",
        "launch_idle", "sync_idle", "gap_idle", "variation");
    for (const auto* acc : { &r.a, &r.b })
        std::printf("  %s (ms) %10.4f %10.4f %10.4f %10.4f %12.4f %10.4f %10.4f %10.4f\n", acc == &r.a ? "A" : "B",
            acc->latencyNs * kMs, acc->kernelNs * kMs, acc->busyNs * kMs, acc->overlapNs * kMs, acc->launchIdleNs * kMs,
            acc->syncIdleNs * kMs, acc->gapIdleNs * kMs, acc->variationNs * kMs);
    if (topOps == 0 || r.ops.empty())
        return;
    std::printf("\nops whose kernel time changed most (A - B)\n");
    std::printf("  %-48s %10s %10s %11s\n", "op", "A ms", "B ms", "change ms");
    for (std::size_t i = 0; i < std::min(topOps, r.ops.size()); ++i) {
        const auto& o = r.ops[i];
        std::printf("  %-48s %10.4f %10.4f %+11.4f\n", o.op.c_str(), o.aNs * kMs, o.bNs * kMs, o.changeNs() * kMs);
    }
}

std::string leadingTerms(const analysis::SpeedupBreakdown& r, std::size_t count)
{
    if (noDifference(r))
        return "no difference (the same latency)";
    std::vector<const analysis::BreakdownTerm*> terms;
    for (const auto& t : r.terms)
        terms.push_back(&t);
    std::stable_sort(
        terms.begin(), terms.end(), [](const auto* x, const auto* y) { return std::abs(x->ns) > std::abs(y->ns); });
    std::string out;
    char buf[96];
    for (std::size_t i = 0; i < std::min(count, terms.size()); ++i) {
        std::snprintf(buf, sizeof buf, "%s%s %+.0f%%", out.empty() ? "" : ", ", terms[i]->key.c_str(),
            100 * share(terms[i]->ns, r.differenceNs));
        out += buf;
    }
    return out;
}

} // namespace opsched::cli
