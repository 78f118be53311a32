#include "sim/simulator.h"

#include "sim/kernel_model.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace opsched {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct SimKernel {
    KernelDesc desc;
    std::uint32_t launch = 0;
    std::uint32_t part = 0;
    std::uint32_t stream = 0;
    double issue = 0; // when the host has issued it (in a CUDA graph: when the graph starts)
    double solo = 0; // seconds alone on the device
    double lanes = 1; // lanes it asks for
    double granted = 0; // lanes it holds while it runs
    double computeSeconds = 0, memorySeconds = 0; // its arithmetic and its traffic on the whole device
    double remaining = 1; // fraction of its work left
    double start = kInf;
    double end = kInf;
    std::uint32_t afterView = ~0U; // a kernel-less launch just before it on its stream, if any
};

// Simulates the launches [first, last) of a plan, starting on an idle device at `begin`.
// Launches before `first` are complete. Returns the time the last kernel ends.
//
// Kernels are numbered in submission order: the plan's launch order, in which the host issues
// them and in which they are captured into a CUDA graph. Submission order decides two things a
// GPU does in order:
// - Launching. The device launches one kernel at a time (deviceLaunchSeconds each), and only a
//   kernel whose stream predecessor and waited-for launches have ended. When several can go, the
//   earliest submitted goes first; each starts a launch latency after its launch. So after a join
//   the branches start one after another, and a kernel late in the order starts late although it
//   was ready.
// - Lanes. Kernels are not preempted: a running kernel keeps the lanes it was granted, and lanes
//   that free up go to the kernels waiting for them in submission order (a partly granted kernel
//   takes more before a later one starts). A kernel that fills the GPU blocks the ones submitted
//   after it; one submitted late waits for lanes the others hold.
class SegmentSimulator {
public:
    SegmentSimulator(const Graph& graph, const Plan& plan, const SimDevice& device, const SimOptions& options,
        const KernelTable* table)
        : graph_(graph)
        , plan_(plan)
        , device_(device)
        , options_(options)
        , table_(table)
    {
    }

    // The host's calls for the last run(): one launch call per kernel, in submission order, then
    // a wait until the segment's last kernel ends (`segmentEnd`). Nothing in a CUDA graph: its
    // one launch and the final wait are the caller's.
    void appendHostCalls(std::vector<HostCall>& out, double segmentEnd) const
    {
        if (options_.cudaGraph)
            return;
        double lastIssue = -kInf;
        for (const auto& k : kernels_) {
            out.push_back({ k.issue - device_.hostLaunchSeconds, k.issue, HostCallKind::Launch, k.launch });
            lastIssue = std::max(lastIssue, k.issue);
        }
        if (std::isfinite(lastIssue) && segmentEnd > lastIssue)
            out.push_back({ lastIssue, segmentEnd, HostCallKind::Wait, ~0U });
    }

    // Streams the last run() put kernels on: the barrier after it joins that many.
    std::uint32_t streamsWithKernels() const
    {
        std::vector<bool> used(plan_.streams, false);
        std::uint32_t count = 0;
        for (const auto& k : kernels_)
            if (!used[k.stream]) {
                used[k.stream] = true;
                ++count;
            }
        return count;
    }

    // spans and warps may be null when only the latency is wanted (the IOS search).
    double run(std::uint32_t first, std::uint32_t last, double begin, std::vector<KernelSpan>* spans,
        std::vector<WarpSample>* warps, std::vector<double>& launchEnd)
    {
        buildKernels(first, last, begin);
        // Each stream's kernels in order: its next kernel to launch, and the one after each.
        std::vector<std::size_t> next(plan_.streams, kNoKernel), tail(plan_.streams, kNoKernel);
        nextOnStream_.assign(kernels_.size(), kNoKernel);
        for (std::size_t k = 0; k < kernels_.size(); ++k) {
            const std::uint32_t s = kernels_[k].stream;
            (tail[s] == kNoKernel ? next[s] : nextOnStream_[tail[s]]) = k;
            tail[s] = k;
        }
        std::vector<double> streamFree(plan_.streams, begin);
        std::vector<char> streamBusy(plan_.streams, 0); // a kernel launched and not yet ended
        std::vector<std::pair<double, std::size_t>> launched; // (time it reaches the device, kernel)
        std::vector<std::size_t> waiting; // reached the device, no lanes yet
        std::vector<std::size_t> running; // holding lanes
        std::vector<std::uint32_t> partsLeft(last - first, 0);
        for (const auto& k : kernels_)
            ++partsLeft[k.launch - first];
        std::vector<double> rates;

        double now = begin;
        std::size_t done = 0;
        resolveViews(launchEnd);
        while (done < kernels_.size()) {
            double nextEvent = launchKernels(next, streamFree, streamBusy, launchEnd, launched, now);
            for (std::size_t i = 0; i < launched.size();) {
                if (launched[i].first <= now + 1e-15) {
                    const std::size_t id = launched[i].second;
                    waiting.insert(std::upper_bound(waiting.begin(), waiting.end(), id), id);
                    launched.erase(launched.begin() + static_cast<std::ptrdiff_t>(i));
                } else {
                    nextEvent = std::min(nextEvent, launched[i].first);
                    ++i;
                }
            }
            grantLanes(waiting, running, now);

            shareDevice(running, rates);
            if (warps)
                recordWarps(*warps, running, now);

            double nextFinish = kInf;
            for (std::size_t i = 0; i < running.size(); ++i) {
                const SimKernel& k = kernels_[running[i]];
                nextFinish = std::min(nextFinish, now + k.remaining * k.solo / rates[i]);
            }
            const double t = std::min(nextFinish, nextEvent);
            if (!std::isfinite(t))
                break; // nothing can progress: the plan is inconsistent (validate() catches this)
            for (std::size_t i = 0; i < running.size(); ++i) {
                SimKernel& k = kernels_[running[i]];
                k.remaining -= (t - now) * rates[i] / k.solo;
            }
            now = t;
            // Retire kernels that are (numerically) done.
            for (std::size_t i = 0; i < running.size();) {
                SimKernel& k = kernels_[running[i]];
                if (k.remaining > 1e-9) {
                    ++i;
                    continue;
                }
                k.remaining = 0;
                k.end = now;
                streamFree[k.stream] = now;
                streamBusy[k.stream] = 0;
                lanesInUse_ -= k.granted;
                if (--partsLeft[k.launch - first] == 0)
                    launchEnd[k.launch] = now;
                if (spans)
                    spans->push_back({ k.launch, k.part, StreamId(k.stream), k.start, k.end, k.desc.warps });
                running.erase(running.begin() + static_cast<std::ptrdiff_t>(i));
                ++done;
            }
            if (running.empty())
                lanesInUse_ = 0; // no drift from rounding
            resolveViews(launchEnd);
        }
        // The segment ends with the device idle: the barrier's gap has no active warps.
        if (warps)
            recordWarps(*warps, {}, now);
        // Launches with no kernel (pure views) end when they are issued.
        for (std::uint32_t l = first; l < last; ++l)
            if (partsLeft[l - first] == 0 && !std::isfinite(launchEnd[l]))
                launchEnd[l] = begin;
        return now;
    }

private:
    static constexpr std::size_t kNoKernel = std::numeric_limits<std::size_t>::max();

    // Launches what can be launched at `now`, one kernel at a time, earliest submitted first, and
    // returns when the next launch may happen (infinity: not before a kernel ends).
    double launchKernels(std::vector<std::size_t>& next, const std::vector<double>& streamFree,
        std::vector<char>& streamBusy, const std::vector<double>& launchEnd,
        std::vector<std::pair<double, std::size_t>>& launched, double now)
    {
        for (;;) {
            std::size_t pick = kNoKernel;
            double soonest = kInf;
            for (std::uint32_t s = 0; s < plan_.streams; ++s) {
                if (streamBusy[s] || next[s] == kNoKernel)
                    continue;
                const std::size_t id = next[s];
                const double at = launchableAt(kernels_[id], streamFree[s], launchEnd);
                if (at <= now + 1e-15)
                    pick = std::min(pick, id);
                else
                    soonest = std::min(soonest, at);
            }
            if (pick == kNoKernel)
                return soonest;
            if (launcherFree_ > now + 1e-15)
                return launcherFree_;
            SimKernel& k = kernels_[pick];
            launcherFree_ = now + device_.deviceLaunchSeconds;
            streamBusy[k.stream] = 1;
            next[k.stream] = nextOnStream_[pick];
            // It reaches the device a launch latency later, and an event wait after what it waits for.
            double arrives = now + gap();
            if (k.part == 0)
                for (auto w : plan_.launches[k.launch].waitFor)
                    arrives = std::max(arrives, launchEnd[w] + device_.eventWaitSeconds);
            launched.emplace_back(arrives, pick);
        }
    }

    void recordWarps(std::vector<WarpSample>& warps, const std::vector<std::size_t>& running, double now) const
    {
        const auto cap = static_cast<double>(device_.maxResidentWarps());
        double active = 0;
        for (auto r : running) // a partly granted kernel has that part of its warps resident
            active += std::min(kernels_[r].desc.warps, cap) * kernels_[r].granted / kernels_[r].lanes;
        active = std::min(active, cap);
        if (!warps.empty() && warps.back().activeWarps == active)
            return;
        if (!warps.empty() && warps.back().time == now)
            warps.back().activeWarps = active;
        else
            warps.push_back({ now, active });
    }

    void buildKernels(std::uint32_t first, std::uint32_t last, double begin)
    {
        kernels_.clear();
        views_.clear();
        viewLaunch_.assign(last, false);
        std::vector<std::uint32_t> lastOnStream(plan_.streams, ~0U);
        double host = begin;
        for (std::uint32_t l = first; l < last; ++l) {
            const Launch& launch = plan_.launches[l];
            const std::uint32_t prev = lastOnStream[launch.stream.value()];
            lastOnStream[launch.stream.value()] = l;
            std::vector<KernelDesc> computed;
            if (!table_ || launch.merged())
                computed = kernelsOf(graph_, launch.ops);
            const auto& descs = (!table_ || launch.merged()) ? computed : table_->of(launch.ops.front());
            for (std::uint32_t p = 0; p < descs.size(); ++p) {
                SimKernel k;
                k.desc = descs[p];
                k.launch = l;
                k.part = p;
                k.stream = launch.stream.value();
                if (!options_.cudaGraph)
                    host += device_.hostLaunchSeconds;
                k.issue = host;
                k.solo = std::max(soloSeconds(k.desc, device_), 1e-9);
                k.lanes = demandedLanes(k.desc, device_);
                k.computeSeconds = k.desc.flops / (device_.peakFlops * device_.computeEfficiency);
                k.memorySeconds = k.desc.bytes / (device_.memoryBandwidth * device_.memoryEfficiency);
                if (p == 0 && prev != ~0U && isView(prev))
                    k.afterView = prev;
                kernels_.push_back(k);
            }
            if (descs.empty()) {
                views_.push_back({ l, prev, host });
                viewLaunch_[l] = true;
            }
        }
    }

    bool isView(std::uint32_t l) const { return l < viewLaunch_.size() && viewLaunch_[l]; }

    // A launch without kernels (a view) ends as soon as its stream predecessor and its waits have.
    void resolveViews(std::vector<double>& launchEnd) const
    {
        for (const View& v : views_) {
            if (std::isfinite(launchEnd[v.launch]))
                continue;
            double end = v.issue;
            if (v.prev != ~0U) {
                if (!std::isfinite(launchEnd[v.prev]))
                    continue;
                end = std::max(end, launchEnd[v.prev]);
            }
            bool ready = true;
            for (auto w : plan_.launches[v.launch].waitFor) {
                ready = ready && std::isfinite(launchEnd[w]);
                end = std::max(end, launchEnd[w] + device_.eventWaitSeconds);
            }
            if (ready)
                launchEnd[v.launch] = end;
        }
    }

    double gap() const
    {
        return options_.cudaGraph ? 0.4 * device_.launchLatencySeconds : device_.launchLatencySeconds;
    }

    // When the kernel may be launched: issued, its stream predecessor (and a view before it) ended,
    // and for its first part every launch it waits for ended. Infinity while one has not.
    double launchableAt(const SimKernel& k, double streamFree, const std::vector<double>& launchEnd) const
    {
        double at = std::max(k.issue, streamFree);
        if (k.afterView != ~0U)
            at = std::max(at, launchEnd[k.afterView]);
        if (k.part == 0)
            for (auto w : plan_.launches[k.launch].waitFor)
                at = std::max(at, launchEnd[w]);
        return at;
    }

    // Lanes go to the kernels waiting for them in submission order; a running kernel keeps what it
    // was granted and takes more, before later kernels start, while it has less than it asks for.
    void grantLanes(std::vector<std::size_t>& waiting, std::vector<std::size_t>& running, double now)
    {
        double free = device_.lanes() - lanesInUse_;
        std::size_t r = 0, w = 0;
        while (free > 1e-9 && (r < running.size() || w < waiting.size())) {
            if (w >= waiting.size() || (r < running.size() && running[r] < waiting[w])) {
                SimKernel& k = kernels_[running[r++]];
                const double more = std::min(k.lanes - k.granted, free);
                if (more > 0) {
                    k.granted += more;
                    lanesInUse_ += more;
                    free -= more;
                }
                continue;
            }
            if (free < 1.0 - 1e-9)
                break; // a kernel starts with a lane at least
            SimKernel& k = kernels_[waiting[w++]];
            k.granted = std::min(k.lanes, free);
            k.start = now;
            lanesInUse_ += k.granted;
            free -= k.granted;
        }
        // The started ones (a prefix of waiting) join the running, kept in submission order.
        for (std::size_t i = 0; i < w; ++i)
            running.insert(std::upper_bound(running.begin(), running.end(), waiting[i]), waiting[i]);
        waiting.erase(waiting.begin(), waiting.begin() + static_cast<std::ptrdiff_t>(w));
    }

    // Seconds the kernel takes alone on `lanes` of the device's lanes (soloSeconds on its own).
    double secondsOn(const SimKernel& k, double lanes) const
    {
        const double share = lanes / device_.lanes();
        return std::max(k.computeSeconds / share, k.memorySeconds / std::min(1.0, 2.0 * share));
    }

    // Rate of progress (1 = as fast as alone) for each running kernel.
    void shareDevice(const std::vector<std::size_t>& running, std::vector<double>& rates) const
    {
        rates.assign(running.size(), 1.0);
        // A kernel granted fewer lanes than it asks for runs slower.
        double weight = 0, bytes = 0;
        for (std::size_t i = 0; i < running.size(); ++i) {
            const SimKernel& k = kernels_[running[i]];
            if (k.granted < k.lanes)
                rates[i] = k.solo / std::max(secondsOn(k, k.granted), k.solo);
            weight += k.granted / k.lanes;
            bytes += k.desc.bytes;
        }
        if (running.size() <= 1)
            return;
        // Working sets beyond the L2 make concurrent kernels evict each other's data. Each other
        // kernel slows the rest, in proportion to the part of its lanes it holds.
        const double spill = std::clamp(bytes / device_.l2Bytes - 1.0, 0.0, 1.0);
        const double extra = std::max(0.0, weight - 1.0);
        const double interference = 1.0 / (1.0 + extra * (device_.concurrencyPenalty + device_.contention * spill));
        double bandwidth = 0;
        for (std::size_t i = 0; i < running.size(); ++i) {
            const SimKernel& k = kernels_[running[i]];
            rates[i] *= interference;
            bandwidth += rates[i] * k.desc.bytes / k.solo;
        }
        const double limit = device_.memoryBandwidth * device_.memoryEfficiency;
        if (bandwidth > limit)
            for (auto& r : rates)
                r *= limit / bandwidth;
    }

    const Graph& graph_;
    const Plan& plan_;
    const SimDevice& device_;
    const SimOptions& options_;
    const KernelTable* table_;
    std::vector<SimKernel> kernels_;
    struct View {
        std::uint32_t launch = 0;
        std::uint32_t prev = ~0U; // previous launch on its stream in this segment
        double issue = 0;
    };
    std::vector<View> views_;
    std::vector<bool> viewLaunch_; // by launch index: launches without kernels
    std::vector<std::size_t> nextOnStream_; // by kernel: the next kernel on its stream
    double lanesInUse_ = 0; // lanes granted to running kernels
    double launcherFree_ = 0; // when the device can launch the next kernel
};

} // namespace

const char* toString(HostCallKind kind)
{
    switch (kind) {
    case HostCallKind::Launch:
        return "cudaLaunchKernel";
    case HostCallKind::GraphLaunch:
        return "cudaGraphLaunch";
    case HostCallKind::Wait:
        return "wait for stage";
    case HostCallKind::Barrier:
        return "barrier";
    case HostCallKind::Other:
        return "CUDA API call";
    }
    return "host";
}

HostCallKind hostCallKind(std::string_view name)
{
    if (name.find("GraphLaunch") != std::string_view::npos)
        return HostCallKind::GraphLaunch;
    if (name.find("Launch") != std::string_view::npos)
        return HostCallKind::Launch;
    if (name == "barrier")
        return HostCallKind::Barrier;
    if (name.rfind("wait for", 0) == 0 || name.find("Synchronize") != std::string_view::npos)
        return HostCallKind::Wait;
    return HostCallKind::Other;
}

KernelTable::KernelTable(const Graph& graph)
{
    perOp_.reserve(graph.opCount());
    for (const auto& op : graph.ops())
        perOp_.push_back(kernelsOf(graph, { op.id }));
}

namespace {

// A stage boundary joins the streams of the stage that ends: a base cost plus a share per extra
// stream (each records an event the next stage waits for).
double barrierSeconds(const SimDevice& device, const SimOptions& options, std::uint32_t streams)
{
    const double extra = streams > 1 ? streams - 1 : 0;
    // Inside a CUDA graph a stage boundary is only dependency edges: one event wait per stream.
    if (options.cudaGraph)
        return device.eventWaitSeconds * extra;
    return device.barrierSeconds + device.streamSyncSeconds * extra;
}

// Runs the plan segment by segment (a barrier leaves the device idle) and returns the latency.
double runSegments(const Graph& graph, const Plan& plan, const SimDevice& device, const SimOptions& options,
    const KernelTable* kernels, std::vector<double>& launchEnd, std::vector<KernelSpan>* spans,
    std::vector<WarpSample>* warps, std::vector<HostCall>* host = nullptr)
{
    const auto m = static_cast<std::uint32_t>(plan.launches.size());
    std::vector<std::uint32_t> cuts = plan.barriers;
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    cuts.push_back(m);

    launchEnd.assign(m, kInf);
    SegmentSimulator sim(graph, plan, device, options, kernels);
    double t = 0;
    std::uint32_t first = 0;
    std::uint32_t joined = 0; // streams the previous segment used
    for (auto cut : cuts) {
        if (cut <= first)
            continue;
        if (first > 0 && joined > 0) {
            const double barrier = barrierSeconds(device, options, joined);
            if (host && !options.cudaGraph)
                host->push_back({ t, t + barrier, HostCallKind::Barrier, ~0U });
            t += barrier;
        }
        const double begin = t;
        t = sim.run(first, cut, t, spans, warps, launchEnd);
        if (host)
            sim.appendHostCalls(*host, std::max(t, begin));
        joined = sim.streamsWithKernels();
        first = cut;
    }
    // The end of a run joins every stream once more, so the host can read the outputs.
    const double end = t + (joined > 0 ? barrierSeconds(device, options, joined) : 0.0);
    if (host && options.cudaGraph && end > 0) {
        // One call launches the graph; the host then waits for all of it.
        const double launched = std::min(device.hostLaunchSeconds, end);
        host->push_back({ 0.0, launched, HostCallKind::GraphLaunch, ~0U });
        host->push_back({ launched, end, HostCallKind::Wait, ~0U });
    } else if (host && end > t) {
        host->push_back({ t, end, HostCallKind::Barrier, ~0U });
    }
    return end;
}

} // namespace

SimResult simulate(const Graph& graph, const Plan& plan, const SimDevice& device, const SimOptions& options,
    const KernelTable* kernels)
{
    SimResult result;
    const auto m = static_cast<std::uint32_t>(plan.launches.size());
    std::vector<double> launchEnd;
    const double t
        = runSegments(graph, plan, device, options, kernels, launchEnd, &result.kernels, &result.warps, &result.host);
    result.latency = t;
    std::stable_sort(
        result.host.begin(), result.host.end(), [](const HostCall& a, const HostCall& b) { return a.start < b.start; });
    // Every segment ends with a sample of 0 warps; one more marks the end of the run (after the
    // final join), so the curve spans the latency.
    if (result.warps.empty() || result.warps.back().time < t)
        result.warps.push_back({ t, 0.0 });

    result.opStart.assign(graph.opCount(), 0.0);
    result.opEnd.assign(graph.opCount(), 0.0);
    std::vector<double> launchStart(m, kInf);
    for (const auto& k : result.kernels)
        launchStart[k.launch] = std::min(launchStart[k.launch], k.start);
    for (std::uint32_t l = 0; l < m; ++l)
        for (auto id : plan.launches[l].ops) {
            result.opStart[id.value()] = std::isfinite(launchStart[l]) ? launchStart[l] : launchEnd[l];
            result.opEnd[id.value()] = launchEnd[l];
        }
    std::sort(result.kernels.begin(), result.kernels.end(),
        [](const KernelSpan& a, const KernelSpan& b) { return a.start < b.start; });

    // Averaged over the time some kernel runs (the union of their intervals), as the CUPTI path
    // averages measured samples: warps are only ever active while a kernel runs.
    double area = 0;
    for (std::size_t i = 0; i + 1 < result.warps.size(); ++i)
        area += result.warps[i].activeWarps * (result.warps[i + 1].time - result.warps[i].time);
    double busy = 0, coveredTo = 0;
    for (const auto& k : result.kernels) { // sorted by start
        const double from = std::max(k.start, coveredTo);
        if (k.end > from)
            busy += k.end - from;
        coveredTo = std::max(coveredTo, k.end);
    }
    result.averageActiveWarps = busy > 0 ? area / busy : 0.0;
    return result;
}

double simulateStage(const Graph& graph, const Stage& stage, const SimDevice& device, const SimOptions& options,
    const KernelTable* kernels)
{
    const Plan plan = compileSchedule(graph, Schedule { { stage } });
    std::vector<double> launchEnd;
    return runSegments(graph, plan, device, options, kernels, launchEnd, nullptr, nullptr);
}

} // namespace opsched
