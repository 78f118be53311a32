#include "exec/cuda/device_runner.h"

#include "exec/cpu/executor_layers.h"
#include "exec/cpu/merged_conv.h"
#include "exec/cpu/merged_gemm.h"
#include "exec/cuda/cuda_kernels.h"
#include "exec/cuda/cuda_runtime_info.h"
#include "exec/cuda/tensor_kernels.h"
#include "exec/cuda/tensor_op_geometry.h"

#include <algorithm>
#include <type_traits>

namespace opsched::gpu {
namespace {

using exec::isOneOf;

kernels::Act act(const Activation& a)
{
    return { static_cast<int>(a.kind), a.alpha, a.beta };
}

std::int64_t elements(const std::vector<std::int64_t>& dims)
{
    std::int64_t n = 1;
    for (auto d : dims)
        n *= d;
    return n;
}

std::string opLabel(const Op& op)
{
    return "op '" + op.name + "'";
}

} // namespace

void selectDevice(int device)
{
    const CudaRuntimeStatus status = queryCudaRuntime();
    if (!status.available)
        throw Error("no CUDA device: " + status.reason);
    if (device < 0 || device >= static_cast<int>(status.devices.size()))
        throw Error("cuda:" + std::to_string(device) + " does not exist; this machine has "
            + std::to_string(status.devices.size()) + " CUDA device(s) (see `opsched-cli devices`)");
    checkCuda(cudaSetDevice(device), "cudaSetDevice(" + std::to_string(device) + ")");
    cudnnApi(); // throws when cuDNN 9 is missing, before anything is allocated
}

DeviceRunner::DeviceRunner(const Graph& graph, const Plan& plan, const CudaOptions& options, ArenaReuse reuse)
    : graph_(graph)
    , plan_(plan)
    , options_(options)
    , layout_(graph_, plan_)
    , memory_(graph_, plan_, layout_, reuse)
    , cudnn_(options.tf32, options.conv)
    , cublas_(options.tf32)
{
    for (const auto& t : graph_.tensors())
        if (t.dtype != DataType::Float32)
            throw Error("tensor '" + t.name + "' is " + toString(t.dtype) + "; the CUDA backend runs float32 only");
    for (const auto& op : graph_.ops())
        for (const auto& layer : op.layers)
            if (!exec::executorsRun(layer))
                throw Error(
                    opLabel(op) + ": layer kind '" + layer.kindName() + "' is not supported by the CUDA backend");
    arena_ = DeviceBuffer(memory_.arenaBytes(),
        "the activation arena of " + graph_.name() + " (batch " + std::to_string(graph_.batch()) + ")");
    // Zeros, not garbage: stage timings never run over stray NaNs or denormals.
    checkCuda(cudaMemset(arena_.data(), 0, static_cast<std::size_t>(arena_.size())), "clearing the activation arena");
    steps_.resize(plan_.launches.size());
    compiled_.assign(plan_.launches.size(), false);
    convsOf_.resize(plan_.launches.size());
    usesCublas_.assign(plan_.launches.size(), false);
}

DeviceRunner::~DeviceRunner()
{
    for (auto e : events_)
        cudaEventDestroy(e);
    for (auto e : timingEvents_)
        cudaEventDestroy(e);
    for (auto s : streams_)
        cudaStreamDestroy(s);
}

float* DeviceRunner::at(int value) const
{
    return reinterpret_cast<float*>(arena_.bytes() + memory_.offset(value));
}

const float* DeviceRunner::constant(const std::vector<float>& values, const std::string& what)
{
    constants_.push_back(upload(values.data(), values.size(), what));
    weightBytes_ += constants_.back().size();
    return constants_.back().floats();
}

bool DeviceRunner::pushCublasGemms(const std::vector<RowMajorGemm>& calls, const float* a, const float* b, float* y,
    const std::string& what, std::vector<Step>& steps)
{
    // k == 0 (an empty sum) and sizes past int stay on the own kernels, which handle them.
    const bool fits = std::all_of(
        calls.begin(), calls.end(), [](const RowMajorGemm& g) { return g.k > 0 && fitsCublasInt(toColumnMajor(g)); });
    if (!cublas_.available() || calls.empty() || !fits)
        return false;
    for (const RowMajorGemm& g : calls) {
        const ColumnMajorGemm c = toColumnMajor(g);
        const float* ag = a + g.offsetA;
        const float* bg = b + g.offsetB;
        float* yg = y + g.offsetC;
        if (g.batch * g.m * g.n > 0)
            steps.push_back([this, c, ag, bg, yg, what](cudaStream_t s, std::size_t k) {
                cublas_.run(c, ag, bg, yg, s, k, workspaces_.at(k).data(), workspaces_.at(k).size(), what);
            });
    }
    ++cublasSteps_;
    return true;
}

void DeviceRunner::compileLaunch(std::size_t index)
{
    if (index >= plan_.launches.size() || compiled_[index])
        return;
    const Launch& launch = plan_.launches[index];
    const cpu::LaunchLayout& ll = layout_.launch(index);
    std::vector<Step>& steps = steps_[index];
    const std::size_t convsBefore = convs_.size();
    const std::size_t cublasBefore = cublasSteps_;
    try {
        // Merged GEMMs (Q, K, V) run as separate cuBLAS GEMMs here: the CPU executor stacks them,
        // this backend does not yet (its outputs are not parented into the stack either way).
        if (ll.stack < 0 || cpu::mergedGemmGeometry(graph_, launch.ops)) {
            for (auto id : launch.ops)
                compileOp(graph_.op(id), steps);
        } else {
            const Op& first = graph_.op(launch.ops.front());
            if (layout_.op(first.id).combine)
                compileCombine(first, steps);
            compileMerged(ll.stackOrder, ll.channelOffsets, layout_.op(first.id).input, at(ll.stack),
                !ll.outputsAreSlices, steps);
        }
    } catch (const Error& e) {
        // Messages from below (weights without data, ...) may not say which op; these do.
        const std::string what = e.what();
        if (what.rfind("op '", 0) == 0)
            throw;
        throw Error(opLabel(graph_.op(launch.ops.front())) + ": " + what);
    }
    for (std::size_t k = convsBefore; k < convs_.size(); ++k)
        convsOf_[index].push_back(convs_[k].get());
    usesCublas_[index] = cublasSteps_ > cublasBefore;
    compiled_[index] = true;
}

std::size_t DeviceRunner::addMergedLaunch(const std::vector<OpId>& ops)
{
    const auto geometry = cpu::mergedConvGeometry(graph_, ops); // none for GEMMs: op by op
    std::vector<Step> steps;
    const std::size_t convsBefore = convs_.size();
    const std::size_t cublasBefore = cublasSteps_;
    if (!geometry) {
        for (auto id : ops)
            compileOp(graph_.op(id), steps);
    } else {
        const Op& first = graph_.op(ops.front());
        if (layout_.op(first.id).combine)
            compileCombine(first, steps);
        std::vector<std::int64_t> offsets;
        std::int64_t c0 = 0;
        for (auto id : ops) {
            offsets.push_back(c0);
            c0 += graph_.tensor(graph_.op(id).output).shape.channels();
        }
        const std::int64_t batch = graph_.batch();
        constants_.emplace_back(
            batch * geometry->outChannels * geometry->outH * geometry->outW * 4, opLabel(first) + ": merged output");
        compileMerged(ops, offsets, layout_.op(first.id).input, constants_.back().floats(), batch > 1, steps);
    }
    steps_.push_back(std::move(steps));
    compiled_.push_back(true);
    usesCublas_.push_back(cublasSteps_ > cublasBefore);
    convsOf_.emplace_back();
    for (std::size_t k = convsBefore; k < convs_.size(); ++k)
        convsOf_.back().push_back(convs_[k].get());
    return steps_.size() - 1;
}

void DeviceRunner::compileMerged(const std::vector<OpId>& order, const std::vector<std::int64_t>& channelOffsets,
    int input, float* stack, bool copySlices, std::vector<Step>& steps)
{
    const Op& first = graph_.op(order.front());
    const std::string what = opLabel(first) + " (merged launch of " + std::to_string(order.size()) + " ops)";
    const auto geometry = cpu::mergedConvGeometry(graph_, order);
    if (!geometry)
        throw Error(what + ": the ops cannot run as one convolution");
    const cpu::StackedWeights stacked = cpu::stackWeights(graph_, order, *geometry);
    const ConvShape shape { .batch = graph_.batch(),
        .inChannels = geometry->inChannels,
        .inH = geometry->inH,
        .inW = geometry->inW,
        .outChannels = geometry->outChannels,
        .outH = geometry->outH,
        .outW = geometry->outW,
        .conv = geometry->conv() };
    convs_.push_back(std::make_unique<CudnnConv>(
        cudnn_, shape, stacked.weights, &stacked.bias, first.layers.front().activation, at(input), stack, what));
    weightBytes_ += static_cast<std::int64_t>((stacked.weights.size() + stacked.bias.size()) * sizeof(float));
    const CudnnConv* conv = convs_.back().get();
    steps.push_back(
        [this, conv](cudaStream_t s, std::size_t k) { conv->run(s, cudnn_.handle(k), workspaces_[k].data()); });
    if (!copySlices)
        return;
    // Batch > 1: the slices are strided; copy them out so every consumer reads dense data.
    for (std::size_t j = 0; j < order.size(); ++j) {
        const Tensor& out = graph_.tensor(graph_.op(order[j]).output);
        kernels::ChannelCopy c;
        c.dst = tensorAt(out.id);
        c.dstChannels = out.shape.channels();
        c.srcs[0] = stack;
        c.sourceCount = 1;
        c.srcChannels = geometry->outChannels;
        c.srcC0 = channelOffsets[j];
        c.batch = shape.batch;
        c.channels = out.shape.channels();
        c.inner = geometry->outH * geometry->outW;
        const std::string label = opLabel(graph_.op(order[j])) + ": slice of the merged output";
        steps.push_back([c, label](cudaStream_t s, std::size_t) { checkCuda(kernels::channelCopy(s, c), label); });
    }
}

void DeviceRunner::compileOp(const Op& op, std::vector<Step>& steps)
{
    const cpu::OpLayout& ol = layout_.op(op.id);
    if (ol.combine)
        compileCombine(op, steps);
    int cur = ol.input;
    std::vector<std::int64_t> curDims = ol.inputDims;
    for (std::size_t i = 0; i < op.layers.size(); ++i) {
        if (!cpu::isNoopLayer(op, i)) // noop layers view their input's bytes
            compileLayer(op, i, cur, curDims, ol.layers[i], steps);
        cur = ol.layers[i];
        curDims = op.layers[i].output.dims;
    }
}

void DeviceRunner::compileCombine(const Op& op, std::vector<Step>& steps)
{
    const cpu::OpLayout& ol = layout_.op(op.id);
    float* dst = at(ol.input);
    const auto& dims = ol.inputDims;
    const std::int64_t batch = dims[0], total = dims.size() > 1 ? dims[1] : 1;
    std::int64_t inner = 1;
    for (std::size_t d = 2; d < dims.size(); ++d)
        inner *= dims[d];
    const std::string label = opLabel(op) + ": combining its inputs";
    std::int64_t c0 = 0;
    for (const auto& term : op.inputs) {
        const auto& tdims = graph_.tensor(term.front()).shape.dims;
        const std::int64_t channels = op.inputs.size() == 1 ? total : tdims.at(1);
        const std::int64_t termInner = op.inputs.size() == 1 ? elements(tdims) / (batch * channels) : inner;
        const bool inPlace = term.size() == 1 && tensorAt(term.front()) == dst + c0 * inner;
        if (!inPlace) { // else its producer wrote it here
            for (std::size_t k = 0; k < term.size(); k += kernels::kMaxSources) {
                kernels::ChannelCopy c;
                c.dst = dst;
                c.dstChannels = op.inputs.size() == 1 ? channels : total;
                c.dstC0 = op.inputs.size() == 1 ? 0 : c0;
                for (std::size_t j = k; j < std::min(term.size(), k + kernels::kMaxSources); ++j)
                    c.srcs[c.sourceCount++] = tensorAt(term[j]);
                c.srcChannels = channels;
                c.batch = batch;
                c.channels = channels;
                c.inner = termInner;
                c.accumulate = k > 0;
                steps.push_back(
                    [c, label](cudaStream_t s, std::size_t) { checkCuda(kernels::channelCopy(s, c), label); });
            }
        }
        c0 += channels;
    }
}

// The launch steps of one layer, one overload per layer kind (std::visit picks it); the imported
// models' tensor layers go on to compileTensorLayer. Nested in DeviceRunner to reach its tensors,
// constants and convolutions. The launches capture copies of what they use, never this object: it
// lives only while compileLayer runs.
struct DeviceRunner::LayerSteps {
    DeviceRunner& runner;
    const Op& op;
    const std::size_t i;
    const Layer& layer;
    const std::string what;
    const std::vector<std::int64_t>& inDims;
    const std::vector<std::int64_t>& outDims;
    float* const y;
    const float* const x;
    std::vector<Step>& steps;
    const kernels::Act a;

    std::vector<float> weights(std::size_t k) const { return cpu::weightValues(runner.graph_, layer.weights.at(k)); }
    template <class Launch> void push(Launch launch) const
    {
        steps.push_back([launch, what = what](cudaStream_t s, std::size_t) { checkCuda(launch(s), what); });
    }

    void operator()(const Conv2d& p) const
    {
        if (inDims.size() == 5) { // cuDNN is set up for 2-D convolutions here: a direct kernel
            const kernels::Conv3dShape s = conv3dGeometry(p, inDims, outDims);
            const auto bias = p.bias && layer.weights.size() > 1 ? weights(1) : std::vector<float> {};
            const float* w = runner.constant(weights(0), what + ": weights");
            const float* b = bias.empty() ? nullptr : runner.constant(bias, what + ": bias");
            push([x = x, w, b, y = y, s, a = a](cudaStream_t st) { return kernels::conv3d(st, x, w, b, y, s, a); });
            return;
        }
        const ConvShape shape { .batch = inDims.at(0),
            .inChannels = inDims.at(1),
            .inH = inDims.at(2),
            .inW = inDims.at(3),
            .outChannels = outDims.at(1),
            .outH = outDims.at(2),
            .outW = outDims.at(3),
            .conv = p };
        const auto w = weights(0);
        const auto bias = p.bias && layer.weights.size() > 1 ? weights(1) : std::vector<float> {};
        runner.convs_.push_back(std::make_unique<CudnnConv>(
            runner.cudnn_, shape, w, bias.empty() ? nullptr : &bias, layer.activation, x, y, what));
        runner.weightBytes_ += static_cast<std::int64_t>((w.size() + bias.size()) * sizeof(float));
        const CudnnConv* conv = runner.convs_.back().get();
        steps.push_back([self = &runner, conv](cudaStream_t s, std::size_t k) {
            conv->run(s, self->cudnn_.handle(k), self->workspaces_[k].data());
        });
    }
    void operator()(const Gemm& p) const
    {
        const std::int64_t n = inDims.at(0), k = elements(inDims) / n, o = outDims.at(1);
        const float* w = runner.constant(weights(0), what + ": weights");
        const float* b = p.bias && layer.weights.size() > 1 ? runner.constant(weights(1), what + ": bias") : nullptr;
        if (runner.pushCublasGemms({ gemmLayerProblem(n, k, o) }, x, w, y, what, steps)) {
            // Bias and activation after the GEMM, as one small kernel.
            if ((b || a.kind != 0) && n * o > 0)
                push([y = y, b, n, o, a = a](cudaStream_t s) { return kernels::biasActivation(s, y, b, n, o, 1, a); });
        } else {
            push([x = x, w, b, y = y, n, k, o, a = a](
                     cudaStream_t s) { return kernels::gemm(s, x, w, b, y, n, k, o, a); });
        }
    }
    void operator()(const Pool2d& p) const
    {
        kernels::Pool pp;
        pp.max = p.kind == PoolKind::Max || p.kind == PoolKind::GlobalMax;
        pp.batch = inDims.at(0);
        pp.channels = inDims.at(1);
        pp.inH = inDims.at(2);
        pp.inW = inDims.at(3);
        pp.outH = outDims.at(2);
        pp.outW = outDims.at(3);
        if (p.kind == PoolKind::GlobalAverage || p.kind == PoolKind::GlobalMax) {
            pp.kernelH = pp.inH;
            pp.kernelW = pp.inW;
        } else {
            pp.kernelH = p.kernelH;
            pp.kernelW = p.kernelW;
            pp.strideH = p.strideH;
            pp.strideW = p.strideW;
            pp.padTop = p.padTop;
            pp.padLeft = p.padLeft;
            pp.padBottom = p.padBottom;
            pp.padRight = p.padRight;
            pp.countIncludePad = p.countIncludePad;
            // Ceil mode's last window may run past the bottom/right padding: the kernel
            // clips it there and does not count that part (PyTorch, ONNX).
        }
        push([x = x, y = y, pp, a = a](cudaStream_t s) { return kernels::pool(s, x, y, pp, a); });
    }
    void operator()(const Eltwise& p) const
    {
        const kernels::Act first = act(p.activation);
        const std::int64_t n = elements(outDims);
        push([x = x, y = y, n, first, a = a](cudaStream_t s) { return kernels::activation(s, x, y, n, first, a); });
    }
    void operator()(const Softmax& p) const
    {
        int axis = p.axis < 0 ? p.axis + static_cast<int>(inDims.size()) : p.axis;
        std::int64_t outer = 1, inner = 1;
        for (int d = 0; d < axis; ++d)
            outer *= inDims[static_cast<std::size_t>(d)];
        for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < inDims.size(); ++d)
            inner *= inDims[d];
        const std::int64_t len = inDims.at(static_cast<std::size_t>(axis));
        const std::int64_t n = elements(outDims);
        push([x = x, y = y, outer, len, inner, log = p.log, a = a, n](cudaStream_t s) {
            cudaError_t err = kernels::softmax(s, x, y, outer, len, inner, log);
            return err == cudaSuccess && a.kind != 0 ? kernels::activation(s, y, y, n, a) : err;
        });
    }
    void operator()(const Multiply&) const
    {
        if (i == 0 && cpu::multipliesTerms(op)) {
            multiplyTerms();
        } else {
            const std::int64_t n = elements(outDims);
            push([x = x, y = y, n, a = a](cudaStream_t s) { return kernels::activation(s, x, y, n, a); });
        }
    }
    // A first Multiply that multiplies the op's input terms: y = t0 * t1, then y *= each next term,
    // broadcasting each to the output's shape; the activation goes with the last.
    void multiplyTerms() const
    {
        const int rank = static_cast<int>(outDims.size());
        if (rank > kernels::kMaxRank)
            throw Error(what + ": rank " + std::to_string(rank) + " is beyond the backend's "
                + std::to_string(kernels::kMaxRank));
        auto shapeOf = [&](const std::vector<std::int64_t>& dims) {
            // Right-aligned dense strides; 0 where the operand is broadcast.
            kernels::Broadcast b;
            b.rank = rank;
            std::int64_t stride = 1;
            for (int d = rank - 1; d >= 0; --d) {
                b.dims[d] = outDims[static_cast<std::size_t>(d)];
                const int od = d - (rank - static_cast<int>(dims.size()));
                const std::int64_t extent = od >= 0 ? dims[static_cast<std::size_t>(od)] : 1;
                b.aStrides[d] = extent == 1 ? 0 : stride;
                stride *= extent;
            }
            return b;
        };
        const float* lhs = runner.tensorAt(op.inputs[0].front());
        kernels::Broadcast shape = shapeOf(runner.graph_.tensor(op.inputs[0].front()).shape.dims);
        for (std::size_t k = 1; k < op.inputs.size(); ++k) {
            const auto rhsShape = shapeOf(runner.graph_.tensor(op.inputs[k].front()).shape.dims);
            for (int d = 0; d < rank; ++d)
                shape.bStrides[d] = rhsShape.aStrides[d];
            const float* rhs = runner.tensorAt(op.inputs[k].front());
            const kernels::Act last = k + 1 == op.inputs.size() ? a : kernels::Act {};
            push([lhs, rhs, y = y, shape, last](
                     cudaStream_t s) { return kernels::multiply(s, lhs, rhs, y, shape, last); });
            lhs = y; // then y *= the next operand
            shape = shapeOf(outDims);
        }
    }
    template <class T> void operator()(const T&) const
    {
        if constexpr (isOneOf<T, Flatten, Reshape, Identity>) {
            const std::int64_t n = elements(outDims); // a view with an activation
            push([x = x, y = y, n, a = a](cudaStream_t s) { return kernels::activation(s, x, y, n, a); });
        } else if constexpr (isOneOf<T, Binary, MatMul, Concat, Slice, Transpose, Pad, Reduce, BatchNorm, LayerNorm,
                                 Gather, Where, Expand, ConvTranspose2d, Resize, Lrn, Recurrent>) {
            runner.compileTensorLayer(op, i, x, inDims, y, steps);
        } else {
            throw Error(what + ": not supported by the CUDA backend");
        }
    }
};

void DeviceRunner::compileLayer(
    const Op& op, std::size_t i, int in, const std::vector<std::int64_t>& inDims, int out, std::vector<Step>& steps)
{
    const Layer& layer = op.layers[i];
    const std::string what = opLabel(op) + " layer " + std::to_string(i) + " (" + layer.kindName() + ")";
    float* y = at(out);
    const float* x = in >= 0 ? at(in) : nullptr;
    const LayerSteps build { *this, op, i, layer, what, inDims, layer.output.dims, y, x, steps, act(layer.activation) };
    std::visit(build, layer.params);
}

void DeviceRunner::prepareStreams(const StreamProgram& program)
{
    const std::size_t count = std::max<std::size_t>(program.streams, 1);
    while (streams_.size() < count) {
        cudaStream_t s = nullptr;
        // Non-blocking: no implicit ordering with the legacy default stream, which capture forbids.
        checkCuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
        streams_.push_back(s);
    }
    std::vector<std::int64_t> need(count, -1); // -1: the stream runs no convolution
    for (const auto& op : program.ops)
        if (op.kind == StreamOpKind::Launch)
            for (const CudnnConv* c : convsOf_.at(op.index))
                need[op.stream] = std::max(need[op.stream], static_cast<std::int64_t>(c->workspaceBytes()));
    if (workspaces_.size() < count)
        workspaces_.resize(count);
    std::vector<bool> gemms(count, false);
    for (const auto& op : program.ops)
        if (op.kind == StreamOpKind::Launch && usesCublas_.at(op.index))
            gemms[op.stream] = true;
    for (std::size_t k = 0; k < count; ++k) {
        if (need[k] >= 0)
            cudnn_.ensureHandle(k);
        if (gemms[k]) {
            cublas_.ensureHandle(k);
            need[k] = std::max(need[k], CublasGemms::kWorkspaceBytes);
        }
        if (need[k] < 0)
            continue;
        if (workspaces_[k].size() < need[k])
            workspaces_[k] = DeviceBuffer(need[k], "cuDNN/cuBLAS workspace of stream " + std::to_string(k));
    }
}

void DeviceRunner::issue(const StreamOp& op)
{
    cudaStream_t s = streams_.at(op.stream);
    switch (op.kind) {
    case StreamOpKind::Launch:
        for (const auto& step : steps_.at(op.index))
            step(s, op.stream);
        break;
    case StreamOpKind::Record:
        checkCuda(cudaEventRecord(events_.at(op.index), s), "cudaEventRecord");
        break;
    case StreamOpKind::Wait:
        checkCuda(cudaStreamWaitEvent(s, events_.at(op.index), 0), "cudaStreamWaitEvent");
        break;
    }
}

void DeviceRunner::runEagerly(const StreamProgram& program, const CudaExecutor::LaunchWrapper& wrap)
{
    // Streams, events and workspaces were set up by capture(); only launches go through `wrap`.
    // The error slot is cleared and waited for first: the launches run on several streams.
    gatherErrors_.clear(streams_.at(0));
    checkCuda(cudaDeviceSynchronize(), "clearing the gathers' error slot");
    for (const auto& op : program.ops) {
        if (op.kind == StreamOpKind::Launch && wrap)
            wrap(op.index, [&] { issue(op); });
        else
            issue(op);
    }
    checkCuda(cudaDeviceSynchronize(), "running the plan eagerly");
    gatherErrors_.fetch(streams_.at(0));
    checkCuda(cudaStreamSynchronize(streams_.at(0)), "reading the gathers' error slot");
    gatherErrors_.throwIfReported();
}

GraphExec DeviceRunner::capture(const StreamProgram& program)
{
    for (const auto& op : program.ops)
        if (op.kind == StreamOpKind::Launch) {
            if (op.index >= steps_.size())
                throw Error(
                    "stream program launches " + std::to_string(op.index) + " of " + std::to_string(steps_.size()));
            compileLaunch(op.index);
        }
    prepareStreams(program);
    while (events_.size() < program.events) {
        cudaEvent_t e = nullptr;
        checkCuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags");
        events_.push_back(e);
    }
    // Once eagerly, op by op, while any of its launches has never run: a failing kernel is reported
    // by op name, and whatever cuDNN sets up on a first call happens outside the capture. The
    // stage timer captures thousands of small programs over the same launches; they skip this.
    ranEagerly_.resize(steps_.size(), false);
    bool fresh = false;
    for (const auto& op : program.ops)
        fresh = fresh || (op.kind == StreamOpKind::Launch && !ranEagerly_[op.index]);
    if (fresh) {
        checkCuda(cudaDeviceSynchronize(), "preparing the plan's kernels"); // surfaces errors of the preparation
        for (const auto& op : program.ops) {
            issue(op);
            if (op.kind == StreamOpKind::Launch)
                checkCuda(cudaStreamSynchronize(streams_.at(op.stream)),
                    "running launch " + std::to_string(op.index) + " before capture");
        }
        checkCuda(cudaDeviceSynchronize(), "running the plan once before capture");
        for (const auto& op : program.ops)
            if (op.kind == StreamOpKind::Launch)
                ranEagerly_[op.index] = true;
    }

    checkCuda(cudaStreamBeginCapture(streams_[0], cudaStreamCaptureModeThreadLocal), "cudaStreamBeginCapture");
    cudaGraph_t cudaGraph = nullptr;
    try {
        for (const auto& op : program.ops)
            issue(op);
    } catch (...) {
        cudaStreamEndCapture(streams_[0], &cudaGraph); // leave capture mode before reporting
        if (cudaGraph)
            cudaGraphDestroy(cudaGraph);
        cudaGetLastError();
        throw;
    }
    checkCuda(cudaStreamEndCapture(streams_[0], &cudaGraph), "cudaStreamEndCapture");
    cudaGraphExec_t exec = nullptr;
    const cudaError_t err = cudaGraphInstantiate(&exec, cudaGraph, 0);
    cudaGraphDestroy(cudaGraph);
    checkCuda(err, "cudaGraphInstantiate");
    return GraphExec(exec);
}

void DeviceRunner::poison()
{
    checkCuda(
        cudaMemset(arena_.data(), 0xFF, static_cast<std::size_t>(arena_.size())), "poisoning the activation arena");
    checkCuda(cudaDeviceSynchronize(), "poisoning the activation arena");
}

std::vector<std::vector<float>> DeviceRunner::run(const GraphExec& exec, const std::vector<std::vector<float>>& inputs)
{
    const auto& ids = graph_.inputs();
    if (inputs.size() != ids.size())
        throw Error(
            graph_.name() + " takes " + std::to_string(ids.size()) + " inputs, got " + std::to_string(inputs.size()));
    cudaStream_t s = streams_.at(0);
    for (std::size_t k = 0; k < ids.size(); ++k) {
        const Tensor& t = graph_.tensor(ids[k]);
        if (static_cast<std::int64_t>(inputs[k].size()) != t.shape.elements())
            throw Error("input '" + t.name + "' (" + t.shape.toString() + ") needs "
                + std::to_string(t.shape.elements()) + " values, got " + std::to_string(inputs[k].size()));
        checkCuda(cudaMemcpyAsync(
                      tensorAt(t.id), inputs[k].data(), inputs[k].size() * sizeof(float), cudaMemcpyHostToDevice, s),
            "copying input '" + t.name + "' to the device");
    }
    gatherErrors_.clear(s);
    checkCuda(cudaGraphLaunch(exec.get(), s), "cudaGraphLaunch");
    gatherErrors_.fetch(s);
    std::vector<std::vector<float>> outputs;
    for (auto id : graph_.outputs()) {
        auto& host = outputs.emplace_back(static_cast<std::size_t>(graph_.tensor(id).shape.elements()));
        checkCuda(cudaMemcpyAsync(host.data(), tensorAt(id), host.size() * sizeof(float), cudaMemcpyDeviceToHost, s),
            "copying output '" + graph_.tensor(id).name + "' from the device");
    }
    checkCuda(cudaStreamSynchronize(s), "running the plan of " + graph_.name());
    gatherErrors_.throwIfReported();
    return outputs;
}

std::vector<double> DeviceRunner::timeBackToBack(const GraphExec& exec, int warmup, int repeats)
{
    cudaStream_t s = streams_.at(0);
    for (int i = 0; i < warmup; ++i)
        checkCuda(cudaGraphLaunch(exec.get(), s), "cudaGraphLaunch (warm-up)");
    // One event between consecutive replays; events are kept across calls (the timer calls this
    // thousands of times).
    while (timingEvents_.size() < static_cast<std::size_t>(repeats) + 1) {
        cudaEvent_t e = nullptr;
        checkCuda(cudaEventCreate(&e), "cudaEventCreate");
        timingEvents_.push_back(e);
    }
    checkCuda(cudaEventRecord(timingEvents_[0], s), "cudaEventRecord");
    for (int i = 0; i < repeats; ++i) {
        checkCuda(cudaGraphLaunch(exec.get(), s), "cudaGraphLaunch");
        checkCuda(cudaEventRecord(timingEvents_[static_cast<std::size_t>(i) + 1], s), "cudaEventRecord");
    }
    checkCuda(cudaEventSynchronize(timingEvents_[static_cast<std::size_t>(repeats)]), "timed replays");
    std::vector<double> seconds;
    for (std::size_t i = 0; i < static_cast<std::size_t>(repeats); ++i) {
        float ms = 0;
        checkCuda(cudaEventElapsedTime(&ms, timingEvents_[i], timingEvents_[i + 1]), "cudaEventElapsedTime");
        seconds.push_back(ms * 1e-3);
    }
    return seconds;
}

std::vector<double> DeviceRunner::time(const GraphExec& exec, int warmup, int repeats)
{
    cudaStream_t s = streams_.at(0);
    for (int i = 0; i < warmup; ++i)
        checkCuda(cudaGraphLaunch(exec.get(), s), "cudaGraphLaunch (warm-up)");
    checkCuda(cudaStreamSynchronize(s), "warm-up replays");
    cudaEvent_t start = nullptr, stop = nullptr;
    checkCuda(cudaEventCreate(&start), "cudaEventCreate");
    const cudaError_t made = cudaEventCreate(&stop);
    if (made != cudaSuccess)
        cudaEventDestroy(start);
    checkCuda(made, "cudaEventCreate");
    std::vector<double> seconds;
    cudaError_t err = cudaSuccess;
    for (int i = 0; i < repeats && err == cudaSuccess; ++i) {
        err = cudaEventRecord(start, s);
        if (err == cudaSuccess)
            err = cudaGraphLaunch(exec.get(), s);
        if (err == cudaSuccess)
            err = cudaEventRecord(stop, s);
        if (err == cudaSuccess)
            err = cudaEventSynchronize(stop);
        float ms = 0;
        if (err == cudaSuccess)
            err = cudaEventElapsedTime(&ms, start, stop);
        seconds.push_back(ms * 1e-3);
    }
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    checkCuda(err, "timed replays");
    return seconds;
}

} // namespace opsched::gpu
