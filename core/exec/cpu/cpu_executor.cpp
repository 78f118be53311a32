#include "exec/cpu/cpu_executor.h"

#include "exec/cpu/channels_last.h"
#include "exec/cpu/executor_layers.h"
#include "exec/cpu/merged_conv.h"
#include "exec/cpu/merged_gemm.h"
#include "exec/cpu/onednn_ops.h"
#include "exec/cpu/partition_runner.h"
#include "util/error.h"

#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <new>
#include <type_traits>

namespace opsched::cpu {
namespace {

// 64-byte aligned storage; operator new throws std::bad_alloc when memory cannot be had.
class AlignedBuffer {
public:
    AlignedBuffer() = default;
    explicit AlignedBuffer(std::size_t bytes)
        : data_(static_cast<std::byte*>(::operator new (std::max<std::size_t>(bytes, 64), std::align_val_t { 64 })))
        , size_(bytes)
    {
    }
    ~AlignedBuffer()
    {
        if (data_)
            ::operator delete (data_, std::align_val_t { 64 });
    }
    AlignedBuffer(const AlignedBuffer&) = delete;
    AlignedBuffer(AlignedBuffer&& o) noexcept
    {
        std::swap(data_, o.data_);
        std::swap(size_, o.size_);
    }
    AlignedBuffer& operator=(AlignedBuffer&& o) noexcept
    {
        std::swap(data_, o.data_);
        std::swap(size_, o.size_);
        return *this;
    }
    std::byte* data() const { return data_; }
    std::size_t size() const { return size_; }

private:
    std::byte* data_ = nullptr;
    std::size_t size_ = 0;
};

using exec::isOneOf;

// Sets the OpenMP thread count back on leaving the scope, when `active`.
struct RestoreOmpThreads {
    bool active = false;
    int threads = 0;
    RestoreOmpThreads(bool a, int t)
        : active(a)
        , threads(t)
    {
    }
    RestoreOmpThreads(const RestoreOmpThreads&) = delete;
    RestoreOmpThreads& operator=(const RestoreOmpThreads&) = delete;
    ~RestoreOmpThreads()
    {
        if (active)
            setOmpThreads(threads);
    }
};

std::string unsupportedMessage(const Layer& layer)
{
    return std::string("layer kind '") + layer.kindName() + "' is not supported by the CPU backend";
}

void checkGraph(const Graph& graph)
{
    for (const auto& t : graph.tensors())
        if (t.dtype != DataType::Float32)
            throw Error("tensor '" + t.name + "' is " + toString(t.dtype) + "; the CPU backend runs float32 only");
    for (const auto& op : graph.ops())
        for (const auto& layer : op.layers)
            if (!exec::executorsRun(layer))
                throw Error("op '" + op.name + "': " + unsupportedMessage(layer));
}

} // namespace

bool cpuBackendAvailable()
{
    return true;
}

struct CpuExecutor::Impl {
    Graph graph;
    TensorLayout layout;
    dnnl::engine engine { dnnl::engine::kind::cpu, 0 };
    dnnl::stream stream { engine };
    AlignedBuffer arena;
    std::vector<AlignedBuffer> scratchpads; // one per partition (one without partitions)
    std::vector<AlignedBuffer> stagings; // blocked-layout copies of convolution inputs and outputs
    PrimitiveBuilder builder { engine };
    std::vector<LaunchWork> work; // per launch: its steps, partition and waits
    std::unique_ptr<PartitionRunner> runner;
    std::vector<LaunchTiming> timings;
    std::vector<OpId> launchOps; // per launch: its first op, to name it
    std::vector<char> serial; // per launch: runs on one thread (too little work to share)
    int fullThreads = 0; // the thread count of the other launches

    Impl(const Graph& g, const Plan& plan, const CpuOptions& o)
        : graph(g)
        , layout(graph, plan, LayoutOptions { o.channelsLast, o.fuseEpilogues, !o.partitions.empty() })
    {
    }

    float* at(int value) const
    {
        return reinterpret_cast<float*>(arena.data() + layout.values()[static_cast<std::size_t>(value)].arenaOffset);
    }
    Operand operand(int value, const std::vector<std::int64_t>& dims) const
    {
        const bool cl = layout.values()[static_cast<std::size_t>(value)].channelsLast && layoutMatters(dims);
        return { at(value), dims, cl ? channelsLastStrides(dims) : std::vector<std::int64_t> {} };
    }
    Operand tensorOperand(TensorId t) const { return operand(layout.valueOf(t), graph.tensor(t).shape.dims); }

    void compileLaunch(std::size_t index, const Launch& launch);
    void compileOp(const Op& op);
    void compileLayer(const Op& op, std::size_t i, const Operand& in, const Operand& out);
    std::vector<Operand> operandsOf(const Op& op, const Layer& first);
    void compileDataLayer(const Layer& layer, const Activation& act, const Operand& in, const Operand& out);
    void combine(const Op& op);
};

void CpuExecutor::Impl::compileLaunch(std::size_t index, const Launch& launch)
{
    const LaunchLayout& ll = layout.launch(index);
    if (ll.stack < 0) {
        for (auto id : launch.ops)
            compileOp(graph.op(id));
        return;
    }
    // Merged: one convolution (or GEMM) over the stacked weights into the stack value.
    const Op& first = graph.op(launch.ops.front());
    const OpLayout& ol = layout.op(first.id);
    if (ol.combine)
        combine(first);
    if (const auto gemm = mergedGemmGeometry(graph, ll.stackOrder)) {
        const StackedWeights stacked = stackGemmWeights(graph, ll.stackOrder, *gemm);
        const auto& stack = layout.values()[static_cast<std::size_t>(ll.stack)];
        const std::int64_t total = gemm->outDims.back();
        const Operand stackOut = operand(ll.stack, stack.dims);
        const Operand weightsOperand { nullptr, { gemm->k, total }, {} };
        // A MatMul reads its term as an operand: nothing is combined into ol.input.
        builder.matmul(tensorOperand(first.inputs.front().front()), weightsOperand, &stacked.weights, stackOut,
            first.layers.front().activation, &stacked.bias);
        // Each op's column block, strided by the stack's row length, copied out densely.
        std::vector<std::int64_t> strides(stack.dims.size(), 1);
        for (std::size_t d = stack.dims.size() - 1; d > 0; --d)
            strides[d - 1] = strides[d] * stack.dims[d];
        for (std::size_t j = 0; j < ll.stackOrder.size(); ++j) {
            const TensorId out = graph.op(ll.stackOrder[j]).output;
            const Operand block { at(ll.stack) + ll.channelOffsets[j], graph.tensor(out).shape.dims, strides };
            builder.copy(block, tensorOperand(out));
        }
        return;
    }
    const auto geometry = mergedConvGeometry(graph, ll.stackOrder);
    const StackedWeights stacked = stackWeights(graph, ll.stackOrder, *geometry);
    const Conv2d c = geometry->conv();
    const auto& stack = layout.values()[static_cast<std::size_t>(ll.stack)];
    builder.conv(c, operand(ol.input, ol.inputDims), operand(ll.stack, stack.dims), stacked.weights, &stacked.bias,
        first.layers.front().activation);
    if (ll.outputsAreSlices)
        return;
    // Batch > 1: the slices are strided; copy them out so every consumer reads dense data.
    const std::int64_t plane = stack.dims[2] * stack.dims[3];
    const std::vector<std::int64_t> strides { stack.dims[1] * plane, plane, stack.dims[3], 1 };
    for (std::size_t j = 0; j < ll.stackOrder.size(); ++j) {
        const TensorId out = graph.op(ll.stackOrder[j]).output;
        const Operand slice { at(ll.stack) + ll.channelOffsets[j] * plane, graph.tensor(out).shape.dims, strides };
        builder.copy(slice, tensorOperand(out));
    }
}

void CpuExecutor::Impl::compileOp(const Op& op)
{
    if (layout.absorbed(op.id))
        return; // its convolution's launch computes it
    const OpLayout& ol = layout.op(op.id);
    if (ol.combine)
        combine(op);
    Operand cur = ol.input >= 0 ? operand(ol.input, ol.inputDims) : Operand {};
    for (std::size_t i = 0; i < op.layers.size(); ++i) {
        const Operand out = operand(ol.layers[i], op.layers[i].output.dims);
        if (!isNoopLayer(op, i) && !layout.layoutView(op.id)) // views of their input's bytes
            compileLayer(op, i, cur, out);
        cur = out;
    }
}

void CpuExecutor::Impl::compileLayer(const Op& op, std::size_t i, const Operand& in, const Operand& layerOut)
{
    const Layer& layer = op.layers[i];
    // A lone activation folded in: the last layer applies it and writes the activation's output.
    const ConvEpilogue* lone = i + 1 == op.layers.size() ? layout.epilogue(op.id) : nullptr;
    if (lone && (lone->swish || lone->addend.valid() || std::holds_alternative<Conv2d>(layer.params)))
        lone = nullptr; // a convolution's epilogue, handled with its post-ops below
    const Activation& act = lone ? lone->after : layer.activation;
    const Operand out = lone ? tensorOperand(lone->output) : layerOut;
    auto weights = [&](std::size_t k) { return weightValues(graph, layer.weights.at(k)); };
    std::visit(
        [&](const auto& p) {
            using T = std::decay_t<decltype(p)>;
            if constexpr (std::is_same_v<T, Conv2d>) {
                const auto bias = p.bias && layer.weights.size() > 1 ? weights(1) : std::vector<float> {};
                const ConvEpilogue* e = i + 1 == op.layers.size() ? layout.epilogue(op.id) : nullptr;
                if (e && !e->swish && !e->addend.valid() && act.kind == ActivationKind::None) {
                    builder.conv(p, in, tensorOperand(e->output), weights(0), bias.empty() ? nullptr : &bias, e->after);
                } else if (e) { // writes the epilogue's output instead of its own
                    const Operand addend = e->addend.valid() ? tensorOperand(e->addend) : Operand {};
                    const ConvTail tail { e->swish, e->addend.valid() ? &addend : nullptr, e->after };
                    builder.conv(
                        p, in, tensorOperand(e->output), weights(0), bias.empty() ? nullptr : &bias, act, tail);
                } else {
                    builder.conv(p, in, out, weights(0), bias.empty() ? nullptr : &bias, act);
                }
            } else if constexpr (std::is_same_v<T, ConvTranspose2d>) {
                const auto bias = p.bias && layer.weights.size() > 1 ? weights(1) : std::vector<float> {};
                builder.convTranspose(p, in, out, weights(0), bias.empty() ? nullptr : &bias, act);
            } else if constexpr (std::is_same_v<T, Resize>) {
                builder.resize(p, in, out, act);
            } else if constexpr (std::is_same_v<T, Lrn>) {
                builder.lrn(p, in, out, act);
            } else if constexpr (std::is_same_v<T, Recurrent>) {
                builder.recurrent(p, operandsOf(op, layer), out, act);
            } else if constexpr (std::is_same_v<T, Gemm>) {
                const auto bias = p.bias && layer.weights.size() > 1 ? weights(1) : std::vector<float> {};
                builder.innerProduct(in, out, weights(0), bias.empty() ? nullptr : &bias, act);
            } else if constexpr (std::is_same_v<T, Pool2d>) {
                const int scratch = layout.op(op.id).scratch[i];
                const Operand padded = scratch >= 0
                    ? operand(scratch, layout.values()[static_cast<std::size_t>(scratch)].dims)
                    : Operand {};
                builder.pool(p, in, out, scratch >= 0 ? &padded : nullptr, act);
            } else if constexpr (std::is_same_v<T, Eltwise>) {
                builder.eltwise(in, out, { p.activation, act });
            } else if constexpr (std::is_same_v<T, Softmax>) {
                builder.softmax(p, in, out, act);
            } else if constexpr (std::is_same_v<T, Multiply>) {
                if (i == 0 && multipliesTerms(op)) {
                    std::vector<Operand> operands;
                    for (const auto& term : op.inputs)
                        operands.push_back(tensorOperand(term.front()));
                    builder.multiply(operands, out, act);
                } else {
                    builder.eltwise(in.reshaped(out.dims), out, { act });
                }
            } else if constexpr (isOneOf<T, Flatten, Reshape, Identity>) {
                builder.eltwise(in.reshaped(out.dims), out, { act }); // a view with an activation
            } else if constexpr (std::is_same_v<T, Binary>) {
                auto operands = operandsOf(op, layer);
                if (p.constantFirst) // the one weight, last among the operands, is the left one
                    std::rotate(operands.begin(), operands.end() - 1, operands.end());
                builder.binary(p.kind, operands, out, act);
            } else if constexpr (std::is_same_v<T, MatMul>) {
                const auto operands = operandsOf(op, layer);
                if (operands.size() != (p.bias ? 3U : 2U))
                    throw Error("matmul needs exactly two operands (and a bias)");
                // A weight as the right operand: its values, for oneDNN's preferred layout.
                const bool constantB = op.inputs.size() == 1;
                const auto b = constantB ? weights(0) : std::vector<float> {};
                const auto bias = p.bias ? weights(layer.weights.size() - 1) : std::vector<float> {};
                builder.matmul(operands[0], operands[1], constantB ? &b : nullptr, out, act, p.bias ? &bias : nullptr);
            } else if constexpr (std::is_same_v<T, LayerNorm>) {
                const auto bias = p.bias ? weights(1) : std::vector<float> {};
                builder.layerNorm(p, in, out, weights(0), p.bias ? &bias : nullptr, act);
            } else if constexpr (std::is_same_v<T, Gather>) {
                if (p.dataIsWeight)
                    builder.embedding(tensorOperand(op.inputs.front().front()), weights(0),
                        graph.tensor(layer.weights.at(0)).shape.dims, p.axis, out, act);
                else if (op.inputs.size() == 2) // computed indices: the op's second term
                    builder.gatherComputed(
                        p, tensorOperand(op.inputs.front().front()), tensorOperand(op.inputs.back().front()), out, act);
                else // constant indices: the data is the op's one term
                    builder.gatherIndices(p, tensorOperand(op.inputs.front().front()), out, act);
            } else if constexpr (std::is_same_v<T, Where>) {
                const auto operands = operandsOf(op, layer);
                const auto at = [&](std::size_t k) { return operands.at(static_cast<std::size_t>(p.operand[k])); };
                builder.where(at(0), at(1), at(2), out, act);
            } else if constexpr (std::is_same_v<T, Expand>) {
                builder.expand(in, out, act);
            } else if constexpr (std::is_same_v<T, Concat>) {
                const int rank = static_cast<int>(out.dims.size());
                auto operands = operandsOf(op, layer);
                if (!p.order.empty()) {
                    std::vector<Operand> ordered;
                    for (auto k : p.order)
                        ordered.push_back(operands.at(static_cast<std::size_t>(k)));
                    operands = std::move(ordered);
                }
                builder.concat(operands, out, p.axis < 0 ? p.axis + rank : p.axis);
                builder.activate(out, act);
            } else if constexpr (std::is_same_v<T, BatchNorm>) {
                builder.batchNorm(in, out, weights(0), weights(1), weights(2), weights(3), p.epsilon, act);
            } else if constexpr (isOneOf<T, Slice, Transpose, Pad, Reduce>) {
                compileDataLayer(layer, act, in, out);
            } else {
                throw Error(unsupportedMessage(layer));
            }
        },
        layer.params);
}

// The operands of an operand layer: one tensor per input term, then the layer's weights.
std::vector<Operand> CpuExecutor::Impl::operandsOf(const Op& op, const Layer& first)
{
    std::vector<Operand> operands;
    for (const auto& term : op.inputs) {
        if (term.size() != 1)
            throw Error("an operand must be a single tensor, not a sum");
        operands.push_back(tensorOperand(term.front()));
    }
    for (auto w : first.weights)
        operands.push_back(builder.constantOperand(weightValues(graph, w), graph.tensor(w).shape.dims));
    return operands;
}

// Layers that move data: views copied out (slice, transpose), pad, reduction.
void CpuExecutor::Impl::compileDataLayer(
    const Layer& layer, const Activation& act, const Operand& in, const Operand& out)
{
    if (const auto* s = std::get_if<Slice>(&layer.params)) {
        builder.gather(in.data, sliceView(in.dims, *s), out, act);
    } else if (const auto* t = std::get_if<Transpose>(&layer.params)) {
        builder.gather(in.data, transposeView(in.dims, t->perm), out, act);
    } else if (const auto* p = std::get_if<Pad>(&layer.params)) {
        builder.pad(*p, in, out, act);
    } else if (const auto* arg = std::get_if<Reduce>(&layer.params);
               arg && (arg->kind == ReduceKind::ArgMax || arg->kind == ReduceKind::ArgMin)) {
        builder.argExtreme(*arg, in, out, act);
    } else if (const auto* top = std::get_if<Reduce>(&layer.params); top && top->kind == ReduceKind::TopK) {
        builder.topK(*top, in, out, act);
    } else if (const auto* r = std::get_if<Reduce>(&layer.params)) {
        // oneDNN reduces to the same rank: the output seen with 1 on the reduced axes.
        const auto rank = static_cast<std::int64_t>(in.dims.size());
        std::vector<std::int64_t> kept = in.dims;
        for (auto a : r->axes) {
            if (a < -rank || a >= rank)
                throw Error("reduce axis " + std::to_string(a) + " is out of range for rank " + std::to_string(rank));
            kept[static_cast<std::size_t>(a < 0 ? a + rank : a)] = 1;
        }
        if (r->axes.empty())
            kept.assign(in.dims.size(), 1);
        builder.reduce(r->kind, in, out.reshaped(kept), act);
    }
}

void CpuExecutor::Impl::combine(const Op& op)
{
    const OpLayout& ol = layout.op(op.id);
    const Operand dst = operand(ol.input, ol.inputDims);
    auto termOperands = [&](const InputTerm& term) {
        std::vector<Operand> srcs;
        for (auto t : term)
            srcs.push_back(tensorOperand(t));
        return srcs;
    };
    if (op.inputs.size() == 1) {
        builder.sum(termOperands(op.inputs.front()), dst);
        return;
    }
    std::int64_t inner = 1;
    for (std::size_t d = 2; d < dst.dims.size(); ++d)
        inner *= dst.dims[d];
    // Batch > 1 or channels-last: a channel slice is strided, described with the whole tensor's
    // strides (channels-last: it starts c0 elements in).
    const bool cl = !dst.strides.empty();
    std::vector<std::int64_t> strides = dst.strides;
    if (!cl && dst.dims[0] > 1) {
        strides.assign(dst.dims.size(), 1);
        for (std::size_t d = dst.dims.size() - 1; d > 0; --d)
            strides[d - 1] = strides[d] * dst.dims[d];
    }
    std::vector<Operand> slices;
    bool allSingle = true, anyInPlace = false;
    std::int64_t c0 = 0;
    for (const auto& term : op.inputs) {
        const auto& dims = graph.tensor(term.front()).shape.dims;
        slices.push_back(Operand { dst.data + (cl ? c0 : c0 * inner), dims, strides });
        allSingle = allSingle && term.size() == 1;
        anyInPlace = anyInPlace || (term.size() == 1 && tensorOperand(term.front()).data == slices.back().data);
        c0 += dims[1];
    }
    if (allSingle && !anyInPlace) {
        std::vector<Operand> srcs;
        for (const auto& term : op.inputs)
            srcs.push_back(tensorOperand(term.front()));
        builder.concat(srcs, dst, 1);
        return;
    }
    for (std::size_t k = 0; k < op.inputs.size(); ++k) {
        const auto& term = op.inputs[k];
        if (term.size() > 1)
            builder.sum(termOperands(term), slices[k]);
        else if (tensorOperand(term.front()).data != slices[k].data) // else its producer wrote it here
            builder.copy(tensorOperand(term.front()), slices[k]);
    }
}

CpuExecutor::CpuExecutor(const Graph& graph, const Plan& plan, CpuOptions options)
{
    checkGraph(graph);
    if (options.threads > 0 && options.partitions.empty()) {
        try {
            setOmpThreads(options.threads);
        } catch (const Error& e) {
            throw Error(std::string("--threads: ") + e.what());
        }
    }
    checkPartitions(options.partitions);
    impl_ = std::make_unique<Impl>(graph, plan, options);
    impl_->builder.setWinograd(options.winograd);
    impl_->builder.setAvoidReference(options.avoidReferenceKernels);
    Impl& im = *impl_;
    const auto peak = static_cast<std::size_t>(im.layout.peakBytes());
    try {
        im.arena = AlignedBuffer(peak);
    } catch (const std::bad_alloc&) {
        throw Error("cannot allocate the " + std::to_string(peak >> 20) + " MiB arena for the activations of "
            + graph.name() + " (batch " + std::to_string(graph.batch()) + ")");
    }
    // oneDNN sizes each primitive for the thread count current when it is created: with
    // partitions, the count of the partition that will run it; a small launch, one (restored
    // afterwards).
    const int callerThreads = ompThreads();
    im.fullThreads = callerThreads;
    for (std::size_t i = 0; i < plan.launches.size(); ++i) {
        const Launch& launch = plan.launches[i];
        if (!options.partitions.empty())
            setOmpThreads(
                static_cast<int>(options.partitions[launch.stream.value() % options.partitions.size()].size()));
        double launchWork = 0;
        for (OpId id : launch.ops)
            launchWork += graph.op(id).cost.flops + graph.op(id).cost.bytes();
        const bool serial = options.partitions.empty() && callerThreads > 1 && launchWork < options.serialWorkBelow;
        im.serial.push_back(serial ? 1 : 0);
        const RestoreOmpThreads restore { serial, callerThreads };
        if (serial)
            setOmpThreads(1);
        std::string who = "op '" + graph.op(launch.ops.front()).name + "'";
        if (launch.merged())
            who += " (merged launch of " + std::to_string(launch.ops.size()) + " ops)";
        im.launchOps.push_back(launch.ops.front());
        LaunchWork w;
        w.firstStep = im.builder.steps().size();
        try {
            im.compileLaunch(i, launch);
        } catch (const dnnl::error& e) {
            throw Error(who + ": oneDNN cannot build its kernel: " + e.what());
        } catch (const std::bad_alloc&) {
            throw Error(who + ": out of memory while preparing its weights and kernels");
        } catch (const Error& e) {
            throw Error(who + ": " + e.what());
        }
        w.endStep = im.builder.steps().size();
        if (!options.partitions.empty())
            w.partition = static_cast<int>(launch.stream.value() % options.partitions.size());
        im.work.push_back(std::move(w));
    }
    if (callerThreads > 0 && !options.partitions.empty())
        setOmpThreads(callerThreads);
    // Steps that may run at the same time (other partitions) get buffers of their own.
    const std::size_t buffers = std::max<std::size_t>(1, options.partitions.size());
    for (std::size_t p = 0; p < buffers; ++p) {
        try {
            im.scratchpads.emplace_back(im.builder.scratchpadBytes());
            im.stagings.emplace_back(im.builder.stagingBytes());
        } catch (const std::bad_alloc&) {
            throw Error("cannot allocate oneDNN's scratchpad (" + std::to_string(im.builder.scratchpadBytes() >> 20)
                + " MiB) and the staging buffers for blocked-layout convolutions ("
                + std::to_string(im.builder.stagingBytes() >> 20) + " MiB)");
        }
    }
    for (const auto& w : im.work) {
        const auto p = static_cast<std::size_t>(w.partition);
        im.builder.bindScratchpad(im.scratchpads[p].data(), w.firstStep, w.endStep);
        im.builder.bindStaging(im.stagings[p].data(), w.firstStep, w.endStep);
    }
    for (auto& step : im.builder.steps())
        step.freezeArgs();
    if (options.partitions.empty())
        return;
    // A launch waits for the launches of other partitions the plan makes it wait for: its waits,
    // and at a barrier the last launch before it of every other partition (each partition runs its
    // launches in order, so that one finishing means all its earlier ones have).
    std::vector<std::uint32_t> barriers = plan.barriers;
    std::sort(barriers.begin(), barriers.end());
    std::vector<std::int64_t> lastOn(options.partitions.size(), -1);
    std::vector<std::int64_t> lastBeforeBarrier(options.partitions.size(), -1);
    std::size_t b = 0;
    for (std::size_t i = 0; i < im.work.size(); ++i) {
        while (b < barriers.size() && barriers[b] <= i) {
            lastBeforeBarrier = lastOn;
            ++b;
        }
        LaunchWork& w = im.work[i];
        lastOn[static_cast<std::size_t>(w.partition)] = static_cast<std::int64_t>(i);
        if (options.skipCrossPartitionWaits)
            continue;
        for (auto j : plan.launches[i].waitFor)
            if (im.work[j].partition != w.partition)
                w.waitFor.push_back(j);
        for (std::size_t p = 0; p < lastBeforeBarrier.size(); ++p)
            if (static_cast<int>(p) != w.partition && lastBeforeBarrier[p] >= 0)
                w.waitFor.push_back(static_cast<std::uint32_t>(lastBeforeBarrier[p]));
        std::sort(w.waitFor.begin(), w.waitFor.end());
        w.waitFor.erase(std::unique(w.waitFor.begin(), w.waitFor.end()), w.waitFor.end());
    }
    im.runner = std::make_unique<PartitionRunner>(options.partitions, im.work, im.builder.steps(), im.engine);
}

CpuExecutor::~CpuExecutor() = default;

std::vector<std::vector<float>> CpuExecutor::run(const std::vector<std::vector<float>>& inputs)
{
    Impl& im = *impl_;
    const auto start = std::chrono::steady_clock::now();
    const auto& ids = im.graph.inputs();
    if (inputs.size() != ids.size())
        throw Error(
            im.graph.name() + " takes " + std::to_string(ids.size()) + " inputs, got " + std::to_string(inputs.size()));
    for (std::size_t k = 0; k < ids.size(); ++k) {
        const Tensor& t = im.graph.tensor(ids[k]);
        if (static_cast<std::int64_t>(inputs[k].size()) != t.shape.elements())
            throw Error("input '" + t.name + "' (" + t.shape.toString() + ") needs "
                + std::to_string(t.shape.elements()) + " values, got " + std::to_string(inputs[k].size()));
        std::memcpy(im.at(im.layout.valueOf(t.id)), inputs[k].data(), inputs[k].size() * sizeof(float));
    }
    auto sinceStart = [&] {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start).count();
    };
    if (im.runner) {
        im.runner->run(im.timings, start);
    } else {
        im.timings.resize(im.work.size());
        auto& steps = im.builder.steps();
        RestoreOmpThreads restore { false, im.fullThreads };
        for (std::size_t i = 0; i < im.work.size(); ++i) {
            if ((im.serial[i] != 0) != restore.active) { // the count the next parallel regions take
                restore.active = !restore.active;
                setOmpThreads(restore.active ? 1 : im.fullThreads);
            }
            const std::int64_t t0 = sinceStart();
            for (std::size_t s = im.work[i].firstStep; s < im.work[i].endStep; ++s) {
                steps[s].run(im.stream);
            }
            im.stream.wait();
            im.timings[i] = LaunchTiming { i, t0, sinceStart(), 0 };
        }
    }
    std::vector<std::vector<float>> outputs;
    for (auto id : im.graph.outputs()) {
        const float* p = im.at(im.layout.valueOf(id));
        outputs.emplace_back(p, p + im.graph.tensor(id).shape.elements());
    }
    return outputs;
}

void CpuExecutor::poison()
{
    Impl& im = *impl_;
    auto fill = [](AlignedBuffer& b) {
        if (b.size() > 0)
            std::memset(b.data(), 0xFF, b.size());
    };
    fill(im.arena);
    for (auto& b : im.stagings)
        fill(b);
    for (auto& b : im.scratchpads)
        fill(b);
}

const std::vector<LaunchTiming>& CpuExecutor::lastLaunchTimings() const
{
    return impl_->timings;
}
std::int64_t CpuExecutor::peakArenaBytes() const
{
    return impl_->layout.peakBytes();
}
std::int64_t CpuExecutor::activationBytes() const
{
    return impl_->layout.activationBytes();
}
std::int64_t CpuExecutor::weightBytes() const
{
    return impl_->builder.weightBytes();
}
std::int64_t CpuExecutor::scratchpadBytes() const
{
    return static_cast<std::int64_t>(impl_->builder.scratchpadBytes());
}
std::size_t CpuExecutor::primitiveCount() const
{
    return impl_->builder.steps().size();
}
std::vector<PrimitiveUse> CpuExecutor::primitives() const
{
    std::vector<PrimitiveUse> uses;
    const auto& steps = impl_->builder.steps();
    for (std::size_t i = 0; i < impl_->work.size(); ++i) {
        const std::string& op = impl_->graph.op(impl_->launchOps[i]).name;
        for (std::size_t s = impl_->work[i].firstStep; s < impl_->work[i].endStep; ++s)
            uses.push_back({ i, op, steps[s].implementation });
    }
    return uses;
}
const TensorLayout& CpuExecutor::layout() const
{
    return impl_->layout;
}

} // namespace opsched::cpu
