#include "exec/segment_runner.h"

#include "util/error.h"

#include <algorithm>
#include <chrono>
#include <limits>

namespace opsched::exec {
namespace {

std::int64_t nowNs()
{
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

} // namespace

SegmentRunner::SegmentRunner(const Graph& graph, std::vector<Segment> segments, std::vector<std::string> deviceNames,
    const SegmentExecutorFactory& factory)
    : segments_(std::move(segments))
    , deviceNames_(std::move(deviceNames))
    , graphInputs_(graph.inputs())
    , graphOutputs_(graph.outputs())
{
    const std::size_t devices = deviceNames_.size();
    segmentsOf_.resize(devices);
    std::vector<std::size_t> producer(graph.tensors().size(), kNone), position(segments_.size());
    std::vector<char> covered(graph.opCount(), 0);
    for (std::size_t s = 0; s < segments_.size(); ++s) {
        const Segment& seg = segments_[s];
        if (seg.device >= devices)
            throw Error("segments: segment " + std::to_string(s) + " is on device " + std::to_string(seg.device)
                + ", but only " + std::to_string(devices) + " devices are named");
        position[s] = segmentsOf_[seg.device].size();
        segmentsOf_[seg.device].push_back(s);
        for (OpId op : seg.ops) {
            if (op.value() >= graph.opCount() || covered[op.value()])
                throw Error("segments: op id " + std::to_string(op.value()) + " is out of range or in two segments");
            covered[op.value()] = 1;
            producer[graph.op(op).output.value()] = s;
        }
        subgraphs_.push_back(std::make_unique<Subgraph>(
            extractSubgraph(graph, seg.ops, graph.name() + "." + deviceNames_[seg.device] + "." + std::to_string(s))));
    }
    for (std::size_t op = 0; op < graph.opCount(); ++op)
        if (!covered[op])
            throw Error("segments: op '" + graph.op(OpId(op)).name + "' is in no segment");

    // What each segment waits for, and a check that the waits and the devices' orders form no
    // cycle (a cycle would stall the workers forever).
    waits_.resize(segments_.size());
    std::vector<std::vector<std::size_t>> after(segments_.size()); // s -> segments that wait for s
    std::vector<int> pending(segments_.size(), 0);
    for (std::size_t s = 0; s < segments_.size(); ++s) {
        for (TensorId t : subgraphs_[s]->inputs) {
            const std::size_t p = producer[t.value()];
            if (p == kNone)
                continue; // a graph input
            if (segments_[p].device != segments_[s].device) {
                if (std::find(waits_[s].begin(), waits_[s].end(), p) == waits_[s].end())
                    waits_[s].push_back(p);
            } else if (position[p] > position[s]) {
                throw Error("segments: " + segmentLabel(s) + " reads '" + graph.tensor(t).name
                    + "', which a later segment of the same device produces (the order contradicts the graph)");
            }
        }
        for (std::size_t p : waits_[s])
            after[p].push_back(s);
        pending[s] = static_cast<int>(waits_[s].size());
        if (position[s] > 0) {
            after[segmentsOf_[segments_[s].device][position[s] - 1]].push_back(s);
            ++pending[s];
        }
    }
    std::vector<std::size_t> queue;
    for (std::size_t s = 0; s < segments_.size(); ++s)
        if (pending[s] == 0)
            queue.push_back(s);
    for (std::size_t i = 0; i < queue.size(); ++i)
        for (std::size_t next : after[queue[i]])
            if (--pending[next] == 0)
                queue.push_back(next);
    if (queue.size() != segments_.size())
        throw Error("segments: the segments wait for each other in a cycle (the devices' orders contradict the graph)");

    for (TensorId t : graphInputs_)
        inputElements_.push_back(graph.tensor(t).shape.elements());
    values_.resize(graph.tensors().size());
    ready_.assign(graph.tensors().size(), 0);
    timings_.assign(segments_.size(), {});
    executors_.resize(segments_.size());

    for (std::uint32_t d = 0; d < devices; ++d)
        threads_.emplace_back(&SegmentRunner::worker, this, d, &factory);
    std::unique_lock lock(mutex_);
    finished_.wait(lock, [&] { return built_ == devices; });
    if (error_) {
        stop_ = true;
        lock.unlock();
        wake_.notify_all();
        for (auto& t : threads_)
            t.join();
        std::rethrow_exception(error_);
    }
}

SegmentRunner::~SegmentRunner()
{
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_)
        if (t.joinable())
            t.join();
}

std::string SegmentRunner::segmentLabel(std::size_t s) const
{
    const Segment& seg = segments_[s];
    const auto& mine = segmentsOf_[seg.device];
    const auto k = std::find(mine.begin(), mine.end(), s) - mine.begin();
    std::string label = deviceNames_[seg.device] + ", segment " + std::to_string(k) + " of "
        + std::to_string(mine.size()) + " (" + std::to_string(seg.ops.size()) + " ops";
    if (s < subgraphs_.size() && subgraphs_[s]->graph.opCount() > 0)
        label += " from '" + subgraphs_[s]->graph.ops().front().name + "'";
    return label + ")";
}

bool SegmentRunner::inputsReady(std::size_t s) const
{
    for (TensorId t : subgraphs_[s]->inputs)
        if (ready_[t.value()] != generation_ && !(acceptStale_ && ready_[t.value()] != 0))
            return false;
    return true;
}

void SegmentRunner::poison()
{
    std::lock_guard lock(mutex_); // between runs: no worker is running a segment
    for (auto& v : values_)
        std::fill(v.begin(), v.end(), std::numeric_limits<float>::quiet_NaN());
    poisonNext_ = true; // the executors on their workers' threads (a CUDA device is per thread)
}

void SegmentRunner::runSegment(std::size_t s, std::int64_t originNs)
{
    const std::int64_t start = nowNs() - originNs;
    const Subgraph& sub = *subgraphs_[s];
    // Published values are not written again in this run, so reading them needs no lock.
    std::vector<std::vector<float>> inputs;
    inputs.reserve(sub.inputs.size());
    for (TensorId t : sub.inputs)
        inputs.push_back(values_[t.value()]);
    std::vector<std::vector<float>> outputs = executors_[s]->run(inputs);
    if (outputs.size() != sub.outputs.size())
        throw Error("the executor returned " + std::to_string(outputs.size()) + " outputs, the segment has "
            + std::to_string(sub.outputs.size()));
    for (std::size_t k = 0; k < outputs.size(); ++k) {
        const auto want = sub.graph.tensor(sub.graph.outputs()[k]).shape.elements();
        if (static_cast<std::int64_t>(outputs[k].size()) != want)
            throw Error("output '" + sub.graph.tensor(sub.graph.outputs()[k]).name + "' has "
                + std::to_string(outputs[k].size()) + " values, its shape " + std::to_string(want));
    }
    {
        std::lock_guard lock(mutex_);
        for (std::size_t k = 0; k < outputs.size(); ++k) {
            values_[sub.outputs[k].value()] = std::move(outputs[k]);
            ready_[sub.outputs[k].value()] = generation_;
        }
        timings_[s] = { start, nowNs() - originNs };
    }
    wake_.notify_all();
}

void SegmentRunner::worker(std::uint32_t device, const SegmentExecutorFactory* factory)
{
    const auto& mine = segmentsOf_[device];
    {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return built_ == device; });
    }
    // Built here, one device at a time: the thread that runs an executor also made it.
    for (std::size_t s : mine) {
        {
            std::lock_guard lock(mutex_);
            if (error_)
                break;
        }
        try {
            executors_[s] = (*factory)(*subgraphs_[s], device);
            if (!executors_[s])
                throw Error("no executor was built");
        } catch (const std::exception& e) {
            std::lock_guard lock(mutex_);
            error_ = std::make_exception_ptr(Error(segmentLabel(s) + ": " + e.what()));
        }
    }
    {
        std::lock_guard lock(mutex_);
        ++built_;
    }
    wake_.notify_all();
    finished_.notify_all();

    std::uint32_t seen = 0;
    for (;;) {
        std::int64_t origin = 0;
        bool poison = false;
        {
            std::unique_lock lock(mutex_);
            wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
            if (stop_)
                break;
            seen = generation_;
            origin = originNs_;
            poison = poisonRun_;
        }
        if (poison)
            for (std::size_t s : mine)
                executors_[s]->poison();
        for (std::size_t s : mine) {
            {
                std::unique_lock lock(mutex_);
                wake_.wait(lock, [&] { return failed_ || inputsReady(s); });
                if (failed_)
                    break;
            }
            try {
                runSegment(s, origin);
            } catch (const std::exception& e) {
                {
                    std::lock_guard lock(mutex_);
                    if (!error_)
                        error_ = std::make_exception_ptr(Error(segmentLabel(s) + ": " + e.what()));
                    failed_ = true;
                }
                wake_.notify_all();
                break;
            }
        }
        {
            std::lock_guard lock(mutex_);
            if (--running_ == 0)
                finished_.notify_all();
        }
    }
    // Released on the thread that made them (a CUDA executor's device is this thread's).
    for (std::size_t s : mine)
        executors_[s].reset();
}

std::vector<std::vector<float>> SegmentRunner::run(const std::vector<std::vector<float>>& inputs)
{
    if (inputs.size() != graphInputs_.size())
        throw Error("segment runner: " + std::to_string(inputs.size()) + " inputs given, the graph has "
            + std::to_string(graphInputs_.size()));
    for (std::size_t k = 0; k < inputs.size(); ++k)
        if (static_cast<std::int64_t>(inputs[k].size()) != inputElements_[k])
            throw Error("segment runner: input " + std::to_string(k) + " has " + std::to_string(inputs[k].size())
                + " values, its shape " + std::to_string(inputElements_[k]));
    {
        std::lock_guard lock(mutex_);
        ++generation_;
        poisonRun_ = poisonNext_;
        poisonNext_ = false;
        failed_ = false;
        error_ = nullptr;
        for (std::size_t k = 0; k < inputs.size(); ++k) {
            values_[graphInputs_[k].value()] = inputs[k];
            ready_[graphInputs_[k].value()] = generation_;
        }
        std::fill(timings_.begin(), timings_.end(), SegmentTiming {});
        running_ = static_cast<int>(threads_.size());
        originNs_ = nowNs();
    }
    wake_.notify_all();
    std::unique_lock lock(mutex_);
    finished_.wait(lock, [&] { return running_ == 0; });
    if (error_)
        std::rethrow_exception(error_);
    std::vector<std::vector<float>> outputs;
    for (TensorId t : graphOutputs_)
        outputs.push_back(values_[t.value()]);
    return outputs;
}

} // namespace opsched::exec
