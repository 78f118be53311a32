// CUDA kernels for one step of a recurrent layer (graph/layer.h's Recurrent): a thread per state
// element (batch row, hidden unit) takes its gates' dot products with the previous state, applies
// the functions and writes the new state into the step's rows of the output. One launch per step
// (two for a GRU whose reset gate multiplies the state before its product), captured like any
// other launch; the chain's length is the sequence's. Launchers as in cuda_kernels.h.
#pragma once

#include "exec/cuda/cuda_kernels.h"

#include <cstdint>

namespace opsched::gpu::kernels {

enum RecurrentCellCode : int { kCellRnn, kCellGru, kCellLstm };

struct RecurrentStep {
    int cell = kCellLstm;
    std::int64_t hidden = 0, batch = 0;
    const float* projection = nullptr; // this step's row of batch row 0, gates x hidden wide
    std::int64_t projectionStride = 0; // between batch rows, in elements
    const float* prevH = nullptr; // null: the zero state
    std::int64_t prevStride = 0;
    float* out = nullptr; // this step's h of batch row 0
    std::int64_t outStride = 0;
    const float* recurrence = nullptr; // R^T, [hidden, gates x hidden]
    const float* hiddenBias = nullptr; // GRU with linear before reset: R's bias of the hidden gate
    const float* peepholes = nullptr; // LSTM: i, o, f
    float* cellState = nullptr; // LSTM: c [batch, hidden], updated in place
    const float* initialC = nullptr; // LSTM, first step: read instead of cellState (null: zero)
    bool firstStep = false;
    float* hiddenOut = nullptr; // LSTM whose output holds c: where h goes ([batch, hidden])
    float* update = nullptr; // GRU: z between the two launches [batch, hidden]
    float* resetState = nullptr; // GRU: r * h between the two launches [batch, hidden]
    Act f, g, h;
    float clip = 0; // > 0: gate inputs clipped to [-clip, clip]
    bool inputForget = false, linearBeforeReset = false;
    int phase = 0; // GRU without linear before reset: 0 computes z and r * h, 1 the new state
};

cudaError_t recurrentStep(cudaStream_t stream, const RecurrentStep& p);

} // namespace opsched::gpu::kernels
