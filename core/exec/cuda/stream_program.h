// The stream program of a plan: what the host issues on the CUDA streams, in order. One CUDA
// stream per plan stream; an event is recorded after a launch only when a launch on another
// stream waits for it (Nimble's rule: synchronise only across streams); a barrier is a join into
// stream 0 followed by a fork out of it, never a device synchronisation. The program starts with
// a fork out of stream 0 and ends with a join into it, which is exactly what stream capture into
// one CUDA graph needs (every stream forked from the origin stream and joined back).
// Pure host logic: built and tested without a GPU.
#pragma once

#include "plan/plan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace opsched::gpu {

enum class StreamOpKind : std::uint8_t {
    Launch, // run plan launch `index` on `stream`
    Record, // record event `index` on `stream`
    Wait, // make `stream` wait for event `index`
};

struct StreamOp {
    StreamOpKind kind = StreamOpKind::Launch;
    std::uint32_t stream = 0;
    std::uint32_t index = 0;
    friend bool operator==(const StreamOp&, const StreamOp&) = default;
};

struct StreamProgram {
    std::uint32_t streams = 1; // CUDA streams, stream 0 being the origin (the one captured)
    std::uint32_t events = 0; // each recorded once
    std::vector<StreamOp> ops;

    std::size_t count(StreamOpKind kind) const;
};

// The program for a plan that validate() accepts for its graph (throws Error otherwise).
// `dependencyWaits` false is fault injection (run --inject-fault skip-waits): a launch does not
// wait for the launches of other streams it depends on; forks and joins stay, so the program
// still captures into one graph, but consumers may run before their producers.
StreamProgram buildStreamProgram(const Graph& graph, const Plan& plan, bool dependencyWaits = true);

// The launches guaranteed to finish before each launch starts when the program runs as CUDA
// streams and events do (stream order, event edges), computed from the program alone so tests can
// compare it with what the plan promises.
std::vector<DynamicBitset> programHappensBefore(const StreamProgram& program, std::size_t launches);

// Broken rules, empty when sound: every launch issued once on its plan stream; events recorded
// once before any wait and waited on other streams only; every stream used is forked from stream 0
// before its first launch and joined back into it at the end.
std::vector<std::string> programProblems(const StreamProgram& program, const Plan& plan);

} // namespace opsched::gpu
