#include "exec/cuda/stream_program.h"

#include "util/error.h"

#include <algorithm>

namespace opsched::gpu {

std::size_t StreamProgram::count(StreamOpKind kind) const
{
    return static_cast<std::size_t>(
        std::count_if(ops.begin(), ops.end(), [kind](const StreamOp& op) { return op.kind == kind; }));
}

namespace {

class ProgramWriter {
public:
    explicit ProgramWriter(StreamProgram& p)
        : p_(p)
    {
    }

    std::uint32_t record(std::uint32_t stream)
    {
        p_.ops.push_back({ StreamOpKind::Record, stream, p_.events });
        return p_.events++;
    }
    void wait(std::uint32_t stream, std::uint32_t event) { p_.ops.push_back({ StreamOpKind::Wait, stream, event }); }
    void launch(std::uint32_t stream, std::uint32_t index)
    {
        p_.ops.push_back({ StreamOpKind::Launch, stream, index });
    }

    // Every stream in `from` (but 0) hands its work to stream 0.
    void join(const std::vector<bool>& from)
    {
        for (std::uint32_t s = 1; s < from.size(); ++s)
            if (from[s])
                wait(0, record(s));
    }
    // Streams in `to` (but 0) start after what stream 0 has done so far.
    void fork(const std::vector<bool>& to)
    {
        if (std::none_of(to.begin() + 1, to.end(), [](bool b) { return b; }))
            return;
        const std::uint32_t e = record(0);
        for (std::uint32_t s = 1; s < to.size(); ++s)
            if (to[s])
                wait(s, e);
    }

private:
    StreamProgram& p_;
};

} // namespace

StreamProgram buildStreamProgram(const Graph& graph, const Plan& plan, bool dependencyWaits)
{
    if (auto problems = validate(graph, plan); !problems.empty())
        throw Error("the plan does not fit " + graph.name() + ": " + problems.front());
    const auto m = static_cast<std::uint32_t>(plan.launches.size());
    StreamProgram program;
    program.streams = plan.streams;
    ProgramWriter out(program);

    // Segments between barriers; a stream takes part in the forks and joins of segments it works in.
    std::vector<std::uint32_t> cuts = plan.barriers;
    std::sort(cuts.begin(), cuts.end());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    cuts.push_back(m);

    // Launches some other launch waits for get an event right after them.
    std::vector<bool> waitedOn(m, false);
    for (const auto& l : plan.launches)
        for (auto w : l.waitFor)
            waitedOn[w] = true;
    constexpr std::uint32_t kNoEvent = ~0U;
    std::vector<std::uint32_t> eventAfter(m, kNoEvent);

    std::uint32_t begin = 0;
    for (std::uint32_t cut : cuts) {
        std::vector<bool> active(plan.streams, false);
        for (std::uint32_t i = begin; i < cut; ++i)
            active[plan.launches[i].stream.value()] = true;
        out.fork(active);
        for (std::uint32_t i = begin; i < cut; ++i) {
            const Launch& l = plan.launches[i];
            const std::uint32_t s = l.stream.value();
            std::vector<std::uint32_t> waits;
            for (auto w : l.waitFor)
                if (w >= begin && dependencyWaits) // earlier segments are ordered by the barrier already
                    waits.push_back(w);
            std::sort(waits.begin(), waits.end());
            waits.erase(std::unique(waits.begin(), waits.end()), waits.end());
            for (auto w : waits)
                out.wait(s, eventAfter[w]);
            out.launch(s, i);
            if (waitedOn[i])
                eventAfter[i] = out.record(s);
        }
        out.join(active);
        begin = cut;
    }
    return program;
}

std::vector<DynamicBitset> programHappensBefore(const StreamProgram& program, std::size_t launches)
{
    std::vector<DynamicBitset> done(
        program.streams, DynamicBitset(launches)); // per stream: finished before its next op
    std::vector<DynamicBitset> event(program.events, DynamicBitset(launches));
    std::vector<DynamicBitset> before(launches, DynamicBitset(launches));
    for (const auto& op : program.ops) {
        if (op.stream >= program.streams)
            continue;
        DynamicBitset& d = done[op.stream];
        switch (op.kind) {
        case StreamOpKind::Launch:
            if (op.index < launches) {
                before[op.index] = d;
                d.set(op.index);
            }
            break;
        case StreamOpKind::Record:
            if (op.index < program.events)
                event[op.index] = d;
            break;
        case StreamOpKind::Wait:
            if (op.index < program.events)
                d |= event[op.index];
            break;
        }
    }
    return before;
}

std::vector<std::string> programProblems(const StreamProgram& program, const Plan& plan)
{
    std::vector<std::string> problems;
    const std::size_t m = plan.launches.size();
    std::vector<int> issued(m, 0);
    std::vector<int> recordStream(program.events, -1);
    std::vector<bool> forked(program.streams, false);
    if (program.streams > 0)
        forked[0] = true;
    for (std::size_t k = 0; k < program.ops.size(); ++k) {
        const StreamOp& op = program.ops[k];
        const std::string where = "step " + std::to_string(k);
        if (op.stream >= program.streams) {
            problems.push_back(
                where + " uses stream " + std::to_string(op.stream) + " of " + std::to_string(program.streams));
            continue;
        }
        switch (op.kind) {
        case StreamOpKind::Launch:
            if (op.index >= m) {
                problems.push_back(where + " launches " + std::to_string(op.index) + ", which the plan lacks");
                break;
            }
            ++issued[op.index];
            if (plan.launches[op.index].stream.value() != op.stream)
                problems.push_back(where + " issues launch " + std::to_string(op.index) + " on the wrong stream");
            if (!forked[op.stream])
                problems.push_back(
                    where + ": stream " + std::to_string(op.stream) + " works before it is forked from stream 0");
            break;
        case StreamOpKind::Record:
            if (op.index >= program.events || recordStream[op.index] >= 0)
                problems.push_back(where + " records event " + std::to_string(op.index) + " twice or out of range");
            else
                recordStream[op.index] = static_cast<int>(op.stream);
            break;
        case StreamOpKind::Wait:
            if (op.index >= program.events || recordStream[op.index] < 0) {
                problems.push_back(where + " waits for event " + std::to_string(op.index) + " before it is recorded");
                break;
            }
            if (recordStream[op.index] == static_cast<int>(op.stream))
                problems.push_back(where + " waits on its own stream for event " + std::to_string(op.index));
            if (recordStream[op.index] == 0)
                forked[op.stream] = true;
            break;
        }
    }
    for (std::size_t i = 0; i < m; ++i)
        if (issued[i] != 1)
            problems.push_back("launch " + std::to_string(i) + " is issued " + std::to_string(issued[i]) + " times");
    // Joined at the end: stream 0 has everything behind it.
    if (program.streams > 0) {
        std::vector<DynamicBitset> done(program.streams, DynamicBitset(m));
        std::vector<DynamicBitset> event(program.events, DynamicBitset(m));
        for (const auto& op : program.ops) {
            if (op.stream >= program.streams)
                continue;
            if (op.kind == StreamOpKind::Launch && op.index < m)
                done[op.stream].set(op.index);
            else if (op.kind == StreamOpKind::Record && op.index < program.events)
                event[op.index] = done[op.stream];
            else if (op.kind == StreamOpKind::Wait && op.index < program.events)
                done[op.stream] |= event[op.index];
        }
        if (done[0].count() != m)
            problems.push_back("the program ends with " + std::to_string(m - done[0].count())
                + " launches not joined back into stream 0");
    }
    return problems;
}

} // namespace opsched::gpu
