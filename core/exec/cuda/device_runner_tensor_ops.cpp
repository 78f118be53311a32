// DeviceRunner's launch steps for imported models' layers (Binary, MatMul, Concat, Slice,
// Transpose, Pad, Reduce, BatchNorm, the transformers' LayerNorm, Gather, Where, Expand, the
// upsampling layers Resize and ConvTranspose, and recurrences):
// geometry on the host (tensor_op_geometry.h, gemm_mapping.h), cuBLAS for MatMul, one or a few own
// kernels per other layer (tensor_kernels.h, row_kernels.h), the layer's activation fused into the
// last.
#include "exec/cpu/merged_conv.h"
#include "exec/cuda/device_runner.h"
#include "exec/cuda/recurrent_kernels.h"
#include "exec/cuda/row_kernels.h"
#include "exec/cuda/tensor_kernels.h"
#include "exec/cuda/tensor_op_geometry.h"

#include <array>
#include <type_traits>

namespace opsched::gpu {
namespace {

kernels::Act toAct(const Activation& a)
{
    return { static_cast<int>(a.kind), a.alpha, a.beta };
}

} // namespace

const std::int64_t* DeviceRunner::indexConstant(const std::vector<std::int64_t>& values, const std::string& what)
{
    const std::size_t bytes = values.size() * sizeof(std::int64_t);
    constants_.emplace_back(static_cast<std::int64_t>(bytes), what);
    if (bytes > 0)
        checkCuda(
            cudaMemcpy(constants_.back().data(), values.data(), bytes, cudaMemcpyHostToDevice), what + ": upload");
    weightBytes_ += constants_.back().size();
    return reinterpret_cast<const std::int64_t*>(constants_.back().data());
}

// The launch steps of one imported tensor layer, one overload per layer kind (std::visit picks
// it). Nested in DeviceRunner to reach its tensors and constants. The launches capture copies of
// what they use, never this object: it lives only while compileTensorLayer runs.
struct DeviceRunner::TensorLayerSteps {
    // One tensor per input term, then the layer's weights, each with its dimensions.
    using OperandList = std::vector<std::pair<const float*, std::vector<std::int64_t>>>;

    DeviceRunner& runner;
    const Op& op;
    const Layer& layer;
    const std::string what;
    const float* x;
    const std::vector<std::int64_t>& inDims;
    float* y;
    const std::vector<std::int64_t>& outDims;
    const kernels::Act a;
    std::vector<Step>& steps;

    template <class Launch> void push(Launch launch) const
    {
        steps.push_back([launch, what = what](cudaStream_t s, std::size_t) { checkCuda(launch(s), what); });
    }
    // Operand layers: one tensor per input term, then the layer's weights as constants.
    OperandList operands() const
    {
        OperandList list;
        for (const auto& term : op.inputs) {
            if (term.size() != 1)
                throw Error(what + ": an operand must be a single tensor, not a sum");
            list.emplace_back(runner.tensorAt(term.front()), runner.graph_.tensor(term.front()).shape.dims);
        }
        for (auto w : layer.weights)
            list.emplace_back(runner.constant(cpu::weightValues(runner.graph_, w), what + ": constant operand"),
                runner.graph_.tensor(w).shape.dims);
        return list;
    }
    static std::vector<std::vector<std::int64_t>> dimsOf(const OperandList& list)
    {
        std::vector<std::vector<std::int64_t>> dims;
        for (const auto& o : list)
            dims.push_back(o.second);
        return dims;
    }

    void operator()(const Binary& p) const
    {
        const auto listed = operands();
        OperandList list;
        for (auto k : binaryOperandOrder(p, op.inputs.size(), layer.weights.size()))
            list.push_back(listed[k]);
        BinaryLaunches plan = binaryLaunches(p.kind, dimsOf(list), outDims);
        for (std::size_t j = 0; j < plan.launches.size(); ++j) {
            kernels::Elementwise e = plan.launches[j];
            for (std::size_t slot = 0; slot < plan.operandOf[j].size(); ++slot) {
                const int k = plan.operandOf[j][slot];
                e.srcs[slot] = k < 0 ? y : list[static_cast<std::size_t>(k)].first;
            }
            const kernels::Act last = j + 1 == plan.launches.size() ? a : kernels::Act {};
            push([e, y = y, last](cudaStream_t s) { return kernels::elementwise(s, e, y, last); });
        }
    }
    void operator()(const MatMul& p) const
    {
        const auto list = operands();
        const std::size_t expected = p.bias ? 3 : 2;
        if (list.size() != expected)
            throw Error(what + ": matmul needs " + (p.bias ? "two operands and a bias" : "exactly two operands")
                + ", got " + std::to_string(list.size()) + " tensors");
        const kernels::BatchedMatMul g = matMulGeometry(list[0].second, list[1].second, outDims);
        const float* lhs = list[0].first;
        const float* rhs = list[1].first;
        // A Linear layer's bias: one value per output column, added with the activation after.
        const float* bias = p.bias ? list[2].first : nullptr;
        const std::int64_t rows = g.batch * g.m, cols = g.n;
        const bool epilogue = (bias || a.kind != 0) && rows * cols > 0;
        const kernels::Act inKernel = bias ? kernels::Act {} : a;
        if (runner.pushCublasGemms(matMulProblems(g), lhs, rhs, y, what, steps)) {
            if (epilogue)
                push([y = y, bias, rows, cols, a = a](
                         cudaStream_t s) { return kernels::biasActivation(s, y, bias, rows, cols, 1, a); });
        } else {
            push([lhs, rhs, y = y, g, inKernel](
                     cudaStream_t s) { return kernels::batchedMatMul(s, lhs, rhs, y, g, inKernel); });
            if (bias && rows * cols > 0)
                push([y = y, bias, rows, cols, a = a](
                         cudaStream_t s) { return kernels::biasActivation(s, y, bias, rows, cols, 1, a); });
        }
    }
    void operator()(const Concat& p) const
    {
        auto list = operands();
        if (!p.order.empty()) { // a constant before an activation: the layer's own order
            OperandList ordered;
            for (auto k : p.order)
                ordered.push_back(list.at(static_cast<std::size_t>(k)));
            list = std::move(ordered);
        }
        const int rank = static_cast<int>(outDims.size());
        const auto copies = concatCopies(dimsOf(list), outDims, p.axis < 0 ? p.axis + rank : p.axis);
        for (std::size_t k = 0; k < copies.size(); ++k) {
            const kernels::StridedCopy c = copies[k];
            const float* src = list[k].first;
            push([src, y = y, c, a = a](cudaStream_t s) { return kernels::stridedCopy(s, src, y, c, a); });
        }
    }
    void operator()(const Slice& p) const { pushCopy(denseCopy(cpu::sliceView(inDims, p))); }
    void operator()(const Transpose& p) const { pushCopy(denseCopy(cpu::transposeView(inDims, p.perm))); }
    void operator()(const Expand&) const { pushCopy(expandCopy(inDims, outDims)); }
    // Slice, Transpose and Expand: one strided copy of x into y.
    void pushCopy(const kernels::StridedCopy c) const
    {
        push([x = x, y = y, c, a = a](cudaStream_t s) { return kernels::stridedCopy(s, x, y, c, a); });
    }
    void operator()(const Pad& p) const
    {
        PadTables t = padGeometry(p, inDims, outDims);
        t.gather.indices = runner.indexConstant(t.indices, what + ": pad indices");
        const kernels::PadGather g = t.gather;
        push([x = x, y = y, g, a = a](cudaStream_t s) { return kernels::padGather(s, x, y, g, a); });
    }
    void operator()(const Resize& p) const
    {
        ResizeTables t = resizeGeometry(p, inDims, outDims);
        t.gather.indices = runner.indexConstant(t.indices, what + ": resize indices");
        t.gather.weights = runner.constant(t.weights, what + ": resize weights");
        const kernels::ResizeGather g = t.gather;
        push([x = x, y = y, g, a = a](cudaStream_t s) { return kernels::resizeGather(s, x, y, g, a); });
    }
    void operator()(const ConvTranspose2d& p) const
    {
        const kernels::ConvTransposeShape shape = convTransposeGeometry(p, inDims, outDims);
        auto values = [&](std::size_t k) { return cpu::weightValues(runner.graph_, layer.weights.at(k)); };
        const float* w = runner.constant(values(0), what + ": weights");
        const float* b = p.bias && layer.weights.size() > 1 ? runner.constant(values(1), what + ": bias") : nullptr;
        push([x = x, w, b, y = y, shape, a = a](
                 cudaStream_t s) { return kernels::convTranspose(s, x, w, b, y, shape, a); });
    }
    void operator()(const Lrn& p) const
    {
        if (inDims.size() < 3)
            throw Error(what + ": LRN needs channels and spatial axes");
        kernels::LrnShape s { inDims[0], inDims[1], 1, p.size, p.alpha, p.beta, p.bias };
        for (std::size_t d = 2; d < inDims.size(); ++d)
            s.inner *= inDims[d];
        push([x = x, y = y, s, a = a](cudaStream_t st) { return kernels::lrn(st, x, y, s, a); });
    }
    // A launch per step (recurrent_kernels.h), each reading the step before's rows of the output.
    void operator()(const Recurrent& p) const
    {
        const auto list = operands();
        const RecurrentOperands at = recurrentOperands(p);
        if (list.size() != static_cast<std::size_t>(at.count))
            throw Error(what + ": a recurrent layer needs " + std::to_string(at.count) + " operands");
        const auto data = [&](int k) { return k >= 0 ? list[static_cast<std::size_t>(k)].first : nullptr; };
        const auto& xDims = list.front().second;
        const std::int64_t length = p.batchFirst ? xDims[1] : xDims[0], batch = p.batchFirst ? xDims[0] : xDims[1];
        const std::int64_t h = p.hidden, gh = p.gates() * h;
        // Rows of step t, batch row b: t B + b, or b T + t when batch first.
        const std::int64_t rowOfStep = p.batchFirst ? 1 : batch, batchRows = p.batchFirst ? length : 1;
        const auto scratch = [&](const char* name) {
            runner.constants_.emplace_back(batch * h * static_cast<std::int64_t>(sizeof(float)), what + ": " + name);
            return reinterpret_cast<float*>(runner.constants_.back().data());
        };
        kernels::RecurrentStep base;
        base.cell = p.cell == RecurrentCell::Rnn ? kernels::kCellRnn
            : p.cell == RecurrentCell::Gru       ? kernels::kCellGru
                                                 : kernels::kCellLstm;
        base.hidden = h;
        base.batch = batch;
        base.projectionStride = batchRows * gh;
        base.outStride = batchRows * h;
        base.recurrence = data(at.recurrence);
        base.hiddenBias = data(at.hiddenBias);
        base.peepholes = data(at.peepholes);
        base.initialC = data(at.initialC);
        base.cellState = p.cell == RecurrentCell::Lstm ? scratch("cell state") : nullptr;
        // With c as the output, h alternates between two buffers: a step reads all of the last h
        // while its threads write the new one.
        const bool cellOut = p.cellStates && p.cell == RecurrentCell::Lstm;
        const std::array<float*, 2> hBuffers { cellOut ? scratch("h, even steps") : nullptr,
            cellOut ? scratch("h, odd steps") : nullptr };
        const bool twoPhases = p.cell == RecurrentCell::Gru && !p.linearBeforeReset;
        if (twoPhases) {
            base.update = scratch("update gate");
            base.resetState = scratch("reset state");
        }
        base.f = toAct(p.functions[0]);
        base.g = toAct(p.functions[1]);
        base.h = toAct(p.functions[2]);
        base.clip = p.clip;
        base.inputForget = p.inputForget;
        base.linearBeforeReset = p.linearBeforeReset;
        for (std::int64_t k = 0; k < length; ++k) {
            const std::int64_t t = p.reverse ? length - 1 - k : k;
            kernels::RecurrentStep step = base;
            step.projection = data(at.projection) + t * rowOfStep * gh;
            step.out = y + t * rowOfStep * h;
            step.firstStep = k == 0;
            if (k == 0) {
                step.prevH = data(at.initialH);
                step.prevStride = h;
            } else if (cellOut) {
                step.prevH = hBuffers[static_cast<std::size_t>((k - 1) % 2)];
                step.prevStride = h;
            } else {
                step.prevH = y + (p.reverse ? t + 1 : t - 1) * rowOfStep * h;
                step.prevStride = batchRows * h;
            }
            step.hiddenOut = hBuffers[static_cast<std::size_t>(k % 2)];
            for (int phase = 0; phase < (twoPhases ? 2 : 1); ++phase) {
                step.phase = phase;
                push([step](cudaStream_t s) { return kernels::recurrentStep(s, step); });
            }
        }
        if (a.kind != 0) {
            const std::int64_t n = length * batch * h;
            push([y = y, n, a = a](cudaStream_t s) { return kernels::activation(s, y, y, n, a); });
        }
    }
    void operator()(const Reduce& p) const
    {
        if (p.kind == ReduceKind::TopK) {
            const auto rank = static_cast<std::int64_t>(inDims.size());
            if (p.axes.size() != 1 || p.axes.front() < -rank || p.axes.front() >= rank)
                throw Error(what + ": top-k takes one axis within the rank");
            const auto axis = static_cast<std::size_t>(p.axes.front() < 0 ? p.axes.front() + rank : p.axes.front());
            kernels::TopKShape t;
            for (std::size_t d = 0; d < inDims.size(); ++d)
                (d < axis ? t.outer : d > axis ? t.inner : t.len) *= inDims[d];
            t.k = p.k;
            t.largest = p.largest ? 1 : 0;
            t.indices = p.indices ? 1 : 0;
            push([x = x, y = y, t, a = a](cudaStream_t s) { return kernels::topK(s, x, y, t, a); });
            return;
        }
        kernels::Reduction r = reductionGeometry(p.kind, inDims, p.axes);
        r.selectLast = p.selectLast ? 1 : 0;
        push([x = x, y = y, r, a = a](cudaStream_t s) { return kernels::reduce(s, x, y, r, a); });
    }
    void operator()(const BatchNorm& p) const
    {
        if (inDims.size() < 2)
            throw Error(what + ": batch normalisation needs a channel dimension");
        if (layer.weights.size() != 4)
            throw Error(what + ": batch normalisation needs scale, bias, mean and variance");
        auto w = [&](std::size_t k) { return cpu::weightValues(runner.graph_, layer.weights[k]); };
        const ScaleShift ss = batchNormScaleShift(w(0), w(1), w(2), w(3), p.epsilon);
        const std::int64_t batch = inDims[0], channels = inDims[1];
        if (static_cast<std::int64_t>(ss.scale.size()) != channels)
            throw Error(what + ": " + std::to_string(ss.scale.size()) + " statistics for " + std::to_string(channels)
                + " channels");
        std::int64_t inner = 1;
        for (std::size_t d = 2; d < inDims.size(); ++d)
            inner *= inDims[d];
        const float* scale = runner.constant(ss.scale, what + ": scale");
        const float* shift = runner.constant(ss.shift, what + ": shift");
        push([x = x, y = y, scale, shift, batch, channels, inner, a = a](
                 cudaStream_t s) { return kernels::scaleShift(s, x, y, scale, shift, batch, channels, inner, a); });
    }
    void operator()(const LayerNorm& p) const
    {
        if (layer.weights.empty())
            throw Error(what + ": layer normalisation needs its scale");
        const bool hasBias = p.bias && layer.weights.size() > 1;
        const auto& biasDims = hasBias ? runner.graph_.tensor(layer.weights[1]).shape.dims : outDims;
        const kernels::RowNorm r = rowNormGeometry(
            p, inDims, runner.graph_.tensor(layer.weights[0]).shape.dims, hasBias ? &biasDims : nullptr);
        const float* scale = runner.constant(cpu::weightValues(runner.graph_, layer.weights[0]), what + ": scale");
        const float* bias
            = hasBias ? runner.constant(cpu::weightValues(runner.graph_, layer.weights[1]), what + ": bias") : nullptr;
        push([x = x, y = y, scale, bias, r, a = a](
                 cudaStream_t s) { return kernels::rowNorm(s, x, y, scale, bias, r, a); });
    }
    void operator()(const Gather& p) const
    {
        const auto list = operands();
        kernels::GatherRows g;
        const float* data = nullptr;
        if (p.dataIsWeight) { // the term holds token ids, the weight is the table
            if (list.size() != 2)
                throw Error(what + ": an embedding needs the ids and one table");
            std::int64_t ids = 1;
            for (auto d : list[0].second)
                ids *= d;
            g = gatherGeometry(list[1].second, p.axis, ids, outDims);
            g.ids = list[0].first;
            g.errorCode = runner.gatherErrors_.add(what, g.axisLen);
            g.error = runner.gatherErrors_.slot();
            data = list[1].first;
        } else if (p.elements) { // GatherElements: computed ids (the second term) or constants
            auto e = gatherElementsGeometry(list[0].second, p.axis, list.size() == 2 ? list[1].second : p.indicesDims);
            if (list.size() == 2)
                e.ids = list[1].first;
            else
                e.indices = runner.indexConstant(normalisedGatherIndices(p.indices, e.axisLen), what + ": indices");
            e.errorCode = runner.gatherErrors_.add(what, e.axisLen);
            e.error = runner.gatherErrors_.slot();
            push([data = list[0].first, y = y, e, a = a](
                     cudaStream_t s) { return kernels::gatherElements(s, data, y, e, a); });
            return;
        } else if (list.size() == 2) { // computed indices: the data's slices by the second term's ids
            std::int64_t ids = 1;
            for (auto d : list[1].second)
                ids *= d;
            g = gatherGeometry(list[0].second, p.axis, ids, outDims);
            g.ids = list[1].first;
            g.errorCode = runner.gatherErrors_.add(what, g.axisLen);
            g.error = runner.gatherErrors_.slot();
            data = list[0].first;
        } else {
            if (list.size() != 1)
                throw Error(what + ": a gather with constant indices takes one operand");
            g = gatherGeometry(list[0].second, p.axis, static_cast<std::int64_t>(p.indices.size()), outDims);
            g.indices = runner.indexConstant(normalisedGatherIndices(p.indices, g.axisLen), what + ": indices");
            data = list[0].first;
        }
        push([data, y = y, g, a = a](cudaStream_t s) { return kernels::gatherRows(s, data, y, g, a); });
    }
    void operator()(const Where& p) const
    {
        const auto list = operands();
        std::array<const float*, 3> src {};
        std::array<std::vector<std::int64_t>, 3> dims;
        for (std::size_t k = 0; k < 3; ++k) {
            const auto at = static_cast<std::size_t>(p.operand[k]);
            if (p.operand[k] < 0 || at >= list.size())
                throw Error(what + ": where names operand " + std::to_string(p.operand[k]) + " of "
                    + std::to_string(list.size()));
            src[k] = list[at].first;
            dims[k] = list[at].second;
        }
        kernels::Elementwise e = whereGeometry(dims[0], dims[1], dims[2], outDims);
        for (std::size_t k = 0; k < 3; ++k)
            e.srcs[k] = src[k];
        push([e, y = y, a = a](cudaStream_t s) { return kernels::elementwise(s, e, y, a); });
    }
    template <class T> void operator()(const T&) const { throw Error(what + ": not an imported tensor layer"); }
};

void DeviceRunner::compileTensorLayer(const Op& op, std::size_t i, const float* x,
    const std::vector<std::int64_t>& inDims, float* y, std::vector<Step>& steps)
{
    const Layer& layer = op.layers[i];
    const std::string what = "op '" + op.name + "' layer " + std::to_string(i) + " (" + layer.kindName() + ")";
    const TensorLayerSteps build { *this, op, layer, what, x, inDims, y, layer.output.dims, toAct(layer.activation),
        steps };
    std::visit(build, layer.params);
}

} // namespace opsched::gpu
