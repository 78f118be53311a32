// How the CUDA backend runs its convolutions, chosen at run time so one script can measure the
// choices side by side on a GPU (`run --backend cuda --cudnn KEY=VALUE,...`):
//   epilogue=fused|separate  bias + ReLU inside cudnnConvolutionBiasActivationForward (fused, the
//                            default) or cudnnConvolutionForward followed by opsched's own bias and
//                            activation kernel (separate: cuDNN's fused legacy path may pick
//                            slower kernels than its plain forward);
//   algo=find|heuristic      the algorithm measured by cudnnFindConvolutionForwardAlgorithmEx (find,
//                            the default) or cuDNN's first heuristic choice
//                            (cudnnGetConvolutionForwardAlgorithm_v7: no measuring at start-up);
//   workspace-mb=N           the workspace an algorithm may use, per stream (default 256).
// Plain C++ (no CUDA), so parsing is tested on every machine.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace opsched::gpu {

struct ConvVariant {
    enum class Epilogue { Fused, Separate } epilogue = Epilogue::Fused;
    enum class Algo { Find, Heuristic } algo = Algo::Find;
    std::int64_t workspaceBytes = std::int64_t { 256 } << 20;

    friend bool operator==(const ConvVariant&, const ConvVariant&) = default;
};

// "epilogue=separate,algo=heuristic,workspace-mb=64"; empty gives the defaults. Throws Error naming
// the key or value it does not know.
ConvVariant parseConvVariant(std::string_view text);
// The canonical form ("epilogue=fused,algo=find,workspace-mb=256"), what parseConvVariant reads back.
std::string toString(const ConvVariant& variant);

} // namespace opsched::gpu
