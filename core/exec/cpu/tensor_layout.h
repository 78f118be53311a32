// Where every tensor of a plan lives in the CPU executor's arena. Activations are float32 with
// NCHW dimensions, their bytes NCHW or channels-last (exec/cpu/channels_last.h; same size). A value is a root block in
// the arena or lives inside another value: a channel slice of a concatenation (its producer writes straight into the
// concat output), a channel slice of a merged launch's stacked output, or a view with other dimensions (reshape,
// flatten, identity). Slices are taken only at batch 1 and in NCHW, where they are contiguous; at larger batches a
// slice would be strided and oneDNN would fall back to reference kernels, so concats and merged outputs copy.
//
// Time steps: 0 copies the graph inputs in, launch i runs at step i + 1, and the step after the
// last launch copies the outputs out. A root block is live from the first step any value inside
// it is written to the last step one is read; roots live at the same time never share bytes. When
// streams run concurrently (LayoutOptions::concurrent), roots share bytes only when the plan
// orders every access of one before every access of the other.
#pragma once

#include "exec/cpu/conv_epilogue.h"
#include "exec/cpu/memory_plan.h"
#include "graph/graph.h"
#include "plan/plan.h"

#include <cstdint>
#include <string>
#include <vector>

namespace opsched::cpu {

// Layers that move no data: reshape and flatten, identities and empty eltwises without an
// activation, and a Multiply of a single operand.
bool isNoopLayer(const Op& op, std::size_t layerIndex);
// The op's first layer is a Multiply over more than one term (a product, not a sum/concat).
bool multipliesTerms(const Op& op);
// The op's first layer reads its terms as separate tensors: a Multiply of several terms, or an
// operand layer (Binary, MatMul, Concat; see Layer::takesOperands). Nothing is combined first.
bool readsOperands(const Op& op);
// Dimensions of the tensor fed to the op's first layer: terms summed, then concatenated along
// channels; for a product of terms, their broadcast shape; for an operand layer, its first operand.
std::vector<std::int64_t> combinedInputDims(const Graph& graph, const Op& op);
std::int64_t denseBytes(const std::vector<std::int64_t>& dims);
// An average pool counting padding in ceil mode whose last window runs past the padding: it runs
// over an explicitly zero-padded copy of its input (these dims), so that the part of the window
// past the padding is not counted (PyTorch and ONNX semantics). Empty when not needed.
std::vector<std::int64_t> paddedPoolInputDims(const Layer& layer, const std::vector<std::int64_t>& inputDims);

struct Value {
    std::string name;
    std::vector<std::int64_t> dims;
    TensorId tensor; // the graph tensor it holds; invalid for internal buffers
    int parent = -1; // value whose bytes it lives in; -1 for a root block
    std::int64_t offset = 0; // bytes from the parent's first byte
    bool view = false; // the parent's bytes under other dimensions (a noop layer)
    bool channelsLast = false; // NHWC bytes (4-D values whose layout matters only)
    std::uint32_t first = 0; // steps it is written and read (inclusive)
    std::uint32_t last = 0;
    // Filled once every value is placed:
    int root = -1; // the root value whose block holds it
    std::int64_t arenaOffset = 0;

    std::int64_t bytes() const { return denseBytes(dims); }
};

struct OpLayout {
    int input = -1; // value the first layer reads; -1 when it reads operands
    std::vector<std::int64_t> inputDims;
    bool combine = false; // this op sums/concatenates its terms into `input`
    std::vector<int> layers; // per layer: the value it writes (noop layers: a view)
    std::vector<int> scratch; // per layer: a scratch buffer, or -1
};

struct LaunchLayout {
    int stack = -1; // merged launch: the stacked conv output
    std::vector<OpId> stackOrder; // the ops in stacked channel order
    std::vector<std::int64_t> channelOffsets; // of each op in stackOrder
    bool outputsAreSlices = false; // outputs are views into the stack; else copies
};

struct LayoutOptions {
    bool channelsLast = true; // false: every activation NCHW (exec/cpu/channels_last.h)
    bool fuseEpilogues = true; // fold residual sums and swish into convolutions (conv_epilogue.h)
    // The plan's streams run at the same time (partitioned execution): two blocks share bytes
    // only when every launch touching one happens before every launch touching the other
    // (launchHappensBefore), not merely when their step intervals are disjoint.
    bool concurrent = false;
};

class TensorLayout {
public:
    // Throws Error when the plan is not valid for the graph.
    TensorLayout(const Graph& graph, const Plan& plan, LayoutOptions options = {});

    const std::vector<Value>& values() const { return values_; }
    int valueOf(TensorId tensor) const { return valueOf_[tensor.value()]; }
    const OpLayout& op(OpId id) const { return ops_[id.value()]; }
    const LaunchLayout& launch(std::size_t index) const { return launches_[index]; }
    std::uint32_t launchStep(std::size_t index) const { return static_cast<std::uint32_t>(index + 1); }
    std::uint32_t outputStep() const { return static_cast<std::uint32_t>(launches_.size() + 1); }

    // The epilogue a convolution op runs, or null; absorbed ops run nothing (their output is
    // written by the convolution's launch).
    const ConvEpilogue* epilogue(OpId conv) const;
    bool absorbed(OpId id) const { return absorbed_[id.value()]; }
    // The op is a transpose between NHWC and NCHW that the layouts make a view (relayoutView).
    bool layoutView(OpId id) const { return layoutView_[id.value()]; }
    const std::vector<ConvEpilogue>& epilogues() const { return epilogues_; }

    const std::vector<Block>& blocks() const { return blocks_; }
    const Placement& placement() const { return placement_; }
    std::int64_t peakBytes() const { return placement_.peakBytes; }
    // All activations and inputs side by side, as if nothing were reused.
    std::int64_t activationBytes() const { return activationBytes_; }

    // Broken invariants, empty when sound: two values live at the same step that share bytes
    // without one being a view of the other, values outside their block, overlapping blocks.
    std::vector<std::string> check() const;

private:
    int addValue(std::string name, std::vector<std::int64_t> dims, std::uint32_t step);
    void setParent(int child, int parent, std::int64_t offset);
    // The constructor's steps, in the order it takes them (each relies on the ones before).
    void addTensorValues(const Graph& graph, const std::vector<bool>& cl, const std::vector<std::uint32_t>& stepOf);
    void addMergedStacks(const Graph& graph, const Plan& plan);
    void assignInputs(const Graph& graph, const Plan& plan, const std::vector<bool>& cl);
    void assignLayerValues(const Graph& graph, const Op& op, const std::vector<bool>& cl, std::uint32_t step);
    void sliceIntoConcat(
        const Graph& graph, OpId id, const std::vector<bool>& owning, const std::vector<std::size_t>& launchOf);
    void placeRoots(const Graph& graph, const Plan& plan, bool concurrent);

    std::vector<Value> values_;
    std::vector<int> valueOf_;
    std::vector<OpLayout> ops_;
    std::vector<LaunchLayout> launches_;
    std::vector<ConvEpilogue> epilogues_;
    std::vector<int> epilogueOf_; // per op: index into epilogues_, or -1
    std::vector<bool> absorbed_;
    std::vector<bool> layoutView_;
    std::vector<int> stackOfOp_; // merged launches whose outputs are slices: the stack value
    std::vector<Block> blocks_;
    std::vector<int> blockOfRoot_;
    Placement placement_;
    std::int64_t activationBytes_ = 0;
};

} // namespace opsched::cpu
