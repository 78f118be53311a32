#include "exec/cuda/gpu_memory_plan.h"

#include "exec/cpu/memory_plan.h"

namespace opsched::gpu {

GpuMemoryPlan::GpuMemoryPlan(const Graph& graph, const Plan& plan, const cpu::TensorLayout& layout, ArenaReuse reuse)
    : layout_(layout)
    , before_(launchHappensBefore(plan))
{
    const std::size_t m = plan.launches.size();
    std::vector<std::uint32_t> launchOf(graph.opCount());
    for (std::size_t i = 0; i < m; ++i)
        for (auto id : plan.launches[i].ops)
            launchOf[id.value()] = static_cast<std::uint32_t>(i);

    const auto& values = layout.values();
    touches_.assign(values.size(), Touches { DynamicBitset(m) });
    for (std::size_t v = 0; v < values.size(); ++v) {
        const cpu::Value& value = values[v];
        Touches& t = touches_[v];
        if (!value.tensor.valid()) {
            // Internal buffers (combined inputs, stacks, intermediates) live inside one launch.
            t.launches.set(value.first - 1);
            continue;
        }
        const Tensor& tensor = graph.tensor(value.tensor);
        if (tensor.producer.valid())
            t.launches.set(launchOf[tensor.producer.value()]);
        else
            t.beforeAll = true;
        for (auto c : graph.consumers(tensor.id))
            t.launches.set(launchOf[c.value()]);
        t.afterAll = value.last == layout.outputStep();
    }

    // Root blocks and what touches anything inside them.
    std::vector<int> blockOf(values.size(), -1);
    std::vector<Touches> blockTouches;
    std::vector<std::int64_t> bytes;
    offsets_.assign(values.size(), 0);
    for (std::size_t v = 0; v < values.size(); ++v) {
        std::size_t r = v;
        std::int64_t within = 0;
        while (values[r].parent >= 0) {
            within += values[r].offset;
            r = static_cast<std::size_t>(values[r].parent);
        }
        offsets_[v] = within;
        if (blockOf[r] < 0) {
            blockOf[r] = static_cast<int>(roots_.size());
            roots_.push_back(static_cast<int>(r));
            blockTouches.push_back(Touches { DynamicBitset(m) });
            bytes.push_back(values[r].bytes());
        }
        Touches& bt = blockTouches[static_cast<std::size_t>(blockOf[r])];
        bt.launches |= touches_[v].launches;
        bt.beforeAll = bt.beforeAll || touches_[v].beforeAll;
        bt.afterAll = bt.afterAll || touches_[v].afterAll;
        blockOf[v] = blockOf[r];
    }

    const cpu::Placement placement = cpu::placeBlocks(bytes, [&](std::size_t i, std::size_t j) {
        return reuse == ArenaReuse::Never
            || (!ordered(blockTouches[i], blockTouches[j]) && !ordered(blockTouches[j], blockTouches[i]));
    });
    arenaBytes_ = placement.peakBytes;
    for (std::size_t v = 0; v < values.size(); ++v)
        offsets_[v] += placement.offsets[static_cast<std::size_t>(blockOf[v])];
}

bool GpuMemoryPlan::ordered(const Touches& a, const Touches& b) const
{
    if (a.afterAll || b.beforeAll)
        return false;
    const std::size_t m = a.launches.size();
    for (std::size_t j = 0; j < m; ++j) {
        if (!b.launches.test(j))
            continue;
        DynamicBitset outside = a.launches;
        if (outside.subtract(before_[j]).any())
            return false;
    }
    return true;
}

std::vector<std::string> GpuMemoryPlan::conflicts() const
{
    std::vector<std::string> problems;
    const auto& values = layout_.values();
    const std::size_t n = values.size();
    // A view or a slice lives inside its parent by construction; compare what views stand for.
    auto inside = [&](std::size_t a, std::size_t b) {
        for (std::size_t x = a;; x = static_cast<std::size_t>(values[x].parent)) {
            if (x == b)
                return true;
            if (values[x].parent < 0)
                return false;
        }
    };
    // A view's uses are uses of the bytes it stands for: fold them into the value it views.
    std::vector<Touches> uses(touches_);
    for (std::size_t v = 0; v < n; ++v) {
        std::size_t o = v;
        while (values[o].view)
            o = static_cast<std::size_t>(values[o].parent);
        if (o != v) {
            uses[o].launches |= touches_[v].launches;
            uses[o].beforeAll = uses[o].beforeAll || touches_[v].beforeAll;
            uses[o].afterAll = uses[o].afterAll || touches_[v].afterAll;
        }
    }
    for (std::size_t a = 0; a < n; ++a)
        for (std::size_t b = a + 1; b < n; ++b) {
            if (values[a].view || values[b].view)
                continue; // checked through what they view
            const std::int64_t a0 = offsets_[a], a1 = a0 + values[a].bytes();
            const std::int64_t b0 = offsets_[b], b1 = b0 + values[b].bytes();
            if (a1 <= b0 || b1 <= a0 || inside(a, b) || inside(b, a))
                continue;
            if (ordered(uses[a], uses[b]) || ordered(uses[b], uses[a]))
                continue;
            problems.push_back(
                "'" + values[a].name + "' and '" + values[b].name + "' share bytes and may be in use at the same time");
        }
    for (std::size_t v = 0; v < n; ++v)
        if (offsets_[v] < 0 || offsets_[v] + values[v].bytes() > arenaBytes_)
            problems.push_back("'" + values[v].name + "' lies outside the arena");
    return problems;
}

} // namespace opsched::gpu
