#include "exec/cuda/cudnn_conv.h"

#include "exec/cuda/cuda_kernels.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace opsched::gpu {
namespace {

int narrow(std::int64_t v, const std::string& what)
{
    if (v < 0 || v > (std::int64_t { 1 } << 31) - 1)
        throw Error(what + ": dimension " + std::to_string(v) + " does not fit cuDNN's int");
    return static_cast<int>(v);
}

kernels::Act toKernelAct(const Activation& a)
{
    return { static_cast<int>(a.kind), a.alpha, a.beta };
}

bool symmetric(const Conv2d& c)
{
    return c.padTop == c.padBottom && c.padLeft == c.padRight;
}

const char* algorithmName(cudnnConvolutionFwdAlgo_t algo)
{
    switch (algo) {
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM:
        return "implicit_gemm";
    case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM:
        return "implicit_precomp_gemm";
    case CUDNN_CONVOLUTION_FWD_ALGO_GEMM:
        return "gemm";
    case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT:
        return "direct";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT:
        return "fft";
    case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING:
        return "fft_tiling";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD:
        return "winograd";
    case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED:
        return "winograd_nonfused";
    default:
        return "?";
    }
}

// OPSCHED_CUDNN_LOG=1: each measured shape's candidates on stderr, fastest first, and the one taken.
// On an H100, googlenet's convs at batch 1 mostly ran cuDNN's old implicit_convolve_sgemm kernel
// (two thirds of the kernel time); this shows what the algorithm search saw.
void logFind(const std::string& what, const cudnnConvolutionFwdAlgoPerf_t* perf, int returned,
    const cudnnConvolutionFwdAlgoPerf_t& taken)
{
    static const bool enabled = std::getenv("OPSCHED_CUDNN_LOG") != nullptr;
    if (!enabled)
        return;
    std::string line = "cudnn: " + what + ": took " + algorithmName(taken.algo) + ";";
    for (int i = 0; i < returned; ++i) {
        char buf[160];
        std::snprintf(buf, sizeof buf, " %s %.4f ms %zu B math %d%s", algorithmName(perf[i].algo),
            static_cast<double>(perf[i].time), perf[i].memory, static_cast<int>(perf[i].mathType),
            perf[i].status == CUDNN_STATUS_SUCCESS ? "" : " (failed)");
        line += buf;
        line += i + 1 < returned ? "," : "";
    }
    std::fprintf(stderr, "%s\n", line.c_str());
}

} // namespace

CudnnContext::CudnnContext(bool tf32, const ConvVariant& variant)
    : tf32_(tf32)
    , variant_(variant)
{
    ensureHandle(0);
}

CudnnContext::~CudnnContext()
{
    for (auto h : handles_)
        if (h)
            cudnnApi().destroy(h);
}

void CudnnContext::ensureHandle(std::size_t stream)
{
    if (handles_.size() <= stream)
        handles_.resize(stream + 1, nullptr);
    if (!handles_[stream])
        checkCudnn(cudnnApi().create(&handles_[stream]), "cudnnCreate for stream " + std::to_string(stream));
}

cudnnHandle_t CudnnContext::handle(std::size_t stream) const
{
    if (stream >= handles_.size() || !handles_[stream])
        throw Error("no cuDNN handle was made for stream " + std::to_string(stream) + " before capture");
    return handles_[stream];
}

void* CudnnContext::findWorkspace(const std::string& what)
{
    if (!findWorkspace_.data() && variant_.workspaceBytes > 0)
        findWorkspace_ = DeviceBuffer(variant_.workspaceBytes, what + ": cuDNN workspace");
    return findWorkspace_.data();
}

CudnnConv::CudnnConv(CudnnContext& context, const ConvShape& shape, const std::vector<float>& weights,
    const std::vector<float>* bias, const Activation& act, const float* x, float* y, const std::string& what)
    : api_(cudnnApi())
    , shape_(shape)
    , what_(what)
    , source_(x)
    , x_(x)
    , y_(y)
    , act_(act)
{
    const Conv2d& c = shape.conv;
    const std::int64_t inH = shape.inH + (symmetric(c) ? 0 : c.padTop + c.padBottom);
    const std::int64_t inW = shape.inW + (symmetric(c) ? 0 : c.padLeft + c.padRight);
    const std::int64_t padH = symmetric(c) ? c.padTop : 0, padW = symmetric(c) ? c.padLeft : 0;
    if (!symmetric(c)) {
        padded_ = DeviceBuffer(shape.batch * shape.inChannels * inH * inW * 4, what + ": padded input");
        x_ = padded_.floats();
    }
    const std::int64_t expected = shape.outChannels * (shape.inChannels / c.groups) * c.kernelH * c.kernelW;
    if (static_cast<std::int64_t>(weights.size()) != expected)
        throw Error(
            what + ": has " + std::to_string(weights.size()) + " weights, the conv needs " + std::to_string(expected));
    weights_ = upload(weights.data(), weights.size(), what + ": weights");
    if (bias)
        bias_ = upload(bias->data(), bias->size(), what + ": bias");

    describe(context, inH, inW, padH, padW);
    chooseAlgorithm(context, inH, inW, padH, padW);

    // cuDNN fuses bias + ReLU (any algorithm); anything else, or every epilogue with
    // epilogue=separate, runs as one kernel after the conv.
    fused_ = bias && act.kind == ActivationKind::Relu && context.variant().epilogue == ConvVariant::Epilogue::Fused;
    if (fused_) {
        checkCudnn(api_.createTensorDescriptor(&biasDesc_), what + ": bias descriptor");
        checkCudnn(api_.setTensor4dDescriptor(
                       biasDesc_, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, narrow(shape.outChannels, what), 1, 1),
            what + ": bias descriptor");
        checkCudnn(api_.createActivationDescriptor(&actDesc_), what + ": activation descriptor");
        checkCudnn(api_.setActivationDescriptor(actDesc_, CUDNN_ACTIVATION_RELU, CUDNN_NOT_PROPAGATE_NAN, 0.0),
            what + ": activation descriptor");
    }
}

// The input (padded where the padding is asymmetric), output, filter and convolution
// descriptors; checks that cuDNN computes the output shape the graph has.
void CudnnConv::describe(
    const CudnnContext& context, std::int64_t inH, std::int64_t inW, std::int64_t padH, std::int64_t padW)
{
    const Conv2d& c = shape_.conv;
    checkCudnn(api_.createTensorDescriptor(&xDesc_), what_ + ": cudnnCreateTensorDescriptor");
    checkCudnn(api_.createTensorDescriptor(&yDesc_), what_ + ": cudnnCreateTensorDescriptor");
    checkCudnn(api_.createFilterDescriptor(&wDesc_), what_ + ": cudnnCreateFilterDescriptor");
    checkCudnn(api_.createConvolutionDescriptor(&convDesc_), what_ + ": cudnnCreateConvolutionDescriptor");
    checkCudnn(api_.setTensor4dDescriptor(xDesc_, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, narrow(shape_.batch, what_),
                   narrow(shape_.inChannels, what_), narrow(inH, what_), narrow(inW, what_)),
        what_ + ": input descriptor");
    checkCudnn(api_.setTensor4dDescriptor(yDesc_, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, narrow(shape_.batch, what_),
                   narrow(shape_.outChannels, what_), narrow(shape_.outH, what_), narrow(shape_.outW, what_)),
        what_ + ": output descriptor");
    checkCudnn(
        api_.setFilter4dDescriptor(wDesc_, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, narrow(shape_.outChannels, what_),
            narrow(shape_.inChannels / c.groups, what_), narrow(c.kernelH, what_), narrow(c.kernelW, what_)),
        what_ + ": filter descriptor");
    checkCudnn(api_.setConvolution2dDescriptor(convDesc_, narrow(padH, what_), narrow(padW, what_),
                   narrow(c.strideH, what_), narrow(c.strideW, what_), narrow(c.dilationH, what_),
                   narrow(c.dilationW, what_), CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
        what_ + ": convolution descriptor");
    checkCudnn(api_.setConvolutionGroupCount(convDesc_, narrow(c.groups, what_)), what_ + ": group count");
    // TF32 on: tensor-op math may convert FP32 inputs to TF32. Off: plain FP32 FMA only.
    checkCudnn(api_.setConvolutionMathType(convDesc_, context.tf32() ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH),
        what_ + ": math type");

    int n = 0, ch = 0, h = 0, w = 0;
    checkCudnn(
        api_.getConvolution2dForwardOutputDim(convDesc_, xDesc_, wDesc_, &n, &ch, &h, &w), what_ + ": output size");
    if (n != shape_.batch || ch != shape_.outChannels || h != shape_.outH || w != shape_.outW)
        throw Error(what_ + ": cuDNN computes a " + std::to_string(n) + "x" + std::to_string(ch) + "x"
            + std::to_string(h) + "x" + std::to_string(w) + " output where the graph has "
            + std::to_string(shape_.batch) + "x" + std::to_string(shape_.outChannels) + "x"
            + std::to_string(shape_.outH) + "x" + std::to_string(shape_.outW));
}

void CudnnConv::chooseAlgorithm(
    CudnnContext& context, std::int64_t inH, std::int64_t inW, std::int64_t padH, std::int64_t padW)
{
    const Conv2d& c = shape_.conv;
    // The algorithm: measured once per shape (and alignment, which decides what some kernels take).
    const auto aligned = [](const void* p) { return reinterpret_cast<std::uintptr_t>(p) % 16 == 0 ? 'a' : 'u'; };
    std::string key;
    for (auto v : { shape_.batch, shape_.inChannels, inH, inW, shape_.outChannels, c.kernelH, c.kernelW, padH, padW,
             c.strideH, c.strideW, c.dilationH, c.dilationW, c.groups })
        key += std::to_string(v) + ",";
    key += aligned(x_);
    key += aligned(y_);
    auto& cache = context.algorithms();
    if (auto it = cache.find(key); it != cache.end()) {
        algorithm_ = it->second;
    } else {
        cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
        int returned = 0;
        if (context.variant().algo == ConvVariant::Algo::Heuristic) {
            // cuDNN's own ranking, no measuring: the candidates in its order of preference.
            checkCudnn(api_.getConvolutionForwardAlgorithm(context.handle(0), xDesc_, wDesc_, convDesc_, yDesc_,
                           CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf),
                what_ + ": cudnnGetConvolutionForwardAlgorithm_v7");
        } else {
            checkCudnn(api_.findConvolutionForwardAlgorithmEx(context.handle(0), xDesc_, x_, wDesc_, weights_.data(),
                           convDesc_, yDesc_, y_, CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &returned, perf,
                           context.findWorkspace(what_), static_cast<std::size_t>(context.workspaceLimit())),
                what_ + ": cudnnFindConvolutionForwardAlgorithmEx");
            checkCuda(cudaDeviceSynchronize(), what_ + ": measuring convolution algorithms");
        }
        const auto usable = std::find_if(perf, perf + returned, [&](const cudnnConvolutionFwdAlgoPerf_t& p) {
            return p.status == CUDNN_STATUS_SUCCESS && p.memory <= static_cast<std::size_t>(context.workspaceLimit())
                && (context.tf32() || p.mathType == CUDNN_FMA_MATH);
        });
        if (usable == perf + returned)
            throw Error(what_ + ": cuDNN has no convolution algorithm for this shape within a "
                + std::to_string(context.workspaceLimit() >> 20) + " MiB workspace");
        algorithm_ = *usable;
        logFind(what_, perf, returned, algorithm_);
        cache.emplace(key, algorithm_);
    }
    // TF32 off keeps CUDNN_FMA_MATH on the descriptor: the algorithm's own math type could be
    // CUDNN_DEFAULT_MATH, which lets cuDNN use TF32 tensor cores for FP32 data (Ampere and later).
    if (context.tf32())
        checkCudnn(api_.setConvolutionMathType(convDesc_, algorithm_.mathType), what_ + ": math type of the algorithm");
}

CudnnConv::~CudnnConv()
{
    if (xDesc_)
        api_.destroyTensorDescriptor(xDesc_);
    if (yDesc_)
        api_.destroyTensorDescriptor(yDesc_);
    if (biasDesc_)
        api_.destroyTensorDescriptor(biasDesc_);
    if (wDesc_)
        api_.destroyFilterDescriptor(wDesc_);
    if (convDesc_)
        api_.destroyConvolutionDescriptor(convDesc_);
    if (actDesc_)
        api_.destroyActivationDescriptor(actDesc_);
}

void CudnnConv::run(cudaStream_t stream, cudnnHandle_t handle, void* workspace) const
{
    const Conv2d& c = shape_.conv;
    if (padded_.data())
        checkCuda(
            kernels::padCopy(stream, source_, padded_.floats(), shape_.batch, shape_.inChannels, shape_.inH, shape_.inW,
                shape_.inH + c.padTop + c.padBottom, shape_.inW + c.padLeft + c.padRight, c.padTop, c.padLeft),
            what_ + ": asymmetric padding");
    checkCudnn(api_.setStream(handle, stream), what_ + ": cudnnSetStream");
    const float one = 1.0F, zero = 0.0F;
    if (fused_) {
        checkCudnn(api_.convolutionBiasActivationForward(handle, &one, xDesc_, x_, wDesc_, weights_.data(), convDesc_,
                       algorithm_.algo, workspace, algorithm_.memory, &zero, yDesc_, y_, biasDesc_, bias_.data(),
                       actDesc_, yDesc_, y_),
            what_ + ": cudnnConvolutionBiasActivationForward");
        return;
    }
    checkCudnn(api_.convolutionForward(handle, &one, xDesc_, x_, wDesc_, weights_.data(), convDesc_, algorithm_.algo,
                   workspace, algorithm_.memory, &zero, yDesc_, y_),
        what_ + ": cudnnConvolutionForward");
    if (bias_.data() || act_.kind != ActivationKind::None)
        checkCuda(kernels::biasActivation(stream, y_, bias_.floats(), shape_.batch, shape_.outChannels,
                      shape_.outH * shape_.outW, toKernelAct(act_)),
            what_ + ": bias and activation");
}

} // namespace opsched::gpu
