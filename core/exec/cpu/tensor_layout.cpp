#include "exec/cpu/tensor_layout.h"

#include "exec/cpu/channels_last.h"
#include "exec/cpu/merged_conv.h"
#include "exec/cpu/merged_gemm.h"
#include "util/error.h"

#include <algorithm>
#include <limits>

namespace opsched::cpu {

bool isNoopLayer(const Op& op, std::size_t layerIndex)
{
    const Layer& layer = op.layers[layerIndex];
    if (layer.activation.kind != ActivationKind::None)
        return false;
    if (std::holds_alternative<Flatten>(layer.params) || std::holds_alternative<Reshape>(layer.params)
        || std::holds_alternative<Identity>(layer.params))
        return true;
    if (const auto* e = std::get_if<Eltwise>(&layer.params))
        return e->activation.kind == ActivationKind::None;
    if (std::holds_alternative<Multiply>(layer.params))
        return layerIndex > 0 || op.inputs.size() < 2;
    return false;
}

bool multipliesTerms(const Op& op)
{
    return std::holds_alternative<Multiply>(op.layers.front().params) && op.inputs.size() > 1;
}

bool readsOperands(const Op& op)
{
    return multipliesTerms(op) || op.layers.front().takesOperands();
}

std::vector<std::int64_t> combinedInputDims(const Graph& graph, const Op& op)
{
    std::vector<std::int64_t> dims = graph.tensor(op.inputs.front().front()).shape.dims;
    if (op.layers.front().takesOperands())
        return dims; // the first operand; the layer reads every term itself
    if (std::holds_alternative<Multiply>(op.layers.front().params)) {
        for (const auto& term : op.inputs) {
            const auto& d = graph.tensor(term.front()).shape.dims;
            if (d.size() > dims.size())
                dims.insert(dims.begin(), d.size() - dims.size(), 1);
            for (std::size_t i = 0; i < d.size(); ++i) {
                auto& out = dims[dims.size() - d.size() + i];
                out = std::max(out, d[i]);
            }
        }
        return dims;
    }
    if (op.inputs.size() > 1 && dims.size() > 1) {
        dims[1] = 0;
        for (const auto& term : op.inputs)
            dims[1] += graph.tensor(term.front()).shape.channels();
    }
    return dims;
}

std::int64_t denseBytes(const std::vector<std::int64_t>& dims)
{
    std::int64_t n = 4; // float32
    for (auto d : dims)
        n *= d;
    return n;
}

std::vector<std::int64_t> paddedPoolInputDims(const Layer& layer, const std::vector<std::int64_t>& in)
{
    const auto* p = std::get_if<Pool2d>(&layer.params);
    if (!p || p->kind != PoolKind::Average || !p->countIncludePad || !p->ceilMode || in.size() != 4
        || layer.output.rank() != 4)
        return {};
    const bool pastH = (layer.output[2] - 1) * p->strideH + p->kernelH > in[2] + p->padTop + p->padBottom;
    const bool pastW = (layer.output[3] - 1) * p->strideW + p->kernelW > in[3] + p->padLeft + p->padRight;
    if (!pastH && !pastW)
        return {};
    return { in[0], in[1], in[2] + p->padTop + p->padBottom, in[3] + p->padLeft + p->padRight };
}

namespace {

// The layout the op's inputs agree on (channelsLastTensors makes them agree).
bool inputChannelsLast(const Graph& graph, const Op& op, const std::vector<bool>& cl)
{
    for (auto t : op.inputTensors())
        if (cl[t.value()] && layoutMatters(graph.tensor(t).shape.dims))
            return true;
    return false;
}

bool needsCombine(const Op& op)
{
    return !readsOperands(op) && (op.inputs.size() > 1 || op.inputs.front().size() > 1);
}

bool allNoop(const Op& op)
{
    for (std::size_t i = 0; i < op.layers.size(); ++i)
        if (!isNoopLayer(op, i))
            return false;
    return true;
}

// Same dimensions apart from channels (axis 1): a slice of the other along channels.
bool sameOutsideChannels(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b)
{
    if (a.size() != b.size() || a.size() < 2)
        return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (i != 1 && a[i] != b[i])
            return false;
    return true;
}

} // namespace

int TensorLayout::addValue(std::string name, std::vector<std::int64_t> dims, std::uint32_t step)
{
    Value v;
    v.name = std::move(name);
    v.dims = std::move(dims);
    v.first = v.last = step;
    values_.push_back(std::move(v));
    return static_cast<int>(values_.size() - 1);
}

void TensorLayout::setParent(int child, int parent, std::int64_t offset)
{
    values_[static_cast<std::size_t>(child)].parent = parent;
    values_[static_cast<std::size_t>(child)].offset = offset;
}

const ConvEpilogue* TensorLayout::epilogue(OpId conv) const
{
    const int e = epilogueOf_[conv.value()];
    return e < 0 ? nullptr : &epilogues_[static_cast<std::size_t>(e)];
}

TensorLayout::TensorLayout(const Graph& graph, const Plan& plan, LayoutOptions options)
{
    if (auto problems = validate(graph, plan); !problems.empty())
        throw Error("the plan does not fit " + graph.name() + ": " + problems.front());
    const std::vector<bool> cl = channelsLastTensors(graph, plan, options.channelsLast);
    epilogues_ = convEpilogues(graph, plan, options.fuseEpilogues);
    epilogueOf_.assign(graph.opCount(), -1);
    absorbed_.assign(graph.opCount(), false);
    for (std::size_t e = 0; e < epilogues_.size(); ++e) {
        epilogueOf_[epilogues_[e].conv.value()] = static_cast<int>(e);
        for (auto a : epilogues_[e].absorbed)
            absorbed_[a.value()] = true;
    }
    const std::size_t nOps = graph.opCount();
    std::vector<std::uint32_t> stepOf(nOps);
    std::vector<std::size_t> launchOf(nOps);
    for (std::size_t i = 0; i < plan.launches.size(); ++i)
        for (auto id : plan.launches[i].ops) {
            stepOf[id.value()] = launchStep(i);
            launchOf[id.value()] = i;
        }
    ops_.resize(nOps);
    launches_.resize(plan.launches.size());
    stackOfOp_.assign(nOps, -1);

    layoutView_.assign(nOps, false);
    for (const auto& op : graph.ops())
        layoutView_[op.id.value()] = relayoutView(graph, op, cl);
    addTensorValues(graph, cl, stepOf);

    // Ops that write their own output buffer, which may then live inside a concat's output.
    std::vector<bool> owning(nOps);
    for (const auto& op : graph.ops())
        owning[op.id.value()] = plan.launches[launchOf[op.id.value()]].merged() || (needsCombine(op) && allNoop(op))
            || !(isNoopLayer(op, op.layers.size() - 1) || layoutView_[op.id.value()]);

    addMergedStacks(graph, plan);
    assignInputs(graph, plan, cl);
    for (const auto& op : graph.ops())
        if (ops_[op.id.value()].combine)
            sliceIntoConcat(graph, op.id, owning, launchOf);
    for (const auto& op : graph.ops())
        assignLayerValues(graph, op, cl, stepOf[op.id.value()]);
    placeRoots(graph, plan, options.concurrent);
}

void TensorLayout::addTensorValues(
    const Graph& graph, const std::vector<bool>& cl, const std::vector<std::uint32_t>& stepOf)
{
    // Graph tensors, live from their producer's launch to their last consumer's.
    valueOf_.assign(graph.tensors().size(), -1);
    for (const auto& t : graph.tensors()) {
        if (t.role == TensorRole::Weight)
            continue;
        const std::uint32_t born = t.producer.valid() ? stepOf[t.producer.value()] : 0;
        const int v = addValue(t.name, t.shape.dims, born);
        values_[static_cast<std::size_t>(v)].tensor = t.id;
        values_[static_cast<std::size_t>(v)].channelsLast = cl[t.id.value()];
        for (auto c : graph.consumers(t.id))
            values_[static_cast<std::size_t>(v)].last
                = std::max(values_[static_cast<std::size_t>(v)].last, stepOf[c.value()]);
        valueOf_[t.id.value()] = v;
        activationBytes_ += t.shape.elements() * 4;
    }
    for (auto t : graph.outputs())
        values_[static_cast<std::size_t>(valueOf(t))].last = outputStep();
    // A folded epilogue's output is written, and its residual read, by the convolution's launch.
    for (const auto& e : epilogues_) {
        const std::uint32_t step = stepOf[e.conv.value()];
        Value& out = values_[static_cast<std::size_t>(valueOf(e.output))];
        out.first = std::min(out.first, step);
        if (e.addend.valid()) {
            Value& r = values_[static_cast<std::size_t>(valueOf(e.addend))];
            r.last = std::max(r.last, step);
        }
    }
}

void TensorLayout::addMergedStacks(const Graph& graph, const Plan& plan)
{
    // Merged launches: one stacked output; at batch 1 the ops' outputs are its channel slices.
    for (std::size_t i = 0; i < plan.launches.size(); ++i) {
        const auto& ops = plan.launches[i].ops;
        if (const auto gemm = ops.size() > 1 ? mergedGemmGeometry(graph, ops) : std::nullopt) {
            // Column blocks are strided: the launch copies each op's block out of the stack.
            LaunchLayout& ll = launches_[i];
            ll.stack = addValue(graph.op(ops.front()).name + ":merged", gemm->outDims, launchStep(i));
            ll.stackOrder = ops;
            std::int64_t c0 = 0;
            for (auto n : gemm->columns) {
                ll.channelOffsets.push_back(c0);
                c0 += n;
            }
            continue;
        }
        const auto geometry = ops.size() > 1 ? mergedConvGeometry(graph, ops) : std::nullopt;
        if (!geometry)
            continue;
        LaunchLayout& ll = launches_[i];
        const std::int64_t batch = graph.tensor(graph.op(ops.front()).output).shape.batch();
        ll.stack = addValue(graph.op(ops.front()).name + ":merged",
            { batch, geometry->outChannels, geometry->outH, geometry->outW }, launchStep(i));
        ll.stackOrder = ops;
        ll.outputsAreSlices = batch == 1;
        std::int64_t c0 = 0;
        for (auto id : ops) {
            ll.channelOffsets.push_back(c0);
            if (ll.outputsAreSlices) {
                setParent(valueOf(graph.op(id).output), ll.stack, c0 * geometry->outH * geometry->outW * 4);
                stackOfOp_[id.value()] = ll.stack;
            }
            c0 += graph.tensor(graph.op(id).output).shape.channels();
        }
    }
}

void TensorLayout::assignInputs(const Graph& graph, const Plan& plan, const std::vector<bool>& cl)
{
    // The input each op's first layer reads. Merged ops read one input, combined once.
    for (std::size_t i = 0; i < plan.launches.size(); ++i) {
        int shared = -1;
        for (auto id : plan.launches[i].ops) {
            const Op& op = graph.op(id);
            OpLayout& ol = ops_[id.value()];
            ol.inputDims = combinedInputDims(graph, op);
            if (readsOperands(op)) {
                ol.input = -1;
            } else if (!needsCombine(op)) {
                ol.input = valueOf(op.inputs.front().front());
            } else if (shared < 0) {
                ol.combine = true;
                ol.input = allNoop(op) ? valueOf(op.output) : addValue(op.name + ":input", ol.inputDims, launchStep(i));
                values_[static_cast<std::size_t>(ol.input)].channelsLast
                    = inputChannelsLast(graph, op, cl) && layoutMatters(ol.inputDims);
                shared = ol.input;
            } else {
                ol.input = shared;
            }
        }
    }
}

void TensorLayout::assignLayerValues(const Graph& graph, const Op& op, const std::vector<bool>& cl, std::uint32_t step)
{
    // What each layer writes: the op's output for the last, scratch values in between; noop
    // layers view their input.
    OpLayout& ol = ops_[op.id.value()];
    const std::size_t n = op.layers.size();
    ol.layers.assign(n, -1);
    ol.scratch.assign(n, -1);
    if (ol.combine && allNoop(op)) {
        ol.layers.assign(n, ol.input);
        return;
    }
    int cur = ol.input;
    std::vector<std::int64_t> curDims = ol.inputDims;
    const std::size_t conv = firstConvLayer(op);
    const bool inCl = inputChannelsLast(graph, op, cl);
    // A view under other dims after the convolution (a 1-D convolution's [N, C, 1, W] seen as
    // [N, C, W]) reads the bytes in NCHW order: everything from the convolution on is NCHW then.
    bool reshapedAfterConv = false;
    for (std::size_t i = conv + 1; i < n; ++i)
        reshapedAfterConv
            = reshapedAfterConv || (isNoopLayer(op, i) && op.layers[i].output.dims != op.layers[i - 1].output.dims);
    const bool outCl = layoutMatters(graph.tensor(op.output).shape.dims) ? cl[op.output.value()]
                                                                         : (conv < n || inCl) && !reshapedAfterConv;
    for (std::size_t i = 0; i < n; ++i) {
        const Layer& layer = op.layers[i];
        const bool last = i + 1 == n;
        int v = last ? valueOf(op.output) : -1;
        auto internal = [&] {
            const int w = addValue(op.name + ":" + std::to_string(i), layer.output.dims, step);
            values_[static_cast<std::size_t>(w)].channelsLast
                = (i < conv ? inCl : outCl) && layoutMatters(layer.output.dims);
            return w;
        };
        if (isNoopLayer(op, i) || layoutView_[op.id.value()]) {
            if (!last)
                v = internal();
            setParent(v, cur, 0);
            values_[static_cast<std::size_t>(v)].view = true;
        } else {
            if (!last)
                v = internal();
            if (auto padded = paddedPoolInputDims(layer, curDims); !padded.empty())
                ol.scratch[i] = addValue(op.name + ":" + std::to_string(i) + ":padded", padded, step);
        }
        ol.layers[i] = cur = v;
        curDims = layer.output.dims;
    }
}

void TensorLayout::sliceIntoConcat(
    const Graph& graph, OpId id, const std::vector<bool>& owning, const std::vector<std::size_t>& launchOf)
{
    const Op& op = graph.op(id);
    const OpLayout& ol = ops_[id.value()];
    const int concat = ol.input;
    const auto& dims = ol.inputDims;
    if (dims.size() < 2 || dims[0] != 1 || values_[static_cast<std::size_t>(concat)].channelsLast)
        return; // a slice of a batch > 1 or of channels-last bytes is strided
    std::int64_t inner = 4;
    for (std::size_t i = 2; i < dims.size(); ++i)
        inner *= dims[i];
    std::vector<std::int64_t> channelOf(op.inputs.size() + 1, 0);
    for (std::size_t k = 0; k < op.inputs.size(); ++k)
        channelOf[k + 1] = channelOf[k] + graph.tensor(op.inputs[k].front()).shape.channels();

    auto candidate = [&](std::size_t k) -> int {
        if (op.inputs[k].size() != 1)
            return -1;
        const Tensor& t = graph.tensor(op.inputs[k].front());
        const int v = valueOf(t.id);
        if (!t.producer.valid() || !owning[t.producer.value()] || v == concat
            || values_[static_cast<std::size_t>(v)].channelsLast
            || !sameOutsideChannels(values_[static_cast<std::size_t>(v)].dims, dims))
            return -1;
        return v;
    };
    for (std::size_t k = 0; k < op.inputs.size(); ++k) {
        const int v = candidate(k);
        if (v < 0)
            continue;
        Value& value = values_[static_cast<std::size_t>(v)];
        if (value.parent < 0) {
            setParent(v, concat, channelOf[k] * inner);
            continue;
        }
        // A merged launch's stack fits when its ops' outputs are the next terms, in any order.
        const OpId producer = graph.tensor(value.tensor).producer;
        const int stack = stackOfOp_[producer.value()];
        if (stack < 0 || value.parent != stack || values_[static_cast<std::size_t>(stack)].parent >= 0)
            continue;
        LaunchLayout& ll = launches_[launchOf[producer.value()]];
        const std::size_t m = ll.stackOrder.size();
        if (k + m > op.inputs.size())
            continue;
        std::vector<OpId> order;
        for (std::size_t j = k; j < k + m; ++j) {
            const int w = candidate(j);
            if (w < 0 || values_[static_cast<std::size_t>(w)].parent != stack)
                break;
            const OpId p = graph.tensor(values_[static_cast<std::size_t>(w)].tensor).producer;
            if (std::find(order.begin(), order.end(), p) != order.end())
                break;
            order.push_back(p);
        }
        if (order.size() != m)
            continue;
        ll.stackOrder = order;
        for (std::size_t j = 0; j < m; ++j) {
            ll.channelOffsets[j] = channelOf[k + j] - channelOf[k];
            setParent(valueOf(graph.op(order[j]).output), stack, ll.channelOffsets[j] * inner);
        }
        setParent(stack, concat, channelOf[k] * inner);
        k += m - 1;
    }
}

void TensorLayout::placeRoots(const Graph& graph, const Plan& plan, bool concurrent)
{
    // Roots and offsets within them; a root block is live whenever anything inside it is.
    blocks_.clear();
    blockOfRoot_.assign(values_.size(), -1);
    for (std::size_t v = 0; v < values_.size(); ++v) {
        std::int64_t offset = 0;
        std::size_t r = v;
        while (values_[r].parent >= 0) {
            offset += values_[r].offset;
            r = static_cast<std::size_t>(values_[r].parent);
        }
        values_[v].root = static_cast<int>(r);
        values_[v].arenaOffset = offset;
        if (blockOfRoot_[r] < 0) {
            blockOfRoot_[r] = static_cast<int>(blocks_.size());
            blocks_.push_back(Block { values_[r].bytes(), values_[v].first, values_[v].last });
        }
        Block& b = blocks_[static_cast<std::size_t>(blockOfRoot_[r])];
        b.first = std::min(b.first, values_[v].first);
        b.last = std::max(b.last, values_[v].last);
    }
    if (!concurrent) {
        placement_ = placeBlocks(blocks_);
    } else {
        // The steps each block is touched at: a graph tensor by its producer (or the input copy),
        // its consumers, a convolution folding it in, the output copy; other values at their steps.
        std::vector<std::uint32_t> stepOf(graph.opCount());
        for (std::size_t i = 0; i < plan.launches.size(); ++i)
            for (auto id : plan.launches[i].ops)
                stepOf[id.value()] = launchStep(i);
        std::vector<std::vector<std::uint32_t>> touched(blocks_.size());
        for (const auto& v : values_) {
            auto& t = touched[static_cast<std::size_t>(blockOfRoot_[static_cast<std::size_t>(v.root)])];
            t.push_back(v.first);
            t.push_back(v.last);
            if (!v.tensor.valid())
                continue;
            for (auto c : graph.consumers(v.tensor))
                t.push_back(stepOf[c.value()]);
        }
        for (const auto& e : epilogues_) {
            touched[static_cast<std::size_t>(blockOfRoot_[static_cast<std::size_t>(
                        values_[static_cast<std::size_t>(valueOf(e.output))].root)])]
                .push_back(stepOf[e.conv.value()]);
            if (e.addend.valid())
                touched[static_cast<std::size_t>(blockOfRoot_[static_cast<std::size_t>(
                            values_[static_cast<std::size_t>(valueOf(e.addend))].root)])]
                    .push_back(stepOf[e.conv.value()]);
        }
        const auto before = launchHappensBefore(plan);
        const std::uint32_t out = outputStep();
        auto stepBefore = [&](std::uint32_t a, std::uint32_t b) {
            if (a == b)
                return false;
            if (a == 0 || b == out)
                return true;
            if (b == 0 || a == out)
                return false;
            return before[b - 1].test(a - 1);
        };
        auto allBefore = [&](std::size_t x, std::size_t y) {
            for (auto b : touched[y])
                for (auto a : touched[x])
                    if (!stepBefore(a, b))
                        return false;
            return true;
        };
        for (auto& t : touched) {
            std::sort(t.begin(), t.end());
            t.erase(std::unique(t.begin(), t.end()), t.end());
        }
        std::vector<std::int64_t> bytes;
        for (const auto& b : blocks_)
            bytes.push_back(b.bytes);
        placement_
            = placeBlocks(bytes, [&](std::size_t x, std::size_t y) { return !allBefore(x, y) && !allBefore(y, x); });
    }
    for (auto& v : values_)
        v.arenaOffset += placement_.offsets[static_cast<std::size_t>(blockOfRoot_[static_cast<std::size_t>(v.root)])];
}

std::vector<std::string> TensorLayout::check() const
{
    std::vector<std::string> problems = placementConflicts(blocks_, placement_);
    const std::size_t n = values_.size();
    // A view shares its source's bytes; compare what views stand for.
    std::vector<std::size_t> owner(n);
    for (std::size_t v = 0; v < n; ++v) {
        std::size_t o = v;
        while (values_[o].view)
            o = static_cast<std::size_t>(values_[o].parent);
        owner[v] = o;
    }
    auto inside = [&](std::size_t a, std::size_t b) { // a lives inside b's bytes by construction
        for (std::size_t x = a;; x = static_cast<std::size_t>(values_[x].parent)) {
            if (x == b)
                return true;
            if (values_[x].parent < 0)
                return false;
        }
    };
    for (std::size_t a = 0; a < n; ++a) {
        const Value& va = values_[a];
        const auto& block = blocks_[static_cast<std::size_t>(blockOfRoot_[static_cast<std::size_t>(va.root)])];
        const std::int64_t start
            = placement_.offsets[static_cast<std::size_t>(blockOfRoot_[static_cast<std::size_t>(va.root)])];
        if (va.arenaOffset < start || va.arenaOffset + va.bytes() > start + block.bytes)
            problems.push_back("'" + va.name + "' lies outside its block");
        if (va.first < block.first || va.last > block.last)
            problems.push_back("'" + va.name + "' lives outside its block's lifetime");
        for (std::size_t b = a + 1; b < n; ++b) {
            const Value& vb = values_[b];
            if (va.first > vb.last || vb.first > va.last)
                continue;
            if (va.arenaOffset >= vb.arenaOffset + vb.bytes() || vb.arenaOffset >= va.arenaOffset + va.bytes())
                continue;
            if (inside(owner[a], owner[b]) || inside(owner[b], owner[a]))
                continue;
            problems.push_back("'" + va.name + "' and '" + vb.name + "' are live at the same step and share bytes");
        }
    }
    return problems;
}

} // namespace opsched::cpu
