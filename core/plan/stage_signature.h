// Structural signatures of ops and stages: what a stage's cost depends on (layer parameters, input
// and output shapes, how its ops are wired), never op names or positions. Identical blocks (NASNet
// cells, repeated Inception modules) get identical signatures, so a cost cache keyed by them
// measures each distinct stage once.
#pragma once

#include "plan/schedule.h"

#include <string>
#include <vector>

namespace opsched {

// What an op's cost depends on, not its name or place: kind, input shapes, layers (kind,
// activation, output and weight shapes, conv geometry, work).
std::string opSignature(const Graph& graph, OpId op);

// SHA-256 over the strategy and, per group, its ops' signatures (as 128-bit digests) and how they are wired: an input
// produced earlier in the group by position, any other input numbered by first use in the stage
// (so groups reading one tensor differ from groups reading two).
class StageSignatures {
public:
    explicit StageSignatures(const Graph& graph);
    std::string operator()(const Stage& stage) const;
    // The digest of one op's signature (the key of an op timed alone).
    std::string op(OpId id) const;

private:
    const Graph& graph_;
    std::vector<std::string> ops_; // per op: the first 128 bits of SHA-256(opSignature), hex
};

} // namespace opsched
