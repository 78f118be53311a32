#include "engine/run/throughput_run.h"

#include "engine/map_devices.h"
#include "engine/run/run_check.h"

#include "exec/cpu/cpu_executor.h"
#include "exec/reference_outputs.h"
#include "exec/segment_executors.h"
#include "graph/subgraph.h"
#include "map/files/throughput_mapping_file.h"
#include "util/error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

namespace opsched::engine {
namespace {

using Clock = std::chrono::steady_clock;

// One batch: op `task` on `device` for inputs [first, first + count), the op at that batch size
// (its executor is made by the device's worker, on first use).
struct Batch {
    std::uint32_t task = 0, device = 0;
    std::int64_t first = 0, count = 0;
    exec::SegmentExecutor* executor = nullptr;
    const Subgraph* subgraph = nullptr;
    double startMs = 0, endMs = 0; // measured, last run
    double predictedStartMs = 0, predictedEndMs = 0;
};

class ThroughputRun {
public:
    ThroughputRun(const Graph& graph, const map::ThroughputMappingDocument& doc, std::vector<std::vector<int>> cores)
        : graph_(graph)
        , doc_(doc)
        , cores_(std::move(cores))
    {
        const auto& p = doc.problem;
        const map::ThroughputTimes times = map::evaluate(p, doc.mapping);
        if (!times.feasible)
            throw Error("run --mapping: the throughput mapping is not a schedule: " + times.problem);
        predictedMs_ = times.makespan * 1e3;
        perDevice_.assign(p.base.deviceCount(), {});
        executors_.resize(p.base.deviceCount());
        for (std::uint32_t u = 0; u < p.base.deviceCount(); ++u) {
            for (std::uint32_t t : doc.mapping.order[u]) {
                const std::uint32_t s = doc.mapping.split[t];
                std::int64_t first = 0;
                for (std::uint32_t w = 0; w < u; ++w)
                    first += p.splits[s][w];
                const std::int64_t m = p.batchesOn(s, u), h = p.splits[s][u] / m;
                for (std::int64_t j = 0; j < m; ++j) {
                    Batch b { t, u, first + j * h, h };
                    b.predictedStartMs = times.batchStart[t][u][static_cast<std::size_t>(j)] * 1e3;
                    b.predictedEndMs = times.batchFinish[t][u][static_cast<std::size_t>(j)] * 1e3;
                    b.subgraph = subgraphFor(t, h);
                    perDevice_[u].push_back(batches_.size());
                    batches_.push_back(b);
                }
            }
        }
    }

    double predictedMs() const { return predictedMs_; }
    const std::vector<Batch>& batches() const { return batches_; }

    // inputs[l]: the graph inputs of input l. Returns outputs[l] in graph.outputs() order.
    std::vector<std::vector<std::vector<float>>> run(const std::vector<std::vector<std::vector<float>>>& inputs)
    {
        const std::size_t L = inputs.size();
        values_.assign(graph_.tensors().size(), std::vector<std::vector<float>>(L));
        inputCount_ = L;
        ready_ = std::make_unique<std::atomic<char>[]>(graph_.tensors().size() * L); // all 0
        for (std::size_t l = 0; l < L; ++l)
            for (std::size_t i = 0; i < graph_.inputs().size(); ++i) {
                values_[graph_.inputs()[i].value()][l] = inputs[l][i];
                readyFlag(graph_.inputs()[i], l).store(1, std::memory_order_relaxed);
            }
        error_ = nullptr;
        failed_ = false;
        origin_ = Clock::now();
        std::vector<std::thread> workers;
        for (std::size_t u = 0; u < perDevice_.size(); ++u)
            workers.emplace_back([this, u] { worker(u); });
        for (auto& w : workers)
            w.join();
        if (error_)
            std::rethrow_exception(error_);
        std::vector<std::vector<std::vector<float>>> out(L);
        for (std::size_t l = 0; l < L; ++l)
            for (TensorId o : graph_.outputs())
                out[l].push_back(values_[o.value()][l]);
        return out;
    }

    double lastSpanMs() const
    {
        double end = 0;
        for (const Batch& b : batches_)
            end = std::max(end, b.endMs);
        return end;
    }

private:
    const Subgraph* subgraphFor(std::uint32_t task, std::int64_t size)
    {
        auto& sub = subgraphs_[{ task, size }];
        if (!sub) {
            auto at = graphs_.find(size);
            if (at == graphs_.end())
                at = graphs_.emplace(size, std::make_unique<Graph>(graph_.withBatch(size))).first;
            sub = std::make_unique<Subgraph>(
                extractSubgraph(*at->second, { OpId(task) }, graph_.op(OpId(task)).name + "@" + std::to_string(size)));
        }
        return sub.get();
    }

    // The device's worker pins itself to the device's cores and (on the first run) makes the
    // executors of its batches there, so each batch runs on it directly: no hand-off to another
    // thread per batch (tens of microseconds each, more than these ops' own work). One executor
    // per op and batch size, kept between runs.
    void prepareDevice(std::size_t device)
    {
        const auto& cores = cores_[device];
        if (!cores.empty()) // `cpu` (every core): oneDNN's own threads, nothing to pin
            cpu::pinCallingThread(cores);
        auto& mine = executors_[device];
        for (std::size_t index : perDevice_[device]) {
            Batch& b = batches_[index];
            auto& e = mine[{ b.task, b.count }];
            if (!e)
                e = exec::makeCallerCpuSegmentExecutor(b.subgraph->graph, static_cast<int>(cores.size()));
            b.executor = e.get();
        }
    }

    void worker(std::size_t device)
    {
        try {
            prepareDevice(device);
            for (std::size_t index : perDevice_[device])
                runBatch(batches_[index]);
        } catch (...) {
            std::lock_guard lock(mutex_);
            if (!error_)
                error_ = std::current_exception();
            failed_.store(true);
            wake_.notify_all();
        }
    }

    // Waits for the batch's input values, runs its op on them as one batch, publishes the outputs.
    void runBatch(Batch& b)
    {
        const Subgraph& sub = *b.subgraph;
        const auto lo = static_cast<std::size_t>(b.first), hi = static_cast<std::size_t>(b.first + b.count);
        auto ready = [&] {
            if (failed_.load())
                return true;
            for (TensorId t : sub.inputs)
                for (std::size_t l = lo; l < hi; ++l)
                    if (!readyFlag(t, l).load(std::memory_order_acquire))
                        return false;
            return true;
        };
        // The devices are pinned to cores of their own: a short spin catches an input that is a
        // few microseconds away without a sleep and wake-up; then the condition variable.
        for (int spin = 0; spin < kSpins && !ready(); ++spin)
            std::this_thread::yield();
        if (!ready()) {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, ready);
        }
        if (failed_.load())
            throw Error("another device failed");
        // A value is written once per run, before its flag is set (release): from here on it is
        // only read, so the copies below hold no lock.
        std::vector<std::vector<float>> in(sub.inputs.size());
        for (std::size_t i = 0; i < sub.inputs.size(); ++i) // inputs stacked along the batch
            for (std::size_t l = lo; l < hi; ++l)
                in[i].insert(
                    in[i].end(), values_[sub.inputs[i].value()][l].begin(), values_[sub.inputs[i].value()][l].end());
        const auto start = Clock::now();
        std::vector<std::vector<float>> out = b.executor->run(in);
        const auto end = Clock::now();
        b.startMs = std::chrono::duration<double, std::milli>(start - origin_).count();
        b.endMs = std::chrono::duration<double, std::milli>(end - origin_).count();
        std::vector<std::vector<std::vector<float>>> slices(sub.outputs.size()); // [output][input of the batch]
        for (std::size_t o = 0; o < sub.outputs.size(); ++o) {
            const std::size_t each = out[o].size() / static_cast<std::size_t>(b.count);
            if (b.count == 1) {
                slices[o].push_back(std::move(out[o]));
                continue;
            }
            for (std::size_t l = lo; l < hi; ++l) {
                const auto from = out[o].begin() + static_cast<std::ptrdiff_t>((l - lo) * each);
                slices[o].emplace_back(from, from + static_cast<std::ptrdiff_t>(each));
            }
        }
        for (std::size_t o = 0; o < sub.outputs.size(); ++o)
            for (std::size_t l = lo; l < hi; ++l) {
                values_[sub.outputs[o].value()][l] = std::move(slices[o][l - lo]);
                readyFlag(sub.outputs[o], l).store(1, std::memory_order_release);
            }
        { // a waiter checks the flags holding the lock: taking it here means none misses this wake-up
            std::lock_guard lock(mutex_);
        }
        wake_.notify_all();
    }

    const Graph& graph_;
    const map::ThroughputMappingDocument& doc_;
    std::vector<std::vector<int>> cores_;
    double predictedMs_ = 0;
    std::vector<Batch> batches_;
    std::vector<std::vector<std::size_t>> perDevice_;
    std::map<std::int64_t, std::unique_ptr<Graph>> graphs_;
    std::map<std::pair<std::uint32_t, std::int64_t>, std::unique_ptr<Subgraph>> subgraphs_;
    // Per device, by (op, batch size); made and run on that device's worker (prepareDevice).
    std::vector<std::map<std::pair<std::uint32_t, std::int64_t>, std::unique_ptr<exec::SegmentExecutor>>> executors_;
    std::vector<std::vector<std::vector<float>>> values_; // [tensor][input]
    std::atomic<char>& readyFlag(TensorId t, std::size_t input) { return ready_[t.value() * inputCount_ + input]; }
    static constexpr int kSpins = 2000;
    std::unique_ptr<std::atomic<char>[]> ready_; // [tensor * inputs + input]: its value is there
    std::size_t inputCount_ = 0;
    std::mutex mutex_;
    std::condition_variable wake_;
    std::exception_ptr error_;
    std::atomic<bool> failed_ = false;
    Clock::time_point origin_;
};

nlohmann::json readJson(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        throw Error("run --mapping: cannot read " + path);
    return nlohmann::json::parse(in, nullptr, false);
}

std::vector<std::vector<int>> cpuDevices(const std::vector<std::string>& devices)
{
    std::vector<std::vector<int>> cores;
    for (const auto& d : devices) {
        const auto c = cpuCoresOf(d, devices);
        if (!c)
            throw Error("run --mapping: device " + d
                + " cannot run a throughput mapping: they run on cpu and cpu:N "
                  "devices (sim devices only predict; see the file's makespan_ms)");
        cores.push_back(*c);
    }
    return cores;
}

} // namespace

bool isThroughputMappingFile(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
        return false;
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    return !j.is_discarded() && j.is_object() && j.contains("objective") && j["objective"] == "throughput";
}

ThroughputRunResult runThroughputMapping(
    const Graph& graph, const Graph& runGraph, const std::string& path, const ThroughputRunOptions& o)
{
    const map::ThroughputMappingDocument doc = map::throughputMappingFromJson(graph, readJson(path));
    std::vector<std::string> devices;
    for (const auto& d : doc.problem.base.devices)
        devices.push_back(d.name);
    ThroughputRun run(runGraph, doc, cpuDevices(devices));
    const auto L = static_cast<std::size_t>(doc.problem.inputs);
    std::vector<std::vector<std::vector<float>>> inputs(L);
    for (std::size_t l = 0; l < L; ++l) // input l: seed l + 1 (seed 1 is `run`'s own draw)
        inputs[l] = cpu::seededInputs(graph, l + 1);
    // Warm-up on other data (the first touch of every executor); every run starts from empty
    // values, so a batch that did not wait for its producer fails instead of reading the last run's.
    std::vector<std::vector<std::vector<float>>> other(L);
    for (std::size_t l = 0; l < L; ++l)
        other[l] = warmUpInputs(inputs[l]);
    auto outputs = run.run(other);
    std::vector<double> spans;
    for (int r = 0; r < std::max(1, o.repeat); ++r) {
        outputs = run.run(inputs);
        spans.push_back(run.lastSpanMs());
    }
    std::sort(spans.begin(), spans.end());
    const double measured = spans[spans.size() / 2];
    std::vector<OutputComparison> checks;
    if (o.check)
        for (std::size_t l = 0; l < L; ++l) {
            const auto reference = singleDeviceOutputs(graph, inputs[l]);
            for (std::size_t k = 0; k < graph.outputs().size(); ++k) {
                const Tensor& t = graph.tensor(graph.outputs()[k]);
                checks.push_back(compareOutput(t.name + "#" + std::to_string(l), outputs[l][k], t.shape.dims,
                    reference[k], t.shape.dims, o.tolerance));
            }
        }
    ThroughputRunResult result;
    result.mapper = doc.mapper;
    result.devices = devices;
    result.inputs = L;
    result.batches = run.batches().size();
    result.predictedMs = run.predictedMs();
    result.spansMs = spans;
    result.measuredMs = measured;
    result.checks = std::move(checks);
    return result;
}

} // namespace opsched::engine
