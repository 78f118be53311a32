// A schedule's timeline in the form the timeline and warps views draw: spans per stream, stage
// bands, and the active-warps curve. Built from core results (a simulated run here, stored runs
// in stored_run.h), so the views never compute anything themselves.
#pragma once

#include "engine/timeline/timeline_rows.h"

#include "graph/graph.h"
#include "plan/plan.h"
#include "sim/simulator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace opsched {

// What a row holds: ops (span.id = op id) or, for runs with kernel data, the kernels of the stream
// above it (span.id = index into TimelineData::kernels), or for mappings the results arriving at
// the device above it over a link (span.id = index into TimelineData::transfers).
enum class TimelineRowKind : std::uint8_t { Ops, Kernels, Transfers };

struct TimelineKernel {
    std::string name; // e.g. "Conv/k1" or a CUPTI kernel name
    std::uint32_t op = 0; // the op it belongs to (selecting the kernel selects the op)
    double warps = 0; // warps its grid asks for; 0 when unknown
    std::string launch; // "grid 8x1x1, block 256x1x1" when known
};

// A result crossing devices in a mapping: from the producer's end to its arrival.
struct TimelineTransfer {
    std::uint32_t fromOp = 0, toOp = 0;
    std::string fromDevice, toDevice;
    double bytes = 0;
};

// A cross-stream dependency drawn as an arrow: the end of the op waited for on one stream to the
// start of the op that waits on another. A wait is one of the plan's event waits; a join is a
// stage boundary (a barrier), drawn from the op that ended last before it to the first op of each
// other stream after it: what that stream actually waited for.
struct TimelineFlow {
    double from = 0; // seconds
    double to = 0;
    std::uint32_t fromRow = 0, toRow = 0; // op rows
    bool join = false;
};

// The flows of `plan` (core/plan/plan_flows.h: waits looked through launches that ran no kernel,
// barrier joins) given each launch's start, end (start > end: no kernel ran) and op row (-1:
// unknown), sorted by `from`.
std::vector<TimelineFlow> timelineFlows(const Plan& plan, const std::vector<double>& start,
    const std::vector<double>& end, const std::vector<std::int64_t>& row);

struct TimelineData {
    TimelineRows rows; // one row per stream (and its kernel row); see rowKinds
    std::vector<std::string> rowNames; // "stream 0", ...
    std::vector<TimelineRowKind> rowKinds; // per row; empty: every row holds ops
    std::vector<std::int64_t> rowStreams; // per row, the stream it belongs to; empty: unknown
    std::vector<TimelineKernel> kernels; // what kernel-row span ids refer to
    std::vector<TimelineTransfer> transfers; // what transfer-row span ids refer to
    std::vector<std::string> opLabels; // per op id "name\ntype", for runs not tied to the open model
    std::vector<std::pair<double, double>> stages; // [start, end) of each stage (from barriers)
    std::vector<WarpSample> warps;
    double maxWarps = 0; // the device's resident-warp limit, the chart's top
    double latency = 0;
    std::vector<TimelineFlow> flows; // event waits between streams, when the plan is known
    std::vector<std::uint32_t> criticalPath; // op ids of the chain that sets the latency, in time order
    std::size_t modelOps = 0; // the model's op count (some run no kernel); 0: unknown
    std::vector<HostCall> host; // the host thread's calls in time order; empty: unknown
    // A mapping's timeline: spans are drawn in their row's device colour (the DAG's colouring), not
    // by op kind; span colour classes stay op kinds, for the statistics by type.
    bool coloursByDevice = false;

    TimelineRowKind rowKind(std::size_t row) const
    {
        return row < rowKinds.size() ? rowKinds[row] : TimelineRowKind::Ops;
    }
    // Whether the run recorded (or simulated) kernels at all: a mapping predicted from per-op
    // costs has none, and its views say "n/a" rather than 0.
    bool hasKernelRows() const;
};

// Lays out stream rows the same way for every source (the simulator, stored runs): for each
// stream an op row and, under it, a thinner row with the stream's kernels.
class StreamRowsBuilder {
public:
    // `streams` in any order, repeats allowed; rows follow ascending stream id.
    StreamRowsBuilder(TimelineData& data, std::vector<std::int64_t> streams);

    std::size_t opRow(std::int64_t stream) const; // the stream must be one of those given
    void addOp(std::int64_t stream, double start, double end, std::uint32_t op, std::uint32_t colour);
    // Appends to data.kernels; the span's id is the kernel's index there.
    void addKernel(std::int64_t stream, double start, double end, std::uint32_t colour, TimelineKernel kernel);
    // Turns the row under each stream into its arriving transfers (named `name`); call before any
    // addKernel.
    void useTransferRows(const std::string& name);
    // Appends to data.transfers, on the row under `toStream`; the span's id is its index there.
    void addTransfer(std::int64_t toStream, double start, double end, std::uint32_t colour, TimelineTransfer transfer);

private:
    TimelineData& data_;
    std::vector<std::int64_t> streams_; // sorted, unique
};

struct OpPlacement {
    double start = 0, end = 0; // seconds
    std::int64_t stream = -1; // -1: unknown
    double duration() const { return end - start; }
    friend bool operator==(const OpPlacement&, const OpPlacement&) = default;
};

// Where each op ran in a timeline: its first op span (a merged launch gives each of its ops the
// launch's span); the stream from rowStreams, else the op row's position among op rows.
std::vector<std::optional<OpPlacement>> opPlacements(const TimelineData& data);

// Adds the flows (cross-stream waits) and the critical path of `plan` to a timeline built without
// it (a stored run of the open model), from where its ops' spans lie. Ops without a span are skipped.
void addPlanStructure(TimelineData& data, const Plan& plan);

// The ops of the chain of launches that sets the plan's latency, in order, given each launch's
// start and end (start > end: the launch ran no kernel).
std::vector<std::uint32_t> criticalPathOps(
    const Plan& plan, const std::vector<double>& start, const std::vector<double>& end);

// Op spans per stream (kernels of one launch merged into one span) and a kernel row under each
// stream with the simulator's kernel spans. Colour class = op kind.
TimelineData timelineFromSimulation(
    const Graph& graph, const Plan& plan, const SimResult& result, const SimDevice& device);

} // namespace opsched
