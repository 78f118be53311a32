// Small hand-made timelines the engine's analysis tests and the views' model tests share.
#pragma once

#include "engine/timeline/timeline_data.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace opsched::test {

inline constexpr double us = 1e-6;

// Two streams with kernel rows:
//   stream 0: ops [0,10) [10,20) and a merged launch of two ops [30,40) twice; kernels inside
//   stream 1: op [5,25); kernels [5,15) [15,25)
// warps: 0 until 0, 100 on [0,10), 300 on [10,20), 50 on [20,40), 0 after.
inline std::shared_ptr<TimelineData> twoStreamTimeline()
{
    auto d = std::make_shared<TimelineData>();
    StreamRowsBuilder rows(*d, { 0, 1 });
    rows.addOp(0, 0 * us, 10 * us, 0, 0);
    rows.addOp(0, 10 * us, 20 * us, 1, 0);
    rows.addOp(0, 30 * us, 40 * us, 2, 0);
    rows.addOp(0, 30 * us, 40 * us, 3, 0); // merged with op 2
    rows.addKernel(0, 0 * us, 10 * us, 0, { "conv", 0, 64, {} });
    rows.addKernel(0, 10 * us, 20 * us, 0, { "conv", 1, 64, {} });
    rows.addKernel(0, 30 * us, 40 * us, 0, { "merged", 2, 64, {} });
    rows.addOp(1, 5 * us, 25 * us, 4, 1);
    rows.addKernel(1, 5 * us, 15 * us, 1, { "gemm", 4, 32, {} });
    rows.addKernel(1, 15 * us, 25 * us, 1, { "relu", 4, 32, {} });
    d->rows.finish();
    d->warps = { { 0 * us, 100 }, { 10 * us, 300 }, { 20 * us, 50 }, { 40 * us, 0 } };
    d->latency = 40 * us;
    return d;
}

struct SampleOp {
    std::uint32_t id;
    std::int64_t stream;
    double start, end; // us
};

// Ops only, on the given streams; the latency is the last end.
inline std::shared_ptr<TimelineData> opTimeline(const std::vector<SampleOp>& ops, std::vector<std::int64_t> streams)
{
    auto d = std::make_shared<TimelineData>();
    StreamRowsBuilder rows(*d, std::move(streams));
    for (const SampleOp& op : ops)
        rows.addOp(op.stream, op.start * us, op.end * us, op.id, 0);
    d->rows.finish();
    d->latency = d->rows.lastEnd();
    return d;
}

} // namespace opsched::test
