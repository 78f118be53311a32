#include "engine/results/throughput_mapping_result.h"

#include "map/bridge/mapping_plan.h"

#include <algorithm>
#include <numeric>

namespace opsched {

std::vector<int> majorityDevices(const map::ThroughputProblem& problem, const map::ThroughputMapping& mapping)
{
    std::vector<int> out(mapping.split.size(), 0);
    for (std::size_t t = 0; t < mapping.split.size(); ++t) {
        const auto& counts = problem.splits[mapping.split[t]];
        out[t] = static_cast<int>(std::max_element(counts.begin(), counts.end()) - counts.begin());
    }
    return out;
}

TimelineData timelineFromThroughputMapping(const Graph& graph, const map::ThroughputProblem& problem,
    const map::ThroughputMapping& mapping, const map::ThroughputTimes& times,
    const std::vector<map::Transfer>& transfers)
{
    TimelineData data;
    const std::size_t k = problem.base.deviceCount();
    StreamRowsBuilder rows = deviceRows(data, k);
    for (std::uint32_t u = 0; u < k; ++u)
        for (std::uint32_t t : mapping.order[u]) {
            const auto& counts = problem.splits[mapping.split[t]];
            // Inputs are dealt out in device order (throughput_problem.h), and a device running
            // several batches takes its inputs in order, in equal batches: each batch's range.
            const std::int64_t first = std::accumulate(counts.begin(), counts.begin() + u, std::int64_t(0));
            const auto& starts = times.batchStart[t][u];
            const std::int64_t size = counts[u] / static_cast<std::int64_t>(std::max<std::size_t>(starts.size(), 1));
            const auto colour = static_cast<std::uint32_t>(graph.op(OpId(t)).kind);
            const std::string& name = graph.op(OpId(t)).name;
            rows.addOp(u, times.start[t][u], times.finish[t][u], t, colour);
            for (std::size_t b = 0; b < starts.size(); ++b) {
                const std::int64_t from = first + static_cast<std::int64_t>(b) * size;
                TimelineKernel batch;
                batch.name = name + " ×" + std::to_string(size);
                batch.op = t;
                batch.launch = "inputs " + std::to_string(from) + "–" + std::to_string(from + size - 1) + " of "
                    + std::to_string(problem.inputs);
                if (starts.size() > 1)
                    batch.launch += ", batch " + std::to_string(b + 1) + " of " + std::to_string(starts.size());
                rows.addKernel(u, starts[b], times.batchFinish[t][u][b], colour, std::move(batch));
            }
        }
    finishDeviceTimeline(data, rows, deviceNames(problem.base), transfers, times.makespan, "  batches");
    return data;
}

std::shared_ptr<ScheduleResult> throughputMappingResult(const Graph& graph, const map::ThroughputProblem& problem,
    const map::ThroughputMapping& mapping, const map::ThroughputTimes& times,
    const std::vector<map::Transfer>& transfers, const ScheduleRequest& request, const MappingSummary& summary)
{
    const std::vector<int> majority = majorityDevices(problem, mapping);
    auto result = mappingResultBase(graph, deviceNames(problem.base), majority, times.makespan, request, summary);
    result->mapping->colouring = "device with most of the op's inputs";
    result->output.params["objective"] = "throughput";
    result->output.params["inputs"] = problem.inputs;
    result->output.params["throughput_per_s"] = times.throughput;
    // The plan an export keeps: each op whole on its majority device, launched in the order its
    // first batch starts (a predecessor's batches start before any batch that waits for them).
    const std::size_t n = problem.base.taskCount(), k = problem.base.deviceCount();
    std::vector<double> firstStart(n, 0);
    for (std::uint32_t t = 0; t < n; ++t) {
        double s = map::kUnsupported;
        for (std::uint32_t u = 0; u < k; ++u)
            if (problem.splits[mapping.split[t]][u])
                s = std::min(s, times.start[t][u]);
        firstStart[t] = s;
    }
    map::Mapping whole;
    whole.device.assign(majority.begin(), majority.end());
    whole.order.assign(k, {});
    for (OpId op : graph.topologicalOrder())
        whole.order[whole.device[op.value()]].push_back(op.value());
    for (auto& order : whole.order)
        std::stable_sort(order.begin(), order.end(),
            [&](std::uint32_t a, std::uint32_t b) { return firstStart[a] < firstStart[b]; });
    result->output.plan = map::planForMapping(graph, whole, firstStart);
    result->timeline
        = std::make_shared<TimelineData>(timelineFromThroughputMapping(graph, problem, mapping, times, transfers));
    return result;
}

} // namespace opsched
