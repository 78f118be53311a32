// One direction of a recurrent layer (graph/layer.h's Recurrent) over its whole sequence in host
// code: per step the state times R^T, the gates' functions, the new state. The input projection
// of every step is computed before, by one matrix product for the whole sequence; what is left is
// the chain of small dependent products ONNX Runtime also runs as one kernel per layer, where an
// unrolled graph pays a launch for every gate of every step.
#pragma once

#include "graph/layer.h"

#include <cstdint>
#include <vector>

namespace opsched::cpu {

// Dense row-major data of one recurrent layer; null optional operands are absent (zero state).
struct RecurrentData {
    const float* projection = nullptr; // [T, B, gates x H] (or [B, T, ...] when batchFirst)
    const float* initialH = nullptr; // [B, H]
    const float* initialC = nullptr; // [B, H]
    const float* recurrence = nullptr; // R^T, [H, gates x H]
    const float* hiddenBias = nullptr; // R's bias of the hidden gate, [H] (GRU, linearBeforeReset)
    const float* peepholes = nullptr; // i, o, f, [3H] (LSTM)
    float* out = nullptr; // h of every step, [T, B, H] (or [B, T, H])
    std::int64_t steps = 0, batch = 0;
};

// Whether `fn` is one of the functions a recurrent layer can apply (ONNX's list for RNN, GRU, LSTM).
bool isRecurrentFunction(const Activation& fn);

// Runs the layer. `scratch` is resized as needed (gates and cell state between steps).
void runRecurrent(const Recurrent& r, const RecurrentData& d, std::vector<float>& scratch);

} // namespace opsched::cpu
