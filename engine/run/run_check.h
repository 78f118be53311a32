// `run --check` beyond ONNX test data: the single-device reference a mapped run is checked against
// (exec/reference_outputs.h), the documented fault injection (--inject-fault) that shows the
// check catches a wrong answer, and the failure message naming each differing output's worst
// element.
#pragma once

#include "exec/output_check.h"
#include "exec/reference_outputs.h"
#include "graph/graph.h"
#include "import/tensor_proto_io.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace opsched::engine {

// --inject-fault SPEC (docs/cli.md, for testing the check): the run computes something other than
// its reference, so --check must fail; the reference itself is left alone. The graph faults stand
// for kernel bugs of a known size; skip-waits stands for a missing synchronisation.
struct InjectedFault {
    std::string spec; // as given; empty: no fault
    std::uint64_t inputSeed = 0; // input-seed=N: the run's seeded inputs drawn with seed N
    std::string weightOp; // weight=OP[*F]: OP's first weight tensor scaled by weightScale
    double weightScale = 0; // F, kWeightFault when not given
    bool geluTanh = false; // gelu=tanh: every erf GELU computed with the tanh approximation
    bool unbiasedNorm = false; // layernorm=unbiased: every layer norm's variance divided by n - 1
    bool skipWaits = false; // skip-waits: partitions and segments start without waiting for others
};
inline constexpr double kWeightFault = 1.05;

// "" when SPEC is well formed (a CLI11 check: a malformed one is a usage error), else why not.
std::string faultSpecProblem(const std::string& spec);
InjectedFault parseFault(const std::string& spec);

// A copy of `graph` with the fault's graph change (a weight scaled, GELUs approximated, layer
// norms' variance unbiased), nothing for the other faults. Throws Error naming the op when there
// is no such op or it has no weight, and when the graph has nothing the fault changes.
std::optional<Graph> graphWithFault(const Graph& graph, const InjectedFault& fault);

// The warm-up's inputs under --check: each input's values in reverse order. The checked run then
// follows a run on other data and a poisoned arena, so a value it reads before it is written
// (a missing wait) cannot pass as the last run's; reversed values stay valid ones (token ids in
// their table, masks 0 and 1).
std::vector<std::vector<float>> warmUpInputs(const std::vector<std::vector<float>>& inputs);

// The single-device run's outputs, shaped like the graph's outputs (as test data would hold them).
std::vector<TensorData> singleDeviceReference(const Graph& graph, const std::vector<std::vector<float>>& inputs);

// "rtol 0.001, atol 0.0001 + 0.0001 x max|ref|" (the scaled term only when set).
std::string toleranceText(const Tolerance& tolerance);

// "--check: K of M outputs differ from the reference REFERENCE beyond TOLERANCE; worst: ..." with
// each failing output's worst element (exec/output_check.h's describeWorst).
std::string checkFailureMessage(
    const std::vector<OutputComparison>& checks, const std::string& reference, const Tolerance& tolerance);

} // namespace opsched::engine
