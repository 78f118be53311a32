// One convolution on cuDNN, prepared before any capture: descriptors, weights on the device, the
// algorithm chosen by measurement (cudnnFindConvolutionForwardAlgorithmEx, bounded workspace) and
// cached per shape, bias + ReLU fused with cudnnConvolutionBiasActivationForward where cuDNN
// allows; other activations and bias-without-ReLU follow as one small kernel. Asymmetric padding
// (cuDNN takes symmetric only) runs over an explicitly zero-padded copy of the input.
// Internal to the CUDA backend.
#pragma once

#include "exec/cuda/conv_variant.h"
#include "exec/cuda/cuda_check.h"
#include "exec/cuda/cudnn_api.h"
#include "graph/layer.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace opsched::gpu {

// What every convolution of one executor shares.
class CudnnContext {
public:
    CudnnContext(bool tf32, const ConvVariant& variant);
    ~CudnnContext();
    CudnnContext(const CudnnContext&) = delete;
    CudnnContext& operator=(const CudnnContext&) = delete;

    // One handle per stream that runs convolutions (plans may have a hundred streams, most without
    // one): concurrent convolutions never share a handle's internals. Created before capture;
    // stream 0's also runs the measurements.
    void ensureHandle(std::size_t stream);
    cudnnHandle_t handle(std::size_t stream) const;
    bool tf32() const { return tf32_; }
    std::int64_t workspaceLimit() const { return variant_.workspaceBytes; }
    const ConvVariant& variant() const { return variant_; }
    void* findWorkspace(const std::string& what); // scratch for the measurements, allocated once
    // Chosen algorithms by shape key: measured once, reused by every conv of that shape.
    std::map<std::string, cudnnConvolutionFwdAlgoPerf_t>& algorithms() { return algorithms_; }

private:
    std::vector<cudnnHandle_t> handles_;
    bool tf32_;
    ConvVariant variant_;
    DeviceBuffer findWorkspace_;
    std::map<std::string, cudnnConvolutionFwdAlgoPerf_t> algorithms_;
};

struct ConvShape {
    std::int64_t batch = 0, inChannels = 0, inH = 0, inW = 0;
    std::int64_t outChannels = 0, outH = 0, outW = 0;
    Conv2d conv; // kernel, stride, padding, dilation, groups (outChannels as above)
};

class CudnnConv {
public:
    // `x` and `y` are the addresses the conv will run on (the measurement runs there too).
    // Throws Error starting with `what` (the op's name) when cuDNN refuses the shape.
    CudnnConv(CudnnContext& context, const ConvShape& shape, const std::vector<float>& weights,
        const std::vector<float>* bias, const Activation& act, const float* x, float* y, const std::string& what);
    ~CudnnConv();
    CudnnConv(const CudnnConv&) = delete;
    CudnnConv& operator=(const CudnnConv&) = delete;

    std::size_t workspaceBytes() const { return algorithm_.memory; }
    bool fused() const { return fused_; }
    // Issues the conv on `stream` with that stream's handle and `workspace` (at least
    // workspaceBytes(), owned by the stream).
    void run(cudaStream_t stream, cudnnHandle_t handle, void* workspace) const;

private:
    // The constructor's steps (what_ and shape_ are set by then).
    void describe(
        const CudnnContext& context, std::int64_t inH, std::int64_t inW, std::int64_t padH, std::int64_t padW);
    // The algorithm: measured once per shape (and alignment), then taken from the context's cache.
    void chooseAlgorithm(
        CudnnContext& context, std::int64_t inH, std::int64_t inW, std::int64_t padH, std::int64_t padW);

    const CudnnApi& api_;
    ConvShape shape_;
    std::string what_;
    const float* source_; // the input as the graph holds it
    const float* x_; // what cuDNN reads: the input, or its zero-padded copy
    float* y_;
    cudnnTensorDescriptor_t xDesc_ = nullptr, yDesc_ = nullptr, biasDesc_ = nullptr;
    cudnnFilterDescriptor_t wDesc_ = nullptr;
    cudnnConvolutionDescriptor_t convDesc_ = nullptr;
    cudnnActivationDescriptor_t actDesc_ = nullptr;
    cudnnConvolutionFwdAlgoPerf_t algorithm_ {};
    DeviceBuffer weights_, bias_, padded_;
    bool fused_ = false;
    Activation act_;
};

} // namespace opsched::gpu
