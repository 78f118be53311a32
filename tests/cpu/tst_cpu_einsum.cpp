// Einsum through the importer and the CPU executor, against a naive evaluation that sums the
// product of the operands over every assignment of the equation's letters: attention scores and
// values, a projection by a constant, ellipses, implicit outputs, transposes and sums; and the
// equations opsched refuses, by name.
#include "exec/cpu/cpu_executor.h"
#include "import/onnx_importer.h"
#include "plan/plan.h"
#include "schedule/basic_schedulers.h"
#include "util/error.h"

#include "../import/onnx_model_maker.h"
#include "support/seeded_values.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace opsched;
using opsched::test::ModelMaker;
using opsched::test::seededUniform;

namespace {

struct Operand {
    std::string letters; // one per dimension, no ellipsis
    std::vector<std::int64_t> dims;
    std::vector<float> values;
};

// out[o] = sum over all letters not in the output of prod_k operand_k[its letters].
std::vector<float> naiveEinsum(
    const std::vector<Operand>& ops, const std::string& out, std::vector<std::int64_t>* outDims)
{
    std::map<char, std::int64_t> size;
    for (const auto& o : ops)
        for (std::size_t i = 0; i < o.letters.size(); ++i)
            size[o.letters[i]] = std::max(size[o.letters[i]], o.dims[i]);
    std::string letters;
    for (const auto& [c, n] : size)
        letters += c;
    outDims->clear();
    for (char c : out)
        outDims->push_back(size[c]);
    std::int64_t outCount = 1;
    for (auto d : *outDims)
        outCount *= d;
    std::vector<double> acc(static_cast<std::size_t>(outCount), 0.0);
    std::map<char, std::int64_t> at;
    for (char c : letters)
        at[c] = 0;
    for (;;) {
        double p = 1.0;
        for (const auto& o : ops) {
            std::int64_t flat = 0;
            for (std::size_t i = 0; i < o.letters.size(); ++i)
                flat = flat * o.dims[i] + (o.dims[i] == 1 ? 0 : at[o.letters[i]]);
            p *= o.values[static_cast<std::size_t>(flat)];
        }
        std::int64_t flat = 0;
        for (std::size_t i = 0; i < out.size(); ++i)
            flat = flat * (*outDims)[i] + at[out[i]];
        acc[static_cast<std::size_t>(flat)] += p;
        std::size_t k = letters.size();
        while (k-- > 0) {
            if (++at[letters[k]] < size[letters[k]])
                break;
            at[letters[k]] = 0;
        }
        if (k == static_cast<std::size_t>(-1))
            break;
    }
    return { acc.begin(), acc.end() };
}

struct Case {
    std::string equation; // as the node says it
    std::vector<Operand> operands; // letters spelled out (ellipses expanded) for the naive sum
    std::string output;
    std::set<std::size_t> constants {}; // operands given as initializers
};

void checkCase(const Case& c)
{
    SCOPED_TRACE(c.equation);
    ModelMaker m(13);
    std::vector<std::string> names;
    for (std::size_t k = 0; k < c.operands.size(); ++k) {
        const std::string name = std::string(1, static_cast<char>('a' + k));
        names.push_back(name);
        if (c.constants.count(k) > 0)
            m.weight(name, c.operands[k].dims, c.operands[k].values);
        else
            m.input(name, c.operands[k].dims);
    }
    auto& node = m.node("Einsum", names, { "y" }, "einsum");
    ModelMaker::attr(node, "equation", c.equation);
    m.output("y");
    const Graph g = importOnnx(m.save("einsum"));
    std::vector<std::vector<float>> inputs;
    for (std::size_t k = 0; k < c.operands.size(); ++k)
        if (c.constants.count(k) == 0)
            inputs.push_back(c.operands[k].values);
    cpu::CpuExecutor ex(g, compileSchedule(g, sequentialSchedule(g)));
    const auto got = ex.run(inputs);
    std::vector<std::int64_t> dims;
    const auto want = naiveEinsum(c.operands, c.output, &dims);
    ASSERT_EQ(got.size(), 1U);
    EXPECT_EQ(g.tensor(g.outputs()[0]).shape, Shape(dims));
    ASSERT_EQ(got[0].size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i)
        EXPECT_NEAR(got[0][i], want[i], 1e-5 + 1e-5 * std::abs(want[i])) << "element " << i;
}

Operand operand(std::string letters, std::vector<std::int64_t> dims, unsigned seed)
{
    std::int64_t n = 1;
    for (auto d : dims)
        n *= d;
    return { std::move(letters), std::move(dims), seededUniform(n, seed) };
}

TEST(CpuEinsum, ContractionsMatchANaiveSum)
{
    if (!cpu::cpuBackendAvailable())
        GTEST_SKIP() << "skipped: no CPU backend (built without oneDNN)";
    const std::vector<Case> cases {
        { "bhid,bhjd->bhij", { operand("bhid", { 1, 2, 3, 4 }, 1), operand("bhjd", { 1, 2, 5, 4 }, 2) }, "bhij" },
        { "bhij,bhjd->bhid", { operand("bhij", { 1, 2, 3, 5 }, 3), operand("bhjd", { 1, 2, 5, 4 }, 4) }, "bhid" },
        { "bij,jk->bik", { operand("bij", { 1, 3, 4 }, 5), operand("jk", { 4, 6 }, 6) }, "bik", { 1 } },
        { "bsd,hd->bhs", { operand("bsd", { 1, 3, 4 }, 7), operand("hd", { 2, 4 }, 8) }, "bhs", { 1 } },
        { "...ij,...jk->...ik", { operand("xij", { 2, 3, 4 }, 9), operand("xjk", { 2, 4, 5 }, 10) }, "xik" },
        { "ij,jk", { operand("ij", { 3, 4 }, 11), operand("jk", { 4, 2 }, 12) }, "ik" },
        { "ij->ji", { operand("ij", { 3, 4 }, 13) }, "ji" },
        { "ijk->ki", { operand("ijk", { 2, 3, 4 }, 14) }, "ki" },
        // A constant first operand, and a constant contracted with an activation on either side.
        { "jk,bij->bik", { operand("jk", { 4, 6 }, 15), operand("bij", { 1, 3, 4 }, 16) }, "bik", { 0 } },
        // Diagonals: a trace per batch, a batch diagonal through an ellipsis, one inside a contraction.
        { "ii->i", { operand("ii", { 4, 4 }, 17) }, "i" },
        { "...ii->...i", { operand("xyii", { 2, 3, 4, 4 }, 18) }, "xyi" },
        { "bii->b", { operand("bii", { 2, 3, 3 }, 19) }, "b" },
        { "iij,jk->ik", { operand("iij", { 3, 3, 4 }, 20), operand("jk", { 4, 5 }, 21) }, "ik" },
        // Letters summed away from one operand of two, and a matrix-vector product.
        { "ij,jk->k", { operand("ij", { 2, 3 }, 22), operand("jk", { 3, 4 }, 23) }, "k" },
        { "bij,bkl->bjl", { operand("bij", { 2, 3, 4 }, 24), operand("bkl", { 2, 5, 6 }, 25) }, "bjl" },
        { "ij,j->i", { operand("ij", { 3, 4 }, 26), operand("j", { 4 }, 27) }, "i" },
        // Three and four operands: a chain, a bilinear layer with its constant weight in the middle.
        { "ij,jk,kl->il", { operand("ij", { 2, 3 }, 28), operand("jk", { 3, 4 }, 29), operand("kl", { 4, 5 }, 30) },
            "il" },
        { "bn,anm,bm->ba",
            { operand("bn", { 2, 3 }, 31), operand("anm", { 5, 3, 4 }, 32), operand("bm", { 2, 4 }, 33) }, "ba",
            { 1 } },
        { "bi,ij,jk,bk->bij",
            { operand("bi", { 2, 3 }, 34), operand("ij", { 3, 4 }, 35), operand("jk", { 4, 2 }, 36),
                operand("bk", { 2, 2 }, 37) },
            "bij", { 1, 2 } },
    };
    for (const auto& c : cases)
        checkCase(c);
}

TEST(CpuEinsum, UnsupportedEquationsAreNamed)
{
    auto importError = [](const std::string& equation, std::vector<std::vector<std::int64_t>> dims) {
        ModelMaker m(13);
        std::vector<std::string> names;
        for (std::size_t k = 0; k < dims.size(); ++k) {
            names.push_back(std::string(1, static_cast<char>('a' + k)));
            m.input(names.back(), dims[k]);
        }
        ModelMaker::attr(m.node("Einsum", names, { "y" }, "einsum"), "equation", equation);
        m.output("y");
        try {
            (void)importOnnx(m.save("einsum_bad"));
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("(imported)");
    };
    EXPECT_NE(importError("ii->i", { { 3, 4 } }).find("not square"), std::string::npos);
    EXPECT_NE(importError("i,i", { { 3 }, { 3 } }).find("to a scalar"), std::string::npos);
    EXPECT_NE(
        importError("ij,jk->ik", { { 2, 3 }, { 4, 5 } }).find("contracts letter 'j' over 3 and 4"), std::string::npos);
    EXPECT_NE(importError("ij,jk->il", { { 2, 3 }, { 3, 4 } }).find("letter 'l' in no operand"), std::string::npos);
}

} // namespace
