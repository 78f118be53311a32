// The layer kinds opsched's executors run: one list for the CPU (oneDNN) and CUDA backends, which
// run the same set. A generic visitor, so a new LayerParams alternative compiles and each backend
// reports it by op name until it is added here (and to both backends).
#pragma once

#include "graph/layer.h"

#include <type_traits>
#include <variant>

namespace opsched::exec {

template <typename T, typename... Ts> constexpr bool isOneOf = (std::is_same_v<T, Ts> || ...);

inline bool executorsRun(const Layer& layer)
{
    return std::visit(
        [](const auto& p) {
            using T = std::decay_t<decltype(p)>;
            return isOneOf<T, Conv2d, Pool2d, Eltwise, Multiply, Gemm, Softmax, Flatten, Reshape, Identity, Binary,
                MatMul, Concat, Slice, Transpose, Pad, Reduce, BatchNorm, LayerNorm, Gather, Where, Expand,
                ConvTranspose2d, Resize, Lrn, Recurrent>;
        },
        layer.params);
}

} // namespace opsched::exec
