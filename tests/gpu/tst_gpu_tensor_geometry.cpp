// Host side of the CUDA kernels for imported layers (exec/cuda/tensor_op_geometry.h): the kernel
// descriptions are run here by a plain host interpreter of their documented meaning
// (tensor_kernel_params.h) and compared with the naive references the CPU tests use, so the
// strides, offsets, broadcasting, collapsing and index tables are checked without a GPU. The kernels themselves run in
// tst_cuda_tensor_ops.cpp and tst_cuda_transformer_ops.cpp (skipped without a device).
#include "cpu/reference_tensor_ops.h"
#include "exec/cpu/host_kernels.h"
#include "exec/cuda/tensor_op_geometry.h"
#include "util/error.h"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>

using namespace opsched;
using namespace opsched::gpu;
using test::HostTensor;

namespace {

HostTensor seeded(std::vector<std::int64_t> dims, int seed)
{
    HostTensor t { std::move(dims), {} };
    for (std::int64_t i = 0; i < test::product(t.dims); ++i)
        t.data.push_back(static_cast<float>((i * 7 + seed * 13) % 23 - 11) / 4.0F + 0.125F); // no zeros
    return t;
}

// Offset of flat index i walked through dims with strides (innermost axis last).
std::int64_t walk(std::int64_t i, const std::int64_t* dims, const std::int64_t* strides, int rank)
{
    std::int64_t offset = 0;
    for (int d = rank - 1; d >= 0; --d) {
        offset += (i % dims[d]) * strides[d];
        i /= dims[d];
    }
    return offset;
}

void run(const kernels::StridedCopy& c, const float* src, float* dst)
{
    const std::int64_t total = test::product({ c.dims, c.dims + c.rank });
    for (std::int64_t i = 0; i < total; ++i)
        dst[c.dstOffset + walk(i, c.dims, c.dstStrides, c.rank)]
            = src[c.srcOffset + walk(i, c.dims, c.srcStrides, c.rank)];
}

// One step of a fold, as the reference computes it.
float combine(int kind, float a, float b)
{
    return test::referenceBinary(static_cast<BinaryKind>(kind), { HostTensor { {}, { a } }, HostTensor { {}, { b } } })
        .data[0];
}

std::vector<float> runBinary(
    BinaryKind kind, const std::vector<HostTensor>& ops, const std::vector<std::int64_t>& outDims)
{
    std::vector<std::vector<std::int64_t>> dims;
    for (const auto& o : ops)
        dims.push_back(o.dims);
    const BinaryLaunches plan = binaryLaunches(kind, dims, outDims);
    std::vector<float> out(static_cast<std::size_t>(test::product(outDims)));
    for (std::size_t j = 0; j < plan.launches.size(); ++j) {
        const auto& e = plan.launches[j];
        EXPECT_EQ(e.count, static_cast<int>(plan.operandOf[j].size()));
        for (std::size_t i = 0; i < out.size(); ++i) {
            float acc = 0;
            for (int k = 0; k < e.count; ++k) {
                const int which = plan.operandOf[j][static_cast<std::size_t>(k)];
                const float* src = which < 0 ? out.data() : ops[static_cast<std::size_t>(which)].data.data();
                const float v = src[walk(static_cast<std::int64_t>(i), e.dims, e.strides[k], e.rank)];
                acc = k == 0 ? v : combine(e.kind, acc, v);
            }
            out[i] = acc;
        }
    }
    return out;
}

void expectNear(const std::vector<float>& got, const std::vector<float>& want, float tol = 1e-5F)
{
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i)
        EXPECT_NEAR(got[i], want[i], tol * std::max(1.0F, std::abs(want[i]))) << "element " << i;
}

TEST(GpuTensorGeometry, BroadcastStridesAreRightAlignedAndZeroWhereBroadcast)
{
    EXPECT_EQ(broadcastStrides({ 4, 1 }, { 2, 3, 4, 5 }), (std::vector<std::int64_t> { 0, 0, 1, 0 }));
    EXPECT_EQ(broadcastStrides({ 3, 4, 5 }, { 2, 3, 4, 5 }), (std::vector<std::int64_t> { 0, 20, 5, 1 }));
    EXPECT_EQ(broadcastStrides({}, { 2, 3 }), (std::vector<std::int64_t> { 0, 0 }));
    EXPECT_THROW(broadcastStrides({ 3 }, { 2, 4 }), Error);
    EXPECT_THROW(broadcastStrides({ 1, 2, 3 }, { 2, 3 }), Error);
}

TEST(GpuTensorGeometry, CollapseMergesContiguousAxesAndDropsOnes)
{
    std::vector<std::int64_t> dims { 2, 1, 3, 4 };
    auto dense = cpu::rowMajorStrides(dims);
    collapseDims(dims, { &dense });
    EXPECT_EQ(dims, (std::vector<std::int64_t> { 24 }));
    EXPECT_EQ(dense, (std::vector<std::int64_t> { 1 }));

    // A transpose of the last two axes: only the leading pair merges on both sides.
    std::vector<std::int64_t> tdims { 2, 3, 5, 4 };
    std::vector<std::int64_t> src { 60, 20, 1, 5 }, dst = cpu::rowMajorStrides(tdims);
    collapseDims(tdims, { &src, &dst });
    EXPECT_EQ(tdims, (std::vector<std::int64_t> { 6, 5, 4 }));
    EXPECT_EQ(src, (std::vector<std::int64_t> { 20, 1, 5 }));
    EXPECT_EQ(dst, (std::vector<std::int64_t> { 20, 4, 1 }));

    // Broadcast axes (stride 0) merge with each other, not with walked ones.
    std::vector<std::int64_t> bdims { 2, 3, 4 };
    std::vector<std::int64_t> b { 0, 0, 1 }, out = cpu::rowMajorStrides(bdims);
    collapseDims(bdims, { &b, &out });
    EXPECT_EQ(bdims, (std::vector<std::int64_t> { 6, 4 }));
    EXPECT_EQ(b, (std::vector<std::int64_t> { 0, 1 }));
}

TEST(GpuTensorGeometry, RankBeyondTheKernelsIsRefusedWhenNothingMerges)
{
    // Rank 7, axes in reverse order: nothing merges, so the copy is refused with a message.
    std::vector<std::int64_t> dims(7, 2), perm { 6, 5, 4, 3, 2, 1, 0 };
    EXPECT_THROW(denseCopy(cpu::transposeView(dims, perm)), Error);
    // Every axis reversed: one axis walked backwards.
    cpu::StridedView reversed { 127, dims, cpu::rowMajorStrides(dims) };
    for (auto& s : reversed.strides)
        s = -s;
    const auto r = denseCopy(reversed);
    EXPECT_EQ(r.rank, 1);
    EXPECT_EQ(r.srcStrides[0], -1);
    EXPECT_EQ(r.srcOffset, 127);
    // Rank 8 dense: merges into one axis.
    std::vector<std::int64_t> big(8, 2);
    const auto c = denseCopy(cpu::StridedView { 0, big, cpu::rowMajorStrides(big) });
    EXPECT_EQ(c.rank, 1);
    EXPECT_EQ(c.dims[0], 256);
}

TEST(GpuTensorGeometry, BinaryMatchesReferenceIncludingChunkedFolds)
{
    const std::vector<std::int64_t> out { 2, 3, 4, 5 };
    for (auto kind : { BinaryKind::Add, BinaryKind::Sub, BinaryKind::Mul, BinaryKind::Div }) {
        const std::vector<HostTensor> ops { seeded({ 2, 3, 4, 5 }, 1), seeded({ 1, 5 }, 2), seeded({ 3, 4, 1 }, 3),
            seeded({}, 4) };
        expectNear(runBinary(kind, ops, out), test::referenceBinary(kind, ops).data);
        // First operand smaller than the result, order matters for Sub / Div.
        const std::vector<HostTensor> small { seeded({ 4, 1 }, 5), seeded({ 2, 1, 1, 5 }, 6) };
        expectNear(runBinary(kind, small, { 2, 1, 4, 5 }), test::referenceBinary(kind, small).data);
    }
    // Eleven operands: two launches, the second folding into what the first wrote.
    std::vector<HostTensor> many;
    for (int k = 0; k < 11; ++k)
        many.push_back(seeded(k % 2 ? std::vector<std::int64_t> { 3, 1 } : std::vector<std::int64_t> { 1, 4 }, k));
    const auto plan = binaryLaunches(BinaryKind::Sub,
        { many[0].dims, many[1].dims, many[2].dims, many[3].dims, many[4].dims, many[5].dims, many[6].dims,
            many[7].dims, many[8].dims, many[9].dims, many[10].dims },
        { 3, 4 });
    ASSERT_EQ(plan.launches.size(), 2U);
    EXPECT_EQ(plan.operandOf[1].front(), -1);
    expectNear(runBinary(BinaryKind::Sub, many, { 3, 4 }), test::referenceBinary(BinaryKind::Sub, many).data);
    EXPECT_THROW(binaryLaunches(BinaryKind::Add, { { 3 } }, { 3 }), Error);
}

std::vector<float> runMatMul(const HostTensor& a, const HostTensor& b, const std::vector<std::int64_t>& outDims)
{
    const auto g = matMulGeometry(a.dims, b.dims, outDims);
    std::vector<float> out(static_cast<std::size_t>(g.batch * g.m * g.n));
    for (std::int64_t bi = 0; bi < g.batch; ++bi) {
        const std::int64_t ao = walk(bi, g.batchDims, g.aBatchStrides, g.batchRank);
        const std::int64_t bo = walk(bi, g.batchDims, g.bBatchStrides, g.batchRank);
        for (std::int64_t i = 0; i < g.m; ++i)
            for (std::int64_t j = 0; j < g.n; ++j) {
                float acc = 0;
                for (std::int64_t p = 0; p < g.k; ++p)
                    acc += a.data[static_cast<std::size_t>(ao + i * g.k + p)]
                        * b.data[static_cast<std::size_t>(bo + p * g.n + j)];
                out[static_cast<std::size_t>((bi * g.m + i) * g.n + j)] = acc;
            }
    }
    return out;
}

TEST(GpuTensorGeometry, MatMulBroadcastsBatchesAndPromotesVectors)
{
    struct Case {
        std::vector<std::int64_t> a, b, out;
    };
    for (const auto& c : { Case { { 2, 1, 3, 4 }, { 3, 4, 5 }, { 2, 3, 3, 5 } }, Case { { 6, 4 }, { 4, 5 }, { 6, 5 } },
             Case { { 4 }, { 4, 5 }, { 5 } }, Case { { 6, 4 }, { 4 }, { 6 } },
             Case { { 2, 1, 3, 4 }, { 4, 5 }, { 2, 1, 3, 5 } },
             Case { { 5, 1, 2, 3 }, { 1, 4, 3, 2 }, { 5, 4, 2, 2 } } }) {
        const auto a = seeded(c.a, 1), b = seeded(c.b, 2);
        expectNear(runMatMul(a, b, c.out), test::referenceMatMul(a, b, c.out).data, 1e-4F);
    }
    const auto dense = matMulGeometry({ 2, 3, 4, 5 }, { 2, 3, 5, 6 }, { 2, 3, 4, 6 });
    EXPECT_EQ(dense.batchRank, 1); // both batch axes dense: one
    EXPECT_EQ(dense.batch, 6);
    EXPECT_THROW(matMulGeometry({ 3, 4 }, { 5, 6 }, { 3, 6 }), Error);
    EXPECT_THROW(matMulGeometry({ 2, 3, 4 }, { 3, 4, 5 }, { 2, 3, 5 }), Error);
    EXPECT_THROW(matMulGeometry({ 3, 4 }, { 4, 5 }, { 3, 6 }), Error);
}

TEST(GpuTensorGeometry, ConcatCopiesIntoOffsetsOnAnyAxis)
{
    for (int axis : { 0, 1, 2 }) {
        std::vector<HostTensor> ops;
        std::vector<std::vector<std::int64_t>> dims;
        std::vector<std::int64_t> out { 2, 3, 4 };
        out[static_cast<std::size_t>(axis)] = 0;
        for (std::int64_t extent : { 1, 3, 2 }) {
            std::vector<std::int64_t> d { 2, 3, 4 };
            d[static_cast<std::size_t>(axis)] = extent;
            out[static_cast<std::size_t>(axis)] += extent;
            ops.push_back(seeded(d, static_cast<int>(extent)));
            dims.push_back(d);
        }
        const auto copies = concatCopies(dims, out, axis);
        std::vector<float> got(static_cast<std::size_t>(test::product(out)), NAN);
        for (std::size_t k = 0; k < copies.size(); ++k)
            run(copies[k], ops[k].data.data(), got.data());
        expectNear(got, test::referenceConcat(ops, axis).data, 0);
    }
    EXPECT_THROW(concatCopies({ { 2, 3 }, { 3, 3 } }, { 5, 3 }, 1), Error);
    EXPECT_THROW(concatCopies({ { 2, 3 }, { 2, 3 } }, { 2, 7 }, 1), Error);
}

TEST(GpuTensorGeometry, SlicesAndTransposesThroughTheCpuViews)
{
    const auto x = seeded({ 2, 5, 6 }, 1);
    for (const Slice& s : { Slice { { 1, 0 }, { 100, -1 }, { 1, 2 }, { 2, 1 } },
             Slice { { -1, 4 }, { -100, 0 }, { -2, 2 }, { -2, -1 } }, Slice { { 0 }, { 0 }, { 1 }, { 1 } } }) {
        const auto c = denseCopy(cpu::sliceView(x.dims, s));
        const auto want = test::referenceSlice(x, s);
        std::vector<float> got(want.data.size(), NAN);
        if (!got.empty())
            run(c, x.data.data(), got.data());
        expectNear(got, want.data, 0);
    }
    const auto big = seeded({ 2, 3, 4, 5, 2 }, 2);
    const std::vector<std::int64_t> perm { 4, 2, 0, 3, 1 };
    const auto want = test::referenceTranspose(big, perm);
    std::vector<float> got(want.data.size(), NAN);
    run(denseCopy(cpu::transposeView(big.dims, perm)), big.data.data(), got.data());
    expectNear(got, want.data, 0);
}

TEST(GpuTensorGeometry, PadTablesMatchReferenceInEveryMode)
{
    const auto x = seeded({ 2, 3, 4 }, 1);
    const auto one = seeded({ 1, 4 }, 2);
    struct Case {
        const HostTensor* in;
        Pad pad;
    };
    for (const auto& c : { Case { &x, Pad { { 0, 1, 2, 1, 0, 3 }, PadMode::Constant, 0.5F } },
             Case { &x, Pad { { 0, -1, 1, 0, 2, -2 }, PadMode::Constant, -2.0F } },
             Case { &x, Pad { { 0, 2, 3, 0, 2, 3 }, PadMode::Reflect, 0.0F } },
             Case { &x, Pad { { 1, 0, 2, 1, 3, 0 }, PadMode::Edge, 0.0F } },
             Case { &one, Pad { { 1, 0, 1, 0 }, PadMode::Reflect, 0.0F } } }) {
        const auto want = test::referencePad(*c.in, c.pad);
        const auto t = padGeometry(c.pad, c.in->dims, want.dims);
        std::vector<float> got;
        const auto& g = t.gather;
        for (std::int64_t i = 0; i < test::product(want.dims); ++i) {
            std::int64_t rest = i, src = 0;
            bool constant = false;
            for (int d = g.rank - 1; d >= 0; --d) {
                const std::int64_t at = t.indices.at(static_cast<std::size_t>(g.indexOffsets[d] + rest % g.outDims[d]));
                rest /= g.outDims[d];
                constant = constant || at < 0;
                src += at * g.inStrides[d];
            }
            got.push_back(constant ? g.value : c.in->data.at(static_cast<std::size_t>(src)));
        }
        expectNear(got, want.data, 0);
    }
    EXPECT_THROW(padGeometry(Pad { { 1, 1 }, PadMode::Constant, 0.0F }, { 2, 3 }, { 4, 3 }), Error);
    EXPECT_THROW(padGeometry(Pad { { 1, 1, 0, 0 }, PadMode::Constant, 0.0F }, { 2, 3 }, { 5, 3 }), Error);
}

TEST(GpuTensorGeometry, ReductionsMatchReference)
{
    const auto x = seeded({ 2, 3, 4, 5 }, 1);
    for (const Reduce& r : { Reduce { ReduceKind::Mean, { 2, 3 }, true }, Reduce { ReduceKind::Sum, { 0, -3 }, false },
             Reduce { ReduceKind::Max, {}, false }, Reduce { ReduceKind::Max, { 1 }, true },
             Reduce { ReduceKind::Sum, { 0, 2 }, true } }) {
        const auto g = reductionGeometry(r.kind, x.dims, r.axes);
        std::vector<float> got;
        const std::int64_t outCount = test::product({ g.keptDims, g.keptDims + g.keptRank });
        for (std::int64_t i = 0; i < outCount; ++i) {
            const std::int64_t base = walk(i, g.keptDims, g.keptStrides, g.keptRank);
            float acc = g.kind == 2 ? -FLT_MAX : 0.0F;
            for (std::int64_t j = 0; j < g.reducedCount; ++j) {
                const float v
                    = x.data[static_cast<std::size_t>(base + walk(j, g.reducedDims, g.reducedStrides, g.reducedRank))];
                acc = g.kind == 2 ? std::max(acc, v) : acc + v;
            }
            got.push_back(g.kind == 0 ? acc / static_cast<float>(g.reducedCount) : acc);
        }
        expectNear(got, test::referenceReduce(x, r, {}).data, 1e-5F);
    }
    EXPECT_THROW(reductionGeometry(ReduceKind::Sum, { 2, 3 }, { 2 }), Error);
}

TEST(GpuTensorGeometry, BatchNormScaleShiftMatchesReference)
{
    const auto x = seeded({ 2, 3, 5 }, 1);
    const std::vector<std::vector<float>> w { { 1.5F, -0.5F, 2.0F }, { 0.1F, 0.2F, -0.3F }, { 0.05F, -0.1F, 0.2F },
        { 0.5F, 2.0F, 0.01F } };
    const auto ss = batchNormScaleShift(w[0], w[1], w[2], w[3], 1e-3F);
    std::vector<float> got;
    for (std::size_t i = 0; i < x.data.size(); ++i) {
        const std::size_t c = (i / 5) % 3;
        got.push_back(x.data[i] * ss.scale[c] + ss.shift[c]);
    }
    expectNear(got, test::referenceBatchNorm(x, w, 1e-3F).data, 1e-5F);
    EXPECT_THROW(batchNormScaleShift({ 1 }, { 1, 2 }, { 1 }, { 1 }, 1e-5F), Error);
}

// Values in {0.5, 1, 1.5, 2}: positive (Pow stays real) and repeating (Equal finds matches).
HostTensor repeating(std::vector<std::int64_t> dims, int seed)
{
    HostTensor t { std::move(dims), {} };
    for (std::int64_t i = 0; i < test::product(t.dims); ++i)
        t.data.push_back(0.5F * static_cast<float>(1 + (i * 5 + seed) % 4));
    return t;
}

TEST(GpuTensorGeometry, NewBinaryKindsMatchReference)
{
    for (auto kind : { BinaryKind::Pow, BinaryKind::Min, BinaryKind::Max, BinaryKind::Equal, BinaryKind::Less,
             BinaryKind::Greater }) {
        const std::vector<HostTensor> ops { repeating({ 2, 3, 4 }, 1), repeating({ 3, 1 }, 2), repeating({ 4 }, 3) };
        expectNear(runBinary(kind, ops, { 2, 3, 4 }), test::referenceBinary(kind, ops).data, 1e-5F);
        const std::vector<HostTensor> pair { repeating({ 1, 4 }, 3), repeating({ 2, 1 }, 1) };
        expectNear(runBinary(kind, pair, { 2, 4 }), test::referenceBinary(kind, pair).data, 1e-5F);
    }
}

TEST(GpuTensorGeometry, BinaryOperandOrderPutsTheConstantFirst)
{
    using Order = std::vector<std::size_t>;
    EXPECT_EQ(binaryOperandOrder(Binary { BinaryKind::Sub }, 2, 1), (Order { 0, 1, 2 }));
    EXPECT_EQ(binaryOperandOrder(Binary { BinaryKind::Sub, true }, 1, 1), (Order { 1, 0 }));
    EXPECT_EQ(binaryOperandOrder(Binary { BinaryKind::Div, true }, 2, 1), (Order { 2, 0, 1 }));
    EXPECT_THROW(binaryOperandOrder(Binary { BinaryKind::Sub, true }, 2, 0), Error);
    EXPECT_THROW(binaryOperandOrder(Binary { BinaryKind::Sub, true }, 1, 2), Error);
}

TEST(GpuTensorGeometry, WhereSelectsWithBroadcast)
{
    struct Case {
        std::vector<std::int64_t> condition, x, y;
    };
    for (const auto& c : { Case { { 1, 4 }, { 2, 3, 4 }, {} }, Case { { 2, 1, 1 }, { 3, 1 }, { 1, 4 } },
             Case { { 2, 3, 4 }, { 4 }, { 3, 1 } }, Case { { 3 }, { 3 }, { 3 } } }) {
        HostTensor condition { c.condition, {} };
        for (std::int64_t i = 0; i < test::product(c.condition); ++i)
            condition.data.push_back(i % 3 == 1 ? 0.0F : (i % 2 ? 1.0F : -2.0F)); // any non-zero selects x
        const auto x = seeded(c.x, 1), y = seeded(c.y, 2);
        const auto want = test::referenceWhere(condition, x, y);
        const auto e = whereGeometry(condition.dims, x.dims, y.dims, want.dims);
        ASSERT_EQ(e.kind, kernels::kSelect);
        ASSERT_EQ(e.count, 3);
        const HostTensor* srcs[] = { &condition, &x, &y };
        std::vector<float> got;
        for (std::int64_t i = 0; i < test::product(want.dims); ++i) {
            auto at = [&](int k) {
                return srcs[k]->data.at(static_cast<std::size_t>(walk(i, e.dims, e.strides[k], e.rank)));
            };
            got.push_back(at(0) != 0.0F ? at(1) : at(2));
        }
        expectNear(got, want.data, 0);
    }
    EXPECT_THROW(whereGeometry({ 2 }, { 3 }, { 3 }, { 3 }), Error);
}

TEST(GpuTensorGeometry, ExpandBroadcastsAndGrowsTheRank)
{
    struct Case {
        std::vector<std::int64_t> in, shape;
    };
    for (const auto& c : { Case { { 3, 1 }, { 2, 3, 4 } }, Case { { 4 }, { 2, 1, 4 } }, Case { { 1 }, { 5 } },
             Case { { 2, 3 }, { 2, 3 } }, Case { { 3, 1 }, { 1, 1 } }, Case { { 2, 1, 3 }, { 2, 2, 4, 3 } } }) {
        const auto x = seeded(c.in, 1);
        const auto want = test::referenceExpand(x, test::broadcastDims({ x, HostTensor { c.shape, {} } }));
        std::vector<float> got(want.data.size(), NAN);
        run(expandCopy(x.dims, want.dims), x.data.data(), got.data());
        expectNear(got, want.data, 0);
    }
    EXPECT_THROW(expandCopy({ 3 }, { 4 }), Error);
}

// A RowNorm interpreted as tensor_kernel_params.h defines it.
std::vector<float> runRowNorm(
    const kernels::RowNorm& p, const HostTensor& x, const HostTensor& scale, const HostTensor* bias)
{
    std::vector<float> out;
    for (std::int64_t r = 0; r < p.rows; ++r) {
        const float* row = x.data.data() + r * p.cols;
        double mean = 0, var = 0;
        for (std::int64_t c = 0; c < p.cols && !p.rms; ++c)
            mean += row[c] / static_cast<double>(p.cols);
        for (std::int64_t c = 0; c < p.cols; ++c)
            var += (row[c] - mean) * (row[c] - mean) / static_cast<double>(p.cols);
        for (std::int64_t c = 0; c < p.cols; ++c) {
            double v = (row[c] - mean) / std::sqrt(var + p.epsilon);
            if (p.scaleCount > 0)
                v *= scale.data.at(static_cast<std::size_t>(c % p.scaleCount));
            if (p.biasCount > 0)
                v += bias->data.at(static_cast<std::size_t>(c % p.biasCount));
            out.push_back(static_cast<float>(v));
        }
    }
    return out;
}

TEST(GpuTensorGeometry, RowNormMatchesReference)
{
    struct Case {
        std::vector<std::int64_t> in;
        LayerNorm norm;
        std::vector<std::int64_t> scale, bias; // bias empty: none
        std::int64_t rows, cols;
    };
    for (const auto& c : { Case { { 2, 5, 8 }, LayerNorm { -1, 1e-5F, true, false }, { 8 }, { 8 }, 10, 8 },
             Case { { 2, 3, 4, 5 }, LayerNorm { 2, 1e-3F, false, false }, { 5 }, {}, 6, 20 },
             Case { { 2, 3, 4, 5 }, LayerNorm { 1, 1e-5F, true, false }, { 1, 4, 5 }, { 5 }, 2, 60 },
             Case { { 3, 16 }, LayerNorm { -1, 1e-6F, false, true }, { 16 }, {}, 3, 16 },
             Case { { 3, 2, 6 }, LayerNorm { -2, 1e-6F, true, true }, { 2, 6 }, { 1 }, 3, 12 } }) {
        const auto x = seeded(c.in, 1), scale = seeded(c.scale, 2), bias = seeded(c.bias, 3);
        const HostTensor* b = c.bias.empty() ? nullptr : &bias;
        const auto p = rowNormGeometry(c.norm, x.dims, scale.dims, b ? &bias.dims : nullptr);
        EXPECT_EQ(p.rows, c.rows);
        EXPECT_EQ(p.cols, c.cols);
        EXPECT_EQ(p.rms, c.norm.rms);
        // The reference takes one value per normalised element: broadcast the parameters to that.
        const auto axis
            = static_cast<std::size_t>(c.norm.axis < 0 ? c.norm.axis + static_cast<int>(c.in.size()) : c.norm.axis);
        const std::vector<std::int64_t> normalised(c.in.begin() + static_cast<std::ptrdiff_t>(axis), c.in.end());
        const auto fullBias = test::referenceExpand(bias, normalised).data;
        const auto want = test::referenceLayerNorm(
            x, c.norm, test::referenceExpand(scale, normalised).data, b ? &fullBias : nullptr);
        expectNear(runRowNorm(p, x, scale, b), want.data, 1e-5F);
    }
    // Threads: whole warps, about four elements each, at most a block's 1024.
    EXPECT_EQ(rowNormGeometry(LayerNorm {}, { 4, 8 }, { 8 }, nullptr).threads, 32);
    EXPECT_EQ(rowNormGeometry(LayerNorm {}, { 4, 768 }, { 768 }, nullptr).threads, 192);
    EXPECT_EQ(rowNormGeometry(LayerNorm {}, { 2, 100000 }, { 100000 }, nullptr).threads, 1024);
    // One value per normalised element, whatever its dims (the graph builder checks only counts).
    EXPECT_EQ(rowNormGeometry(LayerNorm { 1 }, { 2, 4, 5 }, { 20 }, nullptr).scaleCount, 20);
    // Parameters that do not cover a trailing part of the normalised axes.
    EXPECT_THROW(rowNormGeometry(LayerNorm {}, { 2, 5 }, { 4 }, nullptr), Error);
    EXPECT_THROW(rowNormGeometry(LayerNorm {}, { 2, 5 }, { 2, 5 }, nullptr), Error);
    EXPECT_THROW(rowNormGeometry(LayerNorm { 1 }, { 2, 4, 5 }, { 4 }, nullptr), Error);
    const std::vector<std::int64_t> badBias { 3 };
    EXPECT_THROW(rowNormGeometry(LayerNorm { 1 }, { 2, 4, 5 }, { 4, 5 }, &badBias), Error);
    EXPECT_THROW(rowNormGeometry(LayerNorm { 3 }, { 2, 5 }, { 5 }, nullptr), Error);
}

// A GatherRows interpreted as tensor_kernel_params.h defines it (ids rounded, negatives wrapped).
std::vector<float> runGather(const kernels::GatherRows& g, const HostTensor& data, const std::vector<float>& ids,
    const std::vector<std::int64_t>& indices)
{
    std::vector<float> out;
    for (std::int64_t i = 0; i < g.outer * g.count * g.inner; ++i) {
        const std::int64_t within = i % g.inner, slot = (i / g.inner) % g.count, outer = i / (g.inner * g.count);
        std::int64_t index = ids.empty()
            ? indices.at(static_cast<std::size_t>(slot))
            : static_cast<std::int64_t>(std::nearbyint(ids.at(static_cast<std::size_t>(slot))));
        if (index < 0)
            index += g.axisLen;
        out.push_back(data.data.at(static_cast<std::size_t>((outer * g.axisLen + index) * g.inner + within)));
    }
    return out;
}

TEST(GpuTensorGeometry, GatherMatchesReference)
{
    // An embedding: [10, 6] table, [2, 3] token ids (as floats, one negative).
    const auto table = seeded({ 10, 6 }, 1);
    const HostTensor ids { { 2, 3 }, { 0.0F, 3.0F, 9.0F, -1.0F, 5.0F, 3.0F } };
    const auto want = test::referenceGather(table, ids, 0);
    const auto g = gatherGeometry(table.dims, 0, 6, want.dims);
    EXPECT_EQ(g.outer, 1);
    EXPECT_EQ(g.axisLen, 10);
    EXPECT_EQ(g.inner, 6);
    expectNear(runGather(g, table, ids.data, {}), want.data, 0);

    // Constant indices on any axis, negative ones made non-negative, a scalar index dropping its axis.
    const auto data = seeded({ 2, 5, 4 }, 2);
    struct Case {
        int axis;
        std::vector<std::int64_t> indices, dims;
    };
    for (const auto& c : { Case { 1, { 3, -1, 0, 0 }, { 2, 2 } }, Case { -1, { 2 }, {} },
             Case { 0, { 1, 0, -2 }, { 3 } }, Case { 2, { -4, 3 }, { 1, 2 } } }) {
        HostTensor indices { c.dims, {} };
        for (auto i : c.indices)
            indices.data.push_back(static_cast<float>(i));
        const auto expected = test::referenceGather(data, indices, c.axis);
        const auto cg = gatherGeometry(data.dims, c.axis, static_cast<std::int64_t>(c.indices.size()), expected.dims);
        const auto normalised = normalisedGatherIndices(c.indices, cg.axisLen);
        for (auto i : normalised)
            EXPECT_GE(i, 0);
        expectNear(runGather(cg, data, {}, normalised), expected.data, 0);
    }
    EXPECT_THROW(normalisedGatherIndices({ 5 }, 5), Error);
    EXPECT_THROW(normalisedGatherIndices({ -6 }, 5), Error);
    EXPECT_THROW(gatherGeometry({ 10, 6 }, 0, 6, { 2, 3, 5 }), Error);
    EXPECT_THROW(gatherGeometry({ 10, 6 }, 2, 1, { 10 }), Error);
}

// The CUDA resize kernel's meaning (tensor_kernel_params.h) run on the host.
std::vector<float> interpretResize(const ResizeTables& t, const std::vector<float>& in)
{
    const auto& g = t.gather;
    std::vector<float> out;
    for (std::int64_t i = 0; i < test::product(std::vector<std::int64_t>(g.outDims, g.outDims + g.rank)); ++i) {
        std::int64_t coord[kernels::kTensorMaxRank] = {}, tap[kernels::kTensorMaxRank] = {};
        for (std::int64_t rest = i, d = g.rank - 1; d >= 0; --d) {
            coord[d] = rest % g.outDims[d];
            rest /= g.outDims[d];
        }
        double acc = 0;
        for (;;) {
            double w = 1;
            std::int64_t src = 0;
            for (int d = 0; d < g.rank; ++d) {
                const auto at = static_cast<std::size_t>(g.tableOffsets[d] + coord[d] * g.taps[d] + tap[d]);
                w *= t.weights.at(at);
                src += t.indices.at(at) * g.inStrides[d];
            }
            acc += w * in.at(static_cast<std::size_t>(src));
            int d = g.rank - 1;
            while (d >= 0 && ++tap[d] == g.taps[d])
                tap[d--] = 0;
            if (d < 0)
                break;
        }
        out.push_back(static_cast<float>(acc));
    }
    return out;
}

Resize resizeOf(ResizeMode mode, ResizeCoordinates coordinates, std::vector<float> scales,
    std::vector<std::int64_t> sizes, NearestRounding rounding = NearestRounding::RoundPreferFloor)
{
    Resize r;
    r.mode = mode;
    r.coordinates = coordinates;
    r.rounding = rounding;
    r.scales = std::move(scales);
    r.sizes = std::move(sizes);
    return r;
}

TEST(GpuTensorGeometry, ResizeOfTheSpecificationsExample)
{
    // ONNX's Resize example: 2x2 to 4x4, linear, half_pixel.
    const std::vector<float> in { 1, 2, 3, 4 };
    const Resize r = resizeOf(ResizeMode::Linear, ResizeCoordinates::HalfPixel, { 1, 1, 2, 2 }, { 0, 0, 4, 4 });
    const auto t = resizeGeometry(r, { 1, 1, 2, 2 }, { 1, 1, 4, 4 });
    expectNear(interpretResize(t, in),
        { 1, 1.25F, 1.75F, 2, 1.5F, 1.75F, 2.25F, 2.5F, 2.5F, 2.75F, 3.25F, 3.5F, 3, 3.25F, 3.75F, 4 }, 1e-6F);
}

TEST(GpuTensorGeometry, ResizeTablesGatherAsTheCpuKernelDoes)
{
    struct Case {
        std::vector<std::int64_t> in, out;
        Resize resize;
    };
    const Case cases[] = {
        { { 1, 2, 3, 4 }, { 1, 2, 6, 8 },
            resizeOf(ResizeMode::Nearest, ResizeCoordinates::Asymmetric, { 1, 1, 2, 2 }, { 0, 0, 6, 8 },
                NearestRounding::Floor) },
        { { 2, 3, 5, 4 }, { 2, 3, 3, 7 },
            resizeOf(ResizeMode::Linear, ResizeCoordinates::PytorchHalfPixel, { 1, 1, 0.6F, 1.75F }, { 0, 0, 3, 7 }) },
        { { 1, 1, 4, 4 }, { 1, 1, 7, 9 },
            resizeOf(ResizeMode::Cubic, ResizeCoordinates::AlignCorners, { 1, 1, 1.75F, 2.25F }, { 0, 0, 7, 9 }) },
        { { 1, 2, 3, 4, 5 }, { 1, 2, 6, 2, 10 }, // three resized axes (video)
            resizeOf(ResizeMode::Linear, ResizeCoordinates::HalfPixel, { 1, 1, 2, 0.5F, 2 }, { 0, 0, 6, 2, 10 }) },
        { { 3, 8 }, { 3, 5 },
            resizeOf(ResizeMode::Nearest, ResizeCoordinates::TfHalfPixelForNn, { 1, 0.625F }, { 0, 5 },
                NearestRounding::RoundPreferCeil) },
    };
    for (const auto& c : cases) {
        const auto x = seeded(c.in, 3);
        const auto t = resizeGeometry(c.resize, c.in, c.out);
        std::vector<float> want(static_cast<std::size_t>(test::product(c.out)));
        cpu::resizeGather(x.data.data(), c.in, cpu::rowMajorStrides(c.in), want.data(), c.out,
            cpu::resizeTaps(c.resize, c.in, c.out));
        expectNear(interpretResize(t, x.data), want, 1e-5F);
    }
    EXPECT_THROW(resizeGeometry(resizeOf(ResizeMode::Linear, ResizeCoordinates::HalfPixel, { 1, 1, 1, 1, 1, 1, 2 },
                                    { 0, 0, 0, 0, 0, 0, 4 }),
                     { 1, 1, 1, 1, 1, 1, 2 }, { 1, 1, 1, 1, 1, 1, 4 }),
        Error);
}

// The transposed-convolution kernel's loop (tensor_kernels.cu), on the host, in double.
std::vector<float> convTransposeOnHost(
    const kernels::ConvTransposeShape& s, const HostTensor& x, const HostTensor& w, const HostTensor& b)
{
    std::vector<float> got;
    const std::int64_t inPerGroup = s.inChannels / s.groups, outPerGroup = s.outChannels / s.groups;
    const std::int64_t total = s.batch * s.outChannels * s.outD * s.outH * s.outW;
    for (std::int64_t i = 0; i < total; ++i) {
        const std::int64_t ow = i % s.outW, oh = (i / s.outW) % s.outH, od = (i / (s.outW * s.outH)) % s.outD;
        const std::int64_t oc = (i / (s.outW * s.outH * s.outD)) % s.outChannels;
        const std::int64_t n = i / (s.outW * s.outH * s.outD * s.outChannels);
        const std::int64_t g = oc / outPerGroup, ocg = oc % outPerGroup;
        double acc = b.data[static_cast<std::size_t>(oc)];
        for (std::int64_t kd = 0; kd < s.kernelD; ++kd) {
            const std::int64_t dNum = od + s.padFront - kd * s.dilationD;
            if (dNum < 0 || dNum % s.strideD != 0 || dNum / s.strideD >= s.inD)
                continue;
            for (std::int64_t kh = 0; kh < s.kernelH; ++kh) {
                const std::int64_t hNum = oh + s.padTop - kh * s.dilationH;
                if (hNum < 0 || hNum % s.strideH != 0 || hNum / s.strideH >= s.inH)
                    continue;
                for (std::int64_t kw = 0; kw < s.kernelW; ++kw) {
                    const std::int64_t wNum = ow + s.padLeft - kw * s.dilationW;
                    if (wNum < 0 || wNum % s.strideW != 0 || wNum / s.strideW >= s.inW)
                        continue;
                    for (std::int64_t icg = 0; icg < inPerGroup; ++icg) {
                        const std::int64_t ic = g * inPerGroup + icg;
                        const std::int64_t at
                            = (((n * s.inChannels + ic) * s.inD + dNum / s.strideD) * s.inH + hNum / s.strideH) * s.inW
                            + wNum / s.strideW;
                        const std::int64_t tap
                            = (((ic * outPerGroup + ocg) * s.kernelD + kd) * s.kernelH + kh) * s.kernelW + kw;
                        acc += x.data[static_cast<std::size_t>(at)] * w.data[static_cast<std::size_t>(tap)];
                    }
                }
            }
        }
        got.push_back(static_cast<float>(acc));
    }
    return got;
}

TEST(GpuTensorGeometry, ConvTransposeGatherMatchesAScatterReference)
{
    // The kernel gathers, per output element, the input taps that land on it; the reference
    // scatters each input element through every weight tap. Groups, strides, dilations, pads and
    // output padding.
    ConvTranspose2d c;
    c.outChannels = 4;
    c.groups = 2;
    c.kernelH = 3;
    c.kernelW = 2;
    c.strideH = 2;
    c.strideW = 3;
    c.dilationH = 2;
    c.padTop = 1;
    c.padLeft = 1;
    c.padBottom = 2;
    c.outputPaddingW = 1;
    const std::vector<std::int64_t> in { 2, 6, 3, 4 };
    const std::int64_t outH = (3 - 1) * 2 + (3 - 1) * 2 + 1 - 1 - 2 + 0;
    const std::int64_t outW = (4 - 1) * 3 + (2 - 1) * 1 + 1 - 1 - 0 + 1;
    const std::vector<std::int64_t> out { 2, 4, outH, outW };
    const auto s = convTransposeGeometry(c, in, out);
    const auto x = seeded(in, 1);
    const auto w = seeded({ 6, 2, 3, 2 }, 2);
    const auto b = seeded({ 4 }, 3);
    std::vector<double> want(static_cast<std::size_t>(test::product(out)));
    for (std::int64_t n = 0; n < 2; ++n)
        for (std::int64_t o = 0; o < 4; ++o)
            for (std::int64_t i = 0; i < outH * outW; ++i)
                want[static_cast<std::size_t>((n * 4 + o) * outH * outW + i)] = b.data[static_cast<std::size_t>(o)];
    for (std::int64_t n = 0; n < 2; ++n)
        for (std::int64_t ic = 0; ic < 6; ++ic)
            for (std::int64_t ih = 0; ih < 3; ++ih)
                for (std::int64_t iw = 0; iw < 4; ++iw)
                    for (std::int64_t ocg = 0; ocg < 2; ++ocg)
                        for (std::int64_t kh = 0; kh < 3; ++kh)
                            for (std::int64_t kw = 0; kw < 2; ++kw) {
                                const std::int64_t oh = ih * 2 + kh * 2 - 1, ow = iw * 3 + kw - 1;
                                if (oh < 0 || oh >= outH || ow < 0 || ow >= outW)
                                    continue;
                                const std::int64_t oc = (ic / 3) * 2 + ocg;
                                want[static_cast<std::size_t>(((n * 4 + oc) * outH + oh) * outW + ow)]
                                    += x.data[static_cast<std::size_t>(((n * 6 + ic) * 3 + ih) * 4 + iw)]
                                    * w.data[static_cast<std::size_t>(((ic * 2 + ocg) * 3 + kh) * 2 + kw)];
                            }
    const auto got = convTransposeOnHost(s, x, w, b);
    expectNear(got, std::vector<float>(want.begin(), want.end()), 1e-4F);
    EXPECT_THROW(convTransposeGeometry(c, in, { 2, 5, outH, outW }), Error);
}

TEST(GpuTensorGeometry, ConvTransposeOverAVolumeMatchesAScatterReference)
{
    ConvTranspose2d c;
    c.outChannels = 3;
    c.kernelD = 2, c.kernelH = 3, c.kernelW = 2;
    c.strideD = 2, c.strideH = 1, c.strideW = 2;
    c.padFront = 1, c.padBack = 0, c.padTop = 1, c.padBottom = 1;
    c.dilationH = 2;
    c.outputPaddingD = 1;
    const std::vector<std::int64_t> in { 1, 2, 3, 4, 3 };
    const std::int64_t outD = (3 - 1) * 2 + 1 + 1 - 1 - 0 + 1, outH = (4 - 1) + 2 * 2 + 1 - 2,
                       outW = (3 - 1) * 2 + 1 + 1;
    const std::vector<std::int64_t> out { 1, 3, outD, outH, outW };
    const auto s = convTransposeGeometry(c, in, out);
    const auto x = seeded(in, 4);
    const auto w = seeded({ 2, 3, 2, 3, 2 }, 5);
    const auto b = seeded({ 3 }, 6);
    std::vector<double> want(static_cast<std::size_t>(test::product(out)));
    for (std::int64_t o = 0; o < 3; ++o)
        for (std::int64_t i = 0; i < outD * outH * outW; ++i)
            want[static_cast<std::size_t>(o * outD * outH * outW + i)] = b.data[static_cast<std::size_t>(o)];
    for (std::int64_t ic = 0; ic < 2; ++ic)
        for (std::int64_t id = 0; id < 3; ++id)
            for (std::int64_t ih = 0; ih < 4; ++ih)
                for (std::int64_t iw = 0; iw < 3; ++iw)
                    for (std::int64_t oc = 0; oc < 3; ++oc)
                        for (std::int64_t kd = 0; kd < 2; ++kd)
                            for (std::int64_t kh = 0; kh < 3; ++kh)
                                for (std::int64_t kw = 0; kw < 2; ++kw) {
                                    const std::int64_t od = id * 2 + kd - 1, oh = ih + kh * 2 - 1, ow = iw * 2 + kw;
                                    if (od < 0 || od >= outD || oh < 0 || oh >= outH || ow < 0 || ow >= outW)
                                        continue;
                                    want[static_cast<std::size_t>(((oc * outD + od) * outH + oh) * outW + ow)]
                                        += x.data[static_cast<std::size_t>(((ic * 3 + id) * 4 + ih) * 3 + iw)]
                                        * w.data[static_cast<std::size_t>(
                                            (((ic * 3 + oc) * 2 + kd) * 3 + kh) * 2 + kw)];
                                }
    expectNear(convTransposeOnHost(s, x, w, b), std::vector<float>(want.begin(), want.end()), 1e-4F);
    EXPECT_THROW(convTransposeGeometry(c, in, { 1, 3, outD, outH }), Error);
}

} // namespace
