// foldNode on one node at a time: every op the importer evaluates on constants, with numpy
// broadcasting, negative axes and indices, integer versus float results and the opset-dependent
// forms (attributes or inputs), then the errors it reports. Expected values were worked out by
// hand or with numpy in float32 when the cases were written. The last tests import models whose
// constant subgraphs use what transformer exports emit (Range, Mod, ScatterND, Expand, Where).
#include "onnx_model_maker.h"

#include "import/import_error.h"
#include "import/onnx_constant_folding.h"
#include "import/onnx_importer.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <ostream>
#include <set>
#include <variant>

using namespace opsched;
using namespace opsched::onnx_import;
using opsched::test::ModelMaker;

namespace {

using Dims = std::vector<std::int64_t>;
using Ints = std::vector<std::int64_t>;
using Floats = std::vector<float>;

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

ConstPtr I(Dims dims, Ints v)
{
    return std::make_shared<ConstTensor>(ConstTensor::ofInts(std::move(dims), std::move(v)));
}
ConstPtr I1(Ints v)
{
    const auto n = static_cast<std::int64_t>(v.size());
    return I({ n }, std::move(v));
}
ConstPtr Is(std::int64_t v)
{
    return I({}, { v });
}
ConstPtr F(Dims dims, Floats v)
{
    return std::make_shared<ConstTensor>(ConstTensor::ofFloats(std::move(dims), std::move(v)));
}
ConstPtr F1(Floats v)
{
    const auto n = static_cast<std::int64_t>(v.size());
    return F({ n }, std::move(v));
}
ConstPtr Fs(float v)
{
    return F({}, { v });
}
const ConstPtr none; // an omitted optional input

struct Attr {
    std::string name;
    std::variant<std::int64_t, float, std::string, Ints, onnx::TensorProto> value;
};
Attr ai(std::string n, std::int64_t v)
{
    return { std::move(n), v };
}
Attr af(std::string n, float v)
{
    return { std::move(n), v };
}
Attr as(std::string n, std::string v)
{
    return { std::move(n), std::move(v) };
}
Attr aints(std::string n, Ints v)
{
    return { std::move(n), std::move(v) };
}
Attr aint64Tensor(std::string n, std::int64_t v)
{
    onnx::TensorProto t;
    t.set_data_type(onnx::TensorProto::INT64);
    t.add_dims(1);
    t.add_int64_data(v);
    return { std::move(n), t };
}

struct Case {
    std::string name;
    std::string op;
    std::vector<ConstPtr> inputs;
    std::vector<Attr> attrs;
    std::vector<ConstPtr> expected; // one per output
    int opset = 17;
};
void PrintTo(const Case& c, std::ostream* os)
{
    *os << c.name;
}

struct ErrorCase {
    std::string name;
    std::string op;
    std::vector<ConstPtr> inputs;
    std::vector<Attr> attrs;
    std::string message; // a fragment of it
    int opset = 17;
};
void PrintTo(const ErrorCase& c, std::ostream* os)
{
    *os << c.name;
}

onnx::NodeProto makeNode(
    const std::string& op, const std::vector<ConstPtr>& inputs, const std::vector<Attr>& attrs, std::size_t outputs)
{
    onnx::NodeProto node;
    node.set_op_type(op);
    node.set_name(op);
    for (std::size_t i = 0; i < inputs.size(); ++i)
        node.add_input(inputs[i] ? "in" + std::to_string(i) : "");
    for (std::size_t i = 0; i < outputs; ++i)
        node.add_output("out" + std::to_string(i));
    for (const auto& a : attrs) {
        if (const auto* i = std::get_if<std::int64_t>(&a.value))
            ModelMaker::attr(node, a.name, *i);
        else if (const auto* f = std::get_if<float>(&a.value))
            ModelMaker::attr(node, a.name, *f);
        else if (const auto* s = std::get_if<std::string>(&a.value))
            ModelMaker::attr(node, a.name, *s);
        else if (const auto* v = std::get_if<Ints>(&a.value))
            ModelMaker::attr(node, a.name, *v);
        else {
            auto* p = node.add_attribute();
            p->set_name(a.name);
            p->set_type(onnx::AttributeProto::TENSOR);
            *p->mutable_t() = std::get<onnx::TensorProto>(a.value);
        }
    }
    return node;
}

void expectTensor(const ConstTensor& got, const ConstTensor& want, std::size_t output)
{
    SCOPED_TRACE("output " + std::to_string(output));
    EXPECT_EQ(got.dims, want.dims);
    ASSERT_EQ(got.integer, want.integer) << "integer result expected: " << want.integer;
    if (want.integer) {
        EXPECT_EQ(got.ints, want.ints);
        return;
    }
    ASSERT_EQ(got.floats.size(), want.floats.size());
    for (std::size_t i = 0; i < want.floats.size(); ++i) {
        if (std::isnan(want.floats[i]))
            EXPECT_TRUE(std::isnan(got.floats[i])) << "element " << i << ": " << got.floats[i];
        else
            EXPECT_FLOAT_EQ(got.floats[i], want.floats[i]) << "element " << i;
    }
}

// ---------------------------------------------------------------------------------------------
// Cases, grouped by family.

std::vector<Case> arithmeticCases()
{
    return {
        { "AddBroadcastsIntegers", "Add", { I({ 2, 1 }, { 1, 2 }), I1({ 10, 20, 30 }) }, {},
            { I({ 2, 3 }, { 11, 21, 31, 12, 22, 32 }) } },
        { "AddWrapsInsteadOfOverflowing", "Add", { Is(kMax), Is(1) }, {}, { Is(kMin) } },
        { "SubMixedTypesGivesFloat", "Sub", { F1({ 1.5F, 2.5F }), Is(1) }, {}, { F1({ 0.5F, 1.5F }) } },
        { "MulScalarBroadcast", "Mul", { F({ 2, 2 }, { 1, 2, 3, 4 }), Fs(0.5F) }, {},
            { F({ 2, 2 }, { 0.5F, 1, 1.5F, 2 }) } },
        { "DivIntegersTruncateTowardZero", "Div", { I1({ 7, -7, 7, -7 }), I1({ 2, 2, -2, -2 }) }, {},
            { I1({ 3, -3, -3, 3 }) } },
        { "DivFloats", "Div", { F1({ 1, -3 }), F1({ 4 }) }, {}, { F1({ 0.25F, -0.75F }) } },
        { "ModIntegersTakeTheDivisorsSign", "Mod", { I1({ 7, -7, 7, -7, 6 }), I1({ 3, 3, -3, -3, 3 }) }, {},
            { I1({ 1, 2, -2, -1, 0 }) } },
        { "ModFmodTakesTheDividendsSign", "Mod", { I1({ 7, -7, 7, -7, 6 }), I1({ 3, 3, -3, -3, 3 }) },
            { ai("fmod", 1) }, { I1({ 1, -1, 1, -1, 0 }) } },
        { "ModFmodFloats", "Mod", { F1({ 5.5F, -5.5F }), Fs(2) }, { ai("fmod", 1) }, { F1({ 1.5F, -1.5F }) } },
        { "ModBroadcasts", "Mod", { I({ 2, 1 }, { -1, 5 }), I1({ 2, 3, 4 }) }, {},
            { I({ 2, 3 }, { 1, 2, 3, 1, 2, 1 }) } },
        { "ModMinusOneOfTheMinimum", "Mod", { Is(kMin), Is(-1) }, {}, { Is(0) } },
        { "PowIntegersExactly", "Pow", { I1({ 2, 3, -2, 3 }), I1({ 10, 3, 3, 39 }) }, {},
            { I1({ 1024, 27, -8, 4052555153018976267 }) } },
        { "PowIntegerNegativeExponent", "Pow", { I1({ 2, 1, -1 }), Is(-1) }, {}, { I1({ 0, 1, -1 }) } },
        { "PowFloats", "Pow", { F1({ 4, 2, 9 }), F1({ 0.5F, -1, 2 }) }, {}, { F1({ 2, 0.5F, 81 }) } },
        { "PowKeepsTheIntegerBase", "Pow", { I1({ 9, 2 }), Fs(0.5F) }, {}, { I1({ 3, 1 }) } },
        { "PowFloatBaseIntegerExponent", "Pow", { F({ 2, 2 }, { 1, 2, 3, 4 }), Is(2) }, {},
            { F({ 2, 2 }, { 1, 4, 9, 16 }) } },
        { "MaxVariadicBroadcasts", "Max", { I1({ 1, 5, 3 }), I({ 2, 1 }, { 2, 4 }), Is(0) }, {},
            { I({ 2, 3 }, { 2, 5, 3, 4, 5, 4 }) } },
        { "MaxPropagatesNaN", "Max", { F1({ kNaN, 1 }), F1({ 0, 2 }) }, {}, { F1({ kNaN, 2 }) } },
        { "MinFloats", "Min", { F1({ 1, -2, 3 }), Fs(0) }, {}, { F1({ 0, -2, 0 }) } },
        { "MinOfOneInput", "Min", { F1({ 1, 2 }) }, {}, { F1({ 1, 2 }) } },
        { "SumOfThree", "Sum", { F1({ 1, 2 }), F1({ 10, 20 }), F({ 2, 1 }, { 100, 200 }) }, {},
            { F({ 2, 2 }, { 111, 122, 211, 222 }) } },
        { "SumIntegers", "Sum", { I1({ 1, 2 }), I1({ 3, 4 }) }, {}, { I1({ 4, 6 }) } },
        { "MeanFloats", "Mean", { F1({ 1, 2 }), F1({ 2, 5 }) }, {}, { F1({ 1.5F, 3.5F }) } },
    };
}

std::vector<Case> logicCases()
{
    return {
        { "EqualIntegers", "Equal", { I1({ 1, 2, 3 }), Is(2) }, {}, { I1({ 0, 1, 0 }) } },
        { "EqualIsExactForLargeIntegers", "Equal", { I1({ kMax, kMax - 1 }), Is(kMax) }, {}, { I1({ 1, 0 }) } },
        { "EqualFloatsNaNIsUnequal", "Equal", { F1({ 1, kNaN }), F1({ 1, kNaN }) }, {}, { I1({ 1, 0 }) } },
        { "LessBroadcasts", "Less", { I({ 2, 1 }, { 1, 3 }), I1({ 2, 3 }) }, {}, { I({ 2, 2 }, { 1, 1, 0, 0 }) } },
        { "GreaterFloats", "Greater", { F1({ 1.5F, -1 }), Fs(1) }, {}, { I1({ 1, 0 }) } },
        { "LessOrEqual", "LessOrEqual", { I1({ 1, 2, 3 }), Is(2) }, {}, { I1({ 1, 1, 0 }) } },
        { "GreaterOrEqual", "GreaterOrEqual", { F1({ 1, 2, 3 }), Fs(2) }, {}, { I1({ 0, 1, 1 }) } },
        { "And", "And", { I1({ 1, 1, 0, 0 }), I1({ 1, 0, 1, 0 }) }, {}, { I1({ 1, 0, 0, 0 }) } },
        { "Or", "Or", { I1({ 1, 1, 0, 0 }), I1({ 1, 0, 1, 0 }) }, {}, { I1({ 1, 1, 1, 0 }) } },
        { "Xor", "Xor", { I1({ 1, 1, 0, 0 }), I1({ 1, 0, 1, 0 }) }, {}, { I1({ 0, 1, 1, 0 }) } },
        { "AndBroadcasts", "And", { I({ 2, 1 }, { 1, 0 }), I1({ 1, 1 }) }, {}, { I({ 2, 2 }, { 1, 1, 0, 0 }) } },
        { "Not", "Not", { I({ 2 }, { 1, 0 }) }, {}, { I1({ 0, 1 }) } },
        { "WhereBroadcastsAllThree", "Where", { I({ 2, 1 }, { 1, 0 }), F1({ 1, 2 }), Fs(-1) }, {},
            { F({ 2, 2 }, { 1, 2, -1, -1 }) } },
        { "WhereIntegers", "Where", { I1({ 1, 0, 1 }), I1({ 1, 2, 3 }), I1({ -1, -2, -3 }) }, {},
            { I1({ 1, -2, 3 }) } },
        { "ClipInputs", "Clip", { F1({ -2, 0.5F, 3 }), Fs(0), Fs(1) }, {}, { F1({ 0, 0.5F, 1 }) } },
        { "ClipOnlyMax", "Clip", { F1({ -2, 3 }), none, Fs(1) }, {}, { F1({ -2, 1 }) } },
        { "ClipIntegers", "Clip", { I1({ -5, 5, 50 }), Is(0), Is(10) }, {}, { I1({ 0, 5, 10 }) } },
        { "ClipMinAboveMaxGivesMax", "Clip", { F1({ 0, 5 }), Fs(3), Fs(2) }, {}, { F1({ 2, 2 }) } },
        { "ClipAttributesBeforeOpset11", "Clip", { F1({ -2, 0, 3 }) }, { af("min", -1), af("max", 1) },
            { F1({ -1, 0, 1 }) }, 6 },
    };
}

std::vector<Case> unaryCases()
{
    return {
        { "Sqrt", "Sqrt", { F1({ 4, 2 }) }, {}, { F1({ 2, 1.4142135F }) } },
        { "Exp", "Exp", { F1({ 0, 1 }) }, {}, { F1({ 1, 2.7182817F }) } },
        { "Log", "Log", { F1({ 1, 10, 0 }) }, {}, { F1({ 0, 2.3025851F, -std::numeric_limits<float>::infinity() }) } },
        { "Erf", "Erf", { F1({ 0, 0.5F, -1 }) }, {}, { F1({ 0, 0.5204999F, -0.8427008F }) } },
        { "Tanh", "Tanh", { F1({ 0, 1 }) }, {}, { F1({ 0, 0.7615942F }) } },
        { "Sigmoid", "Sigmoid", { F1({ 0, 2 }) }, {}, { F1({ 0.5F, 0.8807971F }) } },
        { "Reciprocal", "Reciprocal", { F1({ 4, -0.5F }) }, {}, { F1({ 0.25F, -2 }) } },
        { "Sin", "Sin", { F1({ 0, 1.5707964F }) }, {}, { F1({ 0, 1 }) } },
        { "Cos", "Cos", { F1({ 0 }) }, {}, { F1({ 1 }) } },
        { "AbsIntegers", "Abs", { I1({ -3, 4 }) }, {}, { I1({ 3, 4 }) } },
        { "AbsFloats", "Abs", { F({ 1, 1 }, { -1.5F }) }, {}, { F({ 1, 1 }, { 1.5F }) } },
        { "NegIntegers", "Neg", { I1({ 3, -4 }) }, {}, { I1({ -3, 4 }) } },
        { "Floor", "Floor", { F1({ 1.5F, -1.5F }) }, {}, { F1({ 1, -2 }) } },
        { "Ceil", "Ceil", { F1({ 1.5F, -1.5F }) }, {}, { F1({ 2, -1 }) } },
        { "RoundHalvesToEven", "Round", { F1({ 0.5F, 1.5F, 2.5F, -0.5F, -1.7F }) }, {},
            { F1({ 0, 2, 2, -0.0F, -2 }) } },
        { "SignFloats", "Sign", { F1({ -2, 0, 3 }) }, {}, { F1({ -1, 0, 1 }) } },
        { "SignIntegers", "Sign", { I1({ -2, 0, 3 }) }, {}, { I1({ -1, 0, 1 }) } },
        { "ReluFloats", "Relu", { F1({ -1, 2 }) }, {}, { F1({ 0, 2 }) } },
        { "ReluIntegers", "Relu", { I1({ -1, 2 }) }, {}, { I1({ 0, 2 }) } },
        { "CastFloatToIntegerTruncates", "Cast", { F1({ 1.7F, -1.7F }) }, { ai("to", onnx::TensorProto::INT64) },
            { I1({ 1, -1 }) } },
        { "CastToBool", "Cast", { F1({ 0, 0.1F, -2 }) }, { ai("to", onnx::TensorProto::BOOL) }, { I1({ 0, 1, 1 }) } },
        { "CastIntegerToFloat", "Cast", { I({ 1, 1 }, { 3 }) }, { ai("to", onnx::TensorProto::FLOAT) },
            { F({ 1, 1 }, { 3 }) } },
        { "CastToFloat16Rounds", "Cast",
            { F1({ 0.1F, 65519, 65520, 1e-8F, 3.0e-5F, -2.5F, 1.00048828125F, 1.00146484375F }) },
            { ai("to", onnx::TensorProto::FLOAT16) },
            { F1({ 0.0999755859375F, 65504, std::numeric_limits<float>::infinity(), 0, 2.9981136322021484e-05F, -2.5F,
                1, 1.001953125F }) } },
        { "CastToBfloat16Rounds", "Cast", { F1({ 0.1F, 1.00390625F, 1.01171875F, 3.0e38F, -1e-40F }) },
            { ai("to", onnx::TensorProto::BFLOAT16) },
            { F1({ 0.10009765625F, 1, 1.015625F, 3.00405527047391e+38F, -9.183549615799121e-41F }) } },
        { "CastWrapsToUint8", "Cast", { I1({ -1, 256, 300 }) }, { ai("to", onnx::TensorProto::UINT8) },
            { I1({ 255, 0, 44 }) } },
        { "CastWrapsToInt32", "Cast", { I1({ (std::int64_t { 1 } << 32) + 5, kMax }) },
            { ai("to", onnx::TensorProto::INT32) }, { I1({ 5, -1 }) } },
        { "Identity", "Identity", { I({ 2 }, { 4, 5 }) }, {}, { I1({ 4, 5 }) } },
        { "DropoutPassesTheDataAndAMaskOfOnes", "Dropout", { F1({ 1, 2 }) }, {}, { F1({ 1, 2 }), I1({ 1, 1 }) } },
        { "DropoutInTrainingModeWithRatioZero", "Dropout", { F1({ 1, 2 }), Fs(0), Is(1) }, {},
            { F1({ 1, 2 }), I1({ 1, 1 }) }, 13 },
    };
}

std::vector<Case> indexingCases()
{
    return {
        { "RangeIntegers", "Range", { Is(0), Is(5), Is(2) }, {}, { I1({ 0, 2, 4 }) } },
        { "RangeNegativeDelta", "Range", { Is(5), Is(0), Is(-2) }, {}, { I1({ 5, 3, 1 }) } },
        { "RangeEmptyWhenPastTheLimit", "Range", { Is(5), Is(0), Is(1) }, {}, { I({ 0 }, {}) } },
        { "RangeFloats", "Range", { Fs(1), Fs(2), Fs(0.25F) }, {}, { F1({ 1, 1.25F, 1.5F, 1.75F }) } },
        { "RangeFloatsRoundUpTheCount", "Range", { Fs(0), Fs(1), Fs(0.3F) }, {},
            { F1({ 0, 0.3F, 0.6F, 0.90000004F }) } },
        { "RangeAcrossTheWholeInt64Range", "Range", { Is(kMin), Is(kMax), Is(std::int64_t { 1 } << 62) }, {},
            { I1({ kMin, -(std::int64_t { 1 } << 62), 0, std::int64_t { 1 } << 62 }) } },
        { "ExpandBroadcastsBothWays", "Expand", { I({ 3, 1 }, { 1, 2, 3 }), I1({ 2, 1, 2 }) }, {},
            { I({ 2, 3, 2 }, { 1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3 }) } },
        { "ExpandKeepsLargerDimensions", "Expand", { F1({ 1, 2 }), I1({ 1 }) }, {}, { F1({ 1, 2 }) } },
        { "ExpandScalar", "Expand", { Is(7), I1({ 2, 2 }) }, {}, { I({ 2, 2 }, { 7, 7, 7, 7 }) } },
        { "ExpandToNothing", "Expand", { I({ 1, 2 }, { 1, 2 }), I1({ 0, 2 }) }, {}, { I({ 0, 2 }, {}) } },
        { "TileRows", "Tile", { I({ 2, 2 }, { 1, 2, 3, 4 }), I1({ 2, 1 }) }, {},
            { I({ 4, 2 }, { 1, 2, 3, 4, 1, 2, 3, 4 }) } },
        { "TileColumns", "Tile", { F({ 2, 2 }, { 1, 2, 3, 4 }), I1({ 1, 2 }) }, {},
            { F({ 2, 4 }, { 1, 2, 1, 2, 3, 4, 3, 4 }) } },
        { "ScatterNDElements", "ScatterND",
            { I1({ 1, 2, 3, 4, 5, 6, 7, 8 }), I({ 4, 1 }, { 4, 3, 1, 7 }), I1({ 9, 10, 11, 12 }) }, {},
            { I1({ 1, 11, 3, 10, 9, 6, 7, 12 }) } },
        { "ScatterNDRowsWithNegativeIndex", "ScatterND",
            { F({ 2, 2 }, { 1, 2, 3, 4 }), I({ 1, 1 }, { -1 }), F({ 1, 2 }, { 9, 8 }) }, {},
            { F({ 2, 2 }, { 1, 2, 9, 8 }) } },
        { "ScatterNDFullTuples", "ScatterND",
            { I({ 2, 2 }, { 1, 2, 3, 4 }), I({ 2, 2 }, { 0, 1, 1, 0 }), I1({ 7, 8 }) }, {},
            { I({ 2, 2 }, { 1, 7, 8, 4 }) } },
        { "ScatterNDAdd", "ScatterND", { I1({ 1, 2, 3, 4 }), I({ 3, 1 }, { 0, 0, 2 }), I1({ 10, 20, 30 }) },
            { as("reduction", "add") }, { I1({ 31, 2, 33, 4 }) } },
        { "ScatterNDMax", "ScatterND", { F1({ 1, 5 }), I({ 2, 1 }, { 0, 1 }), F1({ 3, 3 }) },
            { as("reduction", "max") }, { F1({ 3, 5 }) } },
        { "GatherNegativeIndexOnTheLastAxis", "Gather", { I({ 2, 3 }, { 1, 2, 3, 4, 5, 6 }), I1({ -1, 0 }) },
            { ai("axis", -1) }, { I({ 2, 2 }, { 3, 1, 6, 4 }) } },
        { "GatherScalarIndex", "Gather", { I1({ 5, 6, 7 }), Is(1) }, {}, { Is(6) } },
        { "GatherMatrixOfIndices", "Gather", { F1({ 0.5F, 1.5F, 2.5F }), I({ 2, 2 }, { 0, 2, 1, 1 }) }, {},
            { F({ 2, 2 }, { 0.5F, 2.5F, 1.5F, 1.5F }) } },
        { "GatherElementsAxis1", "GatherElements", { I({ 2, 2 }, { 1, 2, 3, 4 }), I({ 2, 2 }, { 0, 0, 1, 0 }) },
            { ai("axis", 1) }, { I({ 2, 2 }, { 1, 1, 4, 3 }) } },
        { "GatherElementsAxis0NegativeIndex", "GatherElements",
            { I({ 3, 3 }, { 1, 2, 3, 4, 5, 6, 7, 8, 9 }), I({ 2, 3 }, { -2, 2, 0, 2, 0, 0 }) }, {},
            { I({ 2, 3 }, { 4, 8, 3, 7, 2, 3 }) } },
        { "GatherNDElements", "GatherND", { I({ 2, 2 }, { 0, 1, 2, 3 }), I({ 2, 2 }, { 0, 0, 1, 1 }) }, {},
            { I1({ 0, 3 }) } },
        { "GatherNDRows", "GatherND", { I({ 2, 2 }, { 0, 1, 2, 3 }), I({ 2, 1 }, { 1, 0 }) }, {},
            { I({ 2, 2 }, { 2, 3, 0, 1 }) } },
        { "GatherNDNegativeIndex", "GatherND", { F({ 2, 2 }, { 0, 1, 2, 3 }), I({ 1, 2 }, { -1, -2 }) }, {},
            { F1({ 2 }) } },
        { "GatherNDBatchDims", "GatherND", { I({ 2, 2, 2 }, { 0, 1, 2, 3, 4, 5, 6, 7 }), I({ 2, 1 }, { 1, 0 }) },
            { ai("batch_dims", 1) }, { I({ 2, 2 }, { 2, 3, 4, 5 }) } },
        { "NonZero", "NonZero", { I({ 2, 3 }, { 0, 1, 0, 2, 0, 3 }) }, {}, { I({ 2, 3 }, { 0, 1, 1, 1, 0, 2 }) } },
        { "NonZeroOfZeros", "NonZero", { F1({ 0, 0, 0 }) }, {}, { I({ 1, 0 }, {}) } },
        { "TriluUpper", "Trilu", { I({ 3, 3 }, { 1, 2, 3, 4, 5, 6, 7, 8, 9 }) }, {},
            { I({ 3, 3 }, { 1, 2, 3, 0, 5, 6, 0, 0, 9 }) } },
        { "TriluLowerBelowTheDiagonal", "Trilu", { I({ 3, 3 }, { 1, 2, 3, 4, 5, 6, 7, 8, 9 }), Is(-1) },
            { ai("upper", 0) }, { I({ 3, 3 }, { 0, 0, 0, 4, 0, 0, 7, 8, 0 }) } },
        { "TriluUpperThroughput", "Trilu", { F({ 2, 2, 2 }, { 1, 2, 3, 4, 5, 6, 7, 8 }), Is(1) }, {},
            { F({ 2, 2, 2 }, { 0, 2, 0, 0, 0, 6, 0, 0 }) } },
        { "OneHotLastAxis", "OneHot", { I1({ 0, 2, -1 }), Is(3), F1({ 0, 1 }) }, {},
            { F({ 3, 3 }, { 1, 0, 0, 0, 0, 1, 0, 0, 1 }) } },
        { "OneHotFirstAxisOutOfRangeIsOff", "OneHot", { I1({ 1, 5 }), Is(3), I1({ -1, 7 }) }, { ai("axis", 0) },
            { I({ 3, 2 }, { -1, -1, 7, -1, -1, -1 }) } },
    };
}

std::vector<Case> reductionCases()
{
    const auto m23 = I({ 2, 3 }, { 1, 2, 3, 4, 5, 6 });
    const auto f23 = F({ 2, 3 }, { 1, 2, 3, 4, 5, 6 });
    return {
        { "ReduceSumAxesInput", "ReduceSum", { m23, I1({ 1 }) }, {}, { I({ 2, 1 }, { 6, 15 }) }, 13 },
        { "ReduceSumAllWithoutAxes", "ReduceSum", { f23 }, { ai("keepdims", 0) }, { F({}, { 21 }) }, 13 },
        { "ReduceSumNoopWithEmptyAxes", "ReduceSum", { f23, I({ 0 }, {}) }, { ai("noop_with_empty_axes", 1) }, { f23 },
            13 },
        { "ReduceSumAxesAttributeBeforeOpset13", "ReduceSum", { m23 }, { aints("axes", { 0 }) },
            { I({ 1, 3 }, { 5, 7, 9 }) }, 11 },
        { "ReduceMeanNegativeAxis", "ReduceMean", { f23 }, { aints("axes", { -1 }), ai("keepdims", 0) },
            { F1({ 2, 5 }) }, 13 },
        { "ReduceMeanIntegersTruncate", "ReduceMean", { I1({ 1, 2 }) }, {}, { I1({ 1 }) }, 13 },
        { "ReduceMaxAxesInputFromOpset18", "ReduceMax", { f23, I1({ 0 }) }, {}, { F({ 1, 3 }, { 4, 5, 6 }) }, 18 },
        { "ReduceMaxTwoAxes", "ReduceMax", { F({ 2, 2, 2 }, { 1, 2, 3, 4, 5, 6, 7, 8 }) },
            { aints("axes", { 0, -1 }), ai("keepdims", 0) }, { F1({ 6, 8 }) }, 13 },
        { "ReduceMinIntegers", "ReduceMin", { m23 }, { aints("axes", { 0, 1 }) }, { I({ 1, 1 }, { 1 }) }, 13 },
        { "ReduceProd", "ReduceProd", { F({ 2, 2 }, { 1, 2, 3, 4 }) }, { aints("axes", { 0 }), ai("keepdims", 0) },
            { F1({ 3, 8 }) }, 13 },
        { "ArgMaxFirstOfTies", "ArgMax", { F({ 2, 3 }, { 1, 5, 5, 7, 2, 7 }) }, { ai("axis", 1) },
            { I({ 2, 1 }, { 1, 0 }) } },
        { "ArgMaxLastOfTies", "ArgMax", { F({ 2, 3 }, { 1, 5, 5, 7, 2, 7 }) },
            { ai("axis", -1), ai("select_last_index", 1) }, { I({ 2, 1 }, { 2, 2 }) } },
        { "ArgMinDropsTheAxis", "ArgMin", { I({ 2, 3 }, { 3, 1, 2, 1, 1, 5 }) }, { ai("keepdims", 0) },
            { I1({ 1, 0, 0 }) } },
        { "CumSum", "CumSum", { I1({ 1, 2, 3 }), Is(0) }, {}, { I1({ 1, 3, 6 }) } },
        { "CumSumExclusive", "CumSum", { I1({ 1, 2, 3 }), Is(0) }, { ai("exclusive", 1) }, { I1({ 0, 1, 3 }) } },
        { "CumSumReverse", "CumSum", { I1({ 1, 2, 3 }), Is(0) }, { ai("reverse", 1) }, { I1({ 6, 5, 3 }) } },
        { "CumSumExclusiveReverse", "CumSum", { I1({ 1, 2, 3 }), Is(0) }, { ai("exclusive", 1), ai("reverse", 1) },
            { I1({ 5, 3, 0 }) } },
        { "CumSumLastAxisFloats", "CumSum", { f23, Is(-1) }, {}, { F({ 2, 3 }, { 1, 3, 6, 4, 9, 15 }) } },
    };
}

std::vector<Case> structuralCases()
{
    const auto m23 = I({ 2, 3 }, { 1, 2, 3, 4, 5, 6 });
    return {
        { "SplitEqually", "Split", { I1({ 1, 2, 3, 4, 5, 6 }) }, {}, { I1({ 1, 2 }), I1({ 3, 4 }), I1({ 5, 6 }) }, 13 },
        { "SplitSizesInput", "Split", { m23, I1({ 1, 2 }) }, { ai("axis", 1) },
            { I({ 2, 1 }, { 1, 4 }), I({ 2, 2 }, { 2, 3, 5, 6 }) }, 13 },
        { "SplitSizesAttributeBeforeOpset13", "Split", { I1({ 1, 2, 3 }) },
            { aints("split", { 2, 1 }), ai("axis", -1) }, { I1({ 1, 2 }), I1({ 3 }) }, 11 },
        { "SplitNumOutputsLastIsSmaller", "Split", { I1({ 1, 2, 3, 4, 5 }) }, { ai("num_outputs", 3) },
            { I1({ 1, 2 }), I1({ 3, 4 }), I1({ 5 }) }, 18 },
        { "ConcatNegativeAxis", "Concat", { I({ 2, 1 }, { 1, 2 }), I({ 2, 2 }, { 3, 4, 5, 6 }) }, { ai("axis", -1) },
            { I({ 2, 3 }, { 1, 3, 4, 2, 5, 6 }) } },
        { "ConcatWithAnEmptyInput", "Concat", { I({ 0 }, {}), I1({ 1, 2 }) }, { ai("axis", 0) }, { I1({ 1, 2 }) } },
        { "ConcatMixedTypesGivesFloat", "Concat", { I1({ 1 }), F1({ 2.5F }) }, { ai("axis", 0) }, { F1({ 1, 2.5F }) } },
        { "ReshapeInfers", "Reshape", { m23, I1({ -1 }) }, {}, { I1({ 1, 2, 3, 4, 5, 6 }) } },
        { "ReshapeCopiesZero", "Reshape", { m23, I1({ 0, -1 }) }, {}, { I({ 2, 3 }, { 1, 2, 3, 4, 5, 6 }) } },
        { "ReshapeAllowZeroKeepsZero", "Reshape", { I({ 0, 3 }, {}), I1({ 3, 0 }) }, { ai("allowzero", 1) },
            { I({ 3, 0 }, {}) } },
        { "SliceBackwardsToTheStart", "Slice",
            { I1({ 0, 1, 2, 3, 4 }), I1({ -1 }), I1({ kMin + 1 }), I1({ 0 }), I1({ -1 }) }, {},
            { I1({ 4, 3, 2, 1, 0 }) } },
        { "SliceBackwardsClampsTheStart", "Slice",
            { I1({ 0, 1, 2, 3, 4 }), I1({ -100 }), I1({ -200 }), I1({ 0 }), I1({ -1 }) }, {}, { I1({ 0 }) } },
        { "SliceBackwardsFromBeyondTheEnd", "Slice",
            { I1({ 0, 1, 2, 3, 4 }), I1({ kMax }), I1({ 1 }), none, I1({ -2 }) }, {}, { I1({ 4, 2 }) } },
        { "SliceStepTwo", "Slice", { I1({ 0, 1, 2, 3, 4, 5 }), I1({ 1 }), I1({ kMax }), I1({ 0 }), I1({ 2 }) }, {},
            { I1({ 1, 3, 5 }) } },
        { "SliceNegativeAxis", "Slice", { m23, I1({ 1 }), I1({ -1 }), I1({ -1 }) }, {}, { I({ 2, 1 }, { 2, 5 }) } },
        { "SliceAttributesBeforeOpset10", "Slice", { m23 },
            { aints("starts", { 1 }), aints("ends", { -1 }), aints("axes", { 1 }) }, { I({ 2, 1 }, { 2, 5 }) }, 9 },
        { "TransposeReversesByDefault", "Transpose", { m23 }, {}, { I({ 3, 2 }, { 1, 4, 2, 5, 3, 6 }) } },
        { "TransposePerm", "Transpose", { I({ 2, 1, 2 }, { 1, 2, 3, 4 }) }, { aints("perm", { 2, 0, 1 }) },
            { I({ 2, 2, 1 }, { 1, 3, 2, 4 }) } },
        { "UnsqueezeNegativeAxesInput", "Unsqueeze", { I1({ 1, 2 }), I1({ -1, 0 }) }, {}, { I({ 1, 2, 1 }, { 1, 2 }) },
            13 },
        { "UnsqueezeAxesAttribute", "Unsqueeze", { Is(3) }, { aints("axes", { 0 }) }, { I1({ 3 }) }, 11 },
        { "SqueezeAllOnes", "Squeeze", { I({ 1, 2, 1 }, { 1, 2 }) }, {}, { I1({ 1, 2 }) }, 13 },
        { "SqueezeAxesAttribute", "Squeeze", { I({ 1, 2, 1 }, { 1, 2 }) }, { aints("axes", { -1 }) },
            { I({ 1, 2 }, { 1, 2 }) }, 11 },
        { "FlattenAxis0", "Flatten", { m23 }, { ai("axis", 0) }, { I({ 1, 6 }, { 1, 2, 3, 4, 5, 6 }) } },
        { "ConstantOfShapeFloatZeros", "ConstantOfShape", { I1({ 2, 1 }) }, {}, { F({ 2, 1 }, { 0, 0 }) } },
        { "ConstantOfShapeIntegerValue", "ConstantOfShape", { I1({ 3 }) }, { aint64Tensor("value", -4) },
            { I1({ -4, -4, -4 }) } },
        { "ConstantOfShapeEmptyShapeIsAScalar", "ConstantOfShape", { I({ 0 }, {}) }, { aint64Tensor("value", 1) },
            { Is(1) } },
        { "ConstantOfShapeZeroDimension", "ConstantOfShape", { I1({ 0, 4 }) }, {}, { F({ 0, 4 }, {}) } },
        { "ShapeStartEnd", "Shape", { F({ 2, 3, 4 }, Floats(24, 0.0F)) }, { ai("start", -2) }, { I1({ 3, 4 }) } },
        { "Size", "Size", { F({ 2, 3, 4 }, Floats(24, 0.0F)) }, {}, { Is(24) } },
        { "ConstantInts", "Constant", {}, { aints("value_ints", { 1, 2 }) }, { I1({ 1, 2 }) } },
    };
}

std::vector<Case> allCases()
{
    std::vector<Case> all;
    for (auto group :
        { arithmeticCases(), logicCases(), unaryCases(), indexingCases(), reductionCases(), structuralCases() })
        all.insert(all.end(), group.begin(), group.end());
    return all;
}

std::vector<ErrorCase> errorCases()
{
    return {
        { "IntegerDivisionByZero", "Div", { I1({ 1 }), I1({ 0 }) }, {}, "integer division by zero" },
        { "IntegerModuloByZero", "Mod", { I1({ 1 }), I1({ 0 }) }, {}, "integer modulo by zero" },
        { "ModOfFloatsWithoutFmod", "Mod", { F1({ 1 }), F1({ 2 }) }, {}, "needs fmod=1" },
        { "IncompatibleBroadcast", "Add", { I1({ 1, 2 }), I1({ 1, 2, 3 }) }, {}, "cannot broadcast 2 with 3" },
        { "IncompatibleWhere", "Where", { I1({ 1, 0 }), F1({ 1, 2, 3 }), Fs(0) }, {}, "cannot broadcast" },
        { "ClipBoundNotScalar", "Clip", { F1({ 1 }), F1({ 0, 1 }) }, {}, "Clip min must be a scalar" },
        { "RangeZeroDelta", "Range", { Is(0), Is(5), Is(0) }, {}, "Range delta is zero" },
        { "RangeTooLong", "Range", { Is(0), Is(kMax), Is(1) }, {}, "Range has more than" },
        { "RangeFloatTooLong", "Range", { Fs(0), Fs(1e30F), Fs(1) }, {}, "Range has more than" },
        { "RangeStartNotScalar", "Range", { I1({ 0, 1 }), Is(5), Is(1) }, {}, "Range start must be a scalar" },
        { "ExpandIncompatible", "Expand", { I1({ 1, 2, 3 }), I1({ 2 }) }, {}, "cannot broadcast 3 with 2" },
        { "ExpandNegativeShape", "Expand", { Is(1), I1({ -2 }) }, {}, "negative dimension" },
        { "ExpandAbsurdlyLarge", "Expand", { Is(1), I1({ 1 << 20, 1 << 20 }) }, {}, "too large" },
        { "TileRepeatsPerDimension", "Tile", { I({ 2, 2 }, { 1, 2, 3, 4 }), I1({ 2 }) }, {},
            "one repeat per dimension" },
        { "TileAbsurdlyLarge", "Tile", { I1({ 1, 2 }), I1({ kMax / 2 }) }, {}, "too large" },
        { "ScatterNDIndexOutOfRange", "ScatterND", { I1({ 1, 2, 3, 4 }), I({ 1, 1 }, { 4 }), I1({ 9 }) }, {},
            "ScatterND index 4 is out of range for dimension 4" },
        { "ScatterNDUpdatesShape", "ScatterND", { I1({ 1, 2, 3, 4 }), I({ 2, 1 }, { 0, 1 }), I1({ 9 }) }, {},
            "ScatterND updates are 1, expected 2" },
        { "ScatterNDTupleTooLong", "ScatterND", { I1({ 1, 2 }), I({ 1, 2 }, { 0, 0 }), I1({ 9 }) }, {},
            "exceed the data's rank" },
        { "GatherIndexOutOfRange", "Gather", { I1({ 1, 2, 3 }), I1({ 3 }) }, {},
            "gather index 3 is out of range for dimension 3" },
        { "GatherAxisOutOfRange", "Gather", { I1({ 1, 2, 3 }), I1({ 0 }) }, { ai("axis", 1) },
            "axis 1 is out of range for rank 1" },
        { "GatherElementsIndexOutOfRange", "GatherElements", { I1({ 1, 2 }), I1({ -3 }) }, {},
            "GatherElements index -3 is out of range" },
        { "GatherElementsRank", "GatherElements", { I({ 2, 2 }, { 1, 2, 3, 4 }), I1({ 0 }) }, {},
            "of the data's rank" },
        { "GatherNDIndexOutOfRange", "GatherND", { I({ 2, 2 }, { 0, 1, 2, 3 }), I({ 1, 2 }, { 0, 2 }) }, {},
            "GatherND index 2 is out of range" },
        { "GatherNDBatchDimsMismatch", "GatherND", { I({ 2, 2 }, { 0, 1, 2, 3 }), I({ 3, 1 }, { 0, 0, 0 }) },
            { ai("batch_dims", 1) }, "batch dimensions differ" },
        { "TriluNeedsAMatrix", "Trilu", { I1({ 1, 2 }) }, {}, "Trilu needs rank 2 or more" },
        { "OneHotValues", "OneHot", { I1({ 0 }), Is(2), F1({ 0, 1, 2 }) }, {}, "OneHot values must hold [off, on]" },
        { "OneHotNegativeDepth", "OneHot", { I1({ 0 }), Is(-2), F1({ 0, 1 }) }, {}, "OneHot depth -2 is negative" },
        { "SplitSizesDoNotAddUp", "Split", { I1({ 1, 2, 3 }), I1({ 1, 1 }) }, {}, "split has 2 sizes for 1 outputs" },
        { "ReduceAxisOutOfRange", "ReduceSum", { I({ 2, 2 }, { 1, 2, 3, 4 }), I1({ 2 }) }, {},
            "axis 2 is out of range for rank 2" },
        { "ReduceMeanOfNoIntegers", "ReduceMean", { I({ 0 }, {}) }, {}, "over no elements", 13 },
        { "ArgMaxOverAnEmptyAxis", "ArgMax", { F({ 0 }, {}) }, {}, "empty axis" },
        { "CumSumAxisOutOfRange", "CumSum", { I1({ 1, 2 }), Is(1) }, {}, "axis 1 is out of range for rank 1" },
        { "ConstantOfShapeAbsurdlyLarge", "ConstantOfShape", { I1({ 1 << 20, 1 << 20 }) }, {}, "too large" },
        { "ConstantOfShapeNegative", "ConstantOfShape", { I1({ -1 }) }, {}, "negative dimension" },
        { "ReshapeMismatch", "Reshape", { I1({ 1, 2, 3 }), I1({ 2, 2 }) }, {}, "cannot reshape 3 to 2x2" },
        { "CastToString", "Cast", { I1({ 1 }) }, { ai("to", onnx::TensorProto::STRING) },
            "cannot cast constants to string" },
        { "DropoutInTrainingMode", "Dropout", { F1({ 1 }), Fs(0.5F), Is(1) }, {}, "training-mode dropout is random",
            13 },
        { "DropoutInTrainingModeDefaultRatio", "Dropout", { F1({ 1 }), none, Is(1) }, {},
            "training-mode dropout is random", 13 },
        { "UnknownOp", "Softmax", { F1({ 1 }) }, {}, "cannot be evaluated on constants" },
        { "MissingInput", "Add", { F1({ 1 }) }, {}, "needs its second input" },
    };
}

class Fold : public ::testing::TestWithParam<Case> { };

TEST_P(Fold, MatchesOnnxSemantics)
{
    const auto& c = GetParam();
    ASSERT_TRUE(isFoldableOpType(c.op));
    const auto node = makeNode(c.op, c.inputs, c.attrs, c.expected.size());
    const auto outputs = foldNode(node, c.inputs, c.opset);
    ASSERT_EQ(outputs.size(), c.expected.size());
    for (std::size_t i = 0; i < outputs.size(); ++i)
        expectTensor(*outputs[i], *c.expected[i], i);
}

INSTANTIATE_TEST_SUITE_P(
    Ops, Fold, ::testing::ValuesIn(allCases()), [](const ::testing::TestParamInfo<Case>& p) { return p.param.name; });

class FoldError : public ::testing::TestWithParam<ErrorCase> { };

TEST_P(FoldError, SaysWhatIsWrong)
{
    const auto& c = GetParam();
    const auto node = makeNode(c.op, c.inputs, c.attrs, 1);
    try {
        foldNode(node, c.inputs, c.opset);
        FAIL() << "no error";
    } catch (const ImportError& e) {
        EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << e.what();
    }
}

INSTANTIATE_TEST_SUITE_P(Ops, FoldError, ::testing::ValuesIn(errorCases()),
    [](const ::testing::TestParamInfo<ErrorCase>& p) { return p.param.name; });

TEST(ConstantFolding, EveryCaseOpIsFoldable)
{
    for (const char* op : { "Range", "Mod", "ScatterND", "Where", "Equal", "Less", "Greater", "LessOrEqual",
             "GreaterOrEqual", "Not", "And", "Or", "Xor", "Expand", "Tile", "Pow", "Sqrt", "Reciprocal", "Exp", "Log",
             "Abs", "Neg", "Floor", "Ceil", "Round", "Sign", "Erf", "Tanh", "Sigmoid", "Relu", "Min", "Max", "Clip",
             "Sum", "Mean", "ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ArgMax", "ArgMin",
             "CumSum", "NonZero", "Trilu", "OneHot", "Split", "GatherElements", "GatherND", "Gather", "Cast",
             "ConstantOfShape", "Unsqueeze", "Squeeze", "Concat", "Reshape", "Slice", "Transpose" })
        EXPECT_TRUE(isFoldableOpType(op)) << op;
    EXPECT_FALSE(isFoldableOpType("Softmax"));
    EXPECT_FALSE(isFoldableOpType("MatMul"));
}

// Ops the importer can only evaluate, versus element-wise ones that may also run on activations.
TEST(ConstantFolding, FoldOnlyOpsAreTheShapeComputations)
{
    for (const char* op : { "Range", "ConstantOfShape", "NonZero", "Shape", "Size", "Constant" })
        EXPECT_TRUE(isFoldOnlyOpType(op)) << op;
    // Also imported on activations (onnx_logic_ops.cpp, ArgMax as a reduction, the index ops of
    // onnx_scatter_ops.cpp and onnx_transformer_ops.cpp, OneHot in onnx_composed_math.cpp).
    for (const char* op : { "Mod", "CumSum", "Trilu", "ArgMax", "ArgMin", "And", "Or", "Xor", "LessOrEqual",
             "GreaterOrEqual", "ScatterND", "GatherND", "GatherElements", "OneHot" })
        EXPECT_FALSE(isFoldOnlyOpType(op)) << op;
    for (const char* op : { "Erf", "Pow", "Sqrt", "Exp", "Log", "Abs", "Neg", "Reciprocal", "Tanh", "Sigmoid", "Relu",
             "Where", "Equal", "Less", "Greater", "Not", "Cast", "Expand", "Min", "Max", "Clip", "Gather", "ReduceMean",
             "ReduceSum", "ReduceMax", "Add", "Reshape", "Split", "Tile", "Floor", "Ceil", "Round", "Sign", "Sin",
             "Cos", "Sum", "Mean", "ReduceMin", "ReduceProd" })
        EXPECT_FALSE(isFoldOnlyOpType(op)) << op;
}

// ---------------------------------------------------------------------------------------------
// ONNX's own node tests (libonnx-testdata): every case whose nodes are all foldable, evaluated
// from its input_N.pb and compared with its output_N.pb.

namespace fs = std::filesystem;

// Cases the folder does not reproduce, on purpose, with why.
const std::map<std::string, std::string> kNodeTestLimits {
    // The window functions' references are not symmetric (float32 rounding of their generator);
    // the folded windows are, and differ by up to 1e-4 relative.
    { "test_blackmanwindow_expanded", "reference rounding" },
    { "test_blackmanwindow_symmetric_expanded", "reference rounding" },
    { "test_hammingwindow_expanded", "reference rounding" },
    { "test_hammingwindow_symmetric_expanded", "reference rounding" },
    { "test_hannwindow_expanded", "reference rounding" },
    { "test_hannwindow_symmetric_expanded", "reference rounding" },
    // The test data stores bfloat16 tensors as uint16 bit patterns.
    { "test_cast_BFLOAT16_to_FLOAT", "bfloat16 stored as uint16" },
    { "test_cast_FLOAT_to_BFLOAT16", "bfloat16 stored as uint16" },
    { "test_castlike_BFLOAT16_to_FLOAT_expanded", "bfloat16 stored as uint16" },
    { "test_castlike_FLOAT_to_BFLOAT16_expanded", "bfloat16 stored as uint16" },
    // Constants are numbers: no strings, optionals or sequences.
    { "test_cast_FLOAT_to_STRING", "strings" },
    { "test_cast_STRING_to_FLOAT", "strings" },
    { "test_castlike_FLOAT_to_STRING_expanded", "strings" },
    { "test_castlike_STRING_to_FLOAT_expanded", "strings" },
    { "test_identity_opt", "optional" },
    { "test_identity_sequence", "sequence" },
    // Random: refused rather than folded.
    { "test_training_dropout", "training-mode dropout" },
    { "test_training_dropout_default", "training-mode dropout" },
    { "test_training_dropout_default_mask", "training-mode dropout" },
    { "test_training_dropout_mask", "training-mode dropout" },
};

onnx::TensorProto readTensorFile(const fs::path& file)
{
    std::ifstream in(file, std::ios::binary);
    onnx::TensorProto t;
    t.ParseFromIstream(&in);
    return t;
}

// Empty when the folded outputs match, else what differs.
std::string foldNodeTestCase(const fs::path& dir)
{
    onnx::ModelProto model;
    {
        std::ifstream in(dir / "model.onnx", std::ios::binary);
        if (!model.ParseFromIstream(&in))
            return "model.onnx does not parse";
    }
    int opset = 1;
    for (const auto& o : model.opset_import())
        if (o.domain().empty() || o.domain() == "ai.onnx")
            opset = static_cast<int>(o.version());
    const auto& graph = model.graph();
    std::map<std::string, ConstPtr> values;
    const fs::path data = dir / "test_data_set_0";
    for (const auto& init : graph.initializer())
        values[init.name()] = std::make_shared<ConstTensor>(decodeTensor(init, init.name()));
    int fed = 0;
    for (const auto& in : graph.input())
        if (!values.count(in.name()))
            values[in.name()] = std::make_shared<ConstTensor>(
                decodeTensor(readTensorFile(data / ("input_" + std::to_string(fed++) + ".pb")), in.name()));
    for (const auto& node : graph.node()) {
        std::vector<ConstPtr> inputs;
        for (const auto& in : node.input())
            inputs.push_back(in.empty() ? nullptr : values.at(in));
        const auto outputs = foldNode(node, inputs, opset);
        for (int i = 0; i < node.output_size() && static_cast<std::size_t>(i) < outputs.size(); ++i)
            values[node.output(i)] = outputs[static_cast<std::size_t>(i)];
    }
    std::string why;
    for (int k = 0; k < graph.output_size(); ++k) {
        const auto proto = readTensorFile(data / ("output_" + std::to_string(k) + ".pb"));
        const auto want = decodeTensor(proto, "output");
        const auto it = values.find(graph.output(k).name());
        if (it == values.end() || !it->second) {
            why += "output " + std::to_string(k) + " missing; ";
            continue;
        }
        const auto& got = *it->second;
        if (got.dims != want.dims || got.integer != want.integer || got.size() != want.size()) {
            why += "output " + std::to_string(k) + " is " + dimsToString(got.dims) + (got.integer ? " int" : " float")
                + ", expected " + dimsToString(want.dims) + (want.integer ? " int" : " float") + "; ";
            continue;
        }
        // Results computed in float32: float16 and float64 references are met to their precision.
        const bool half
            = proto.data_type() == onnx::TensorProto::FLOAT16 || proto.data_type() == onnx::TensorProto::BFLOAT16;
        const double rtol = half ? 1e-2 : 1e-5, atol = half ? 1e-3 : 1e-6;
        for (std::size_t i = 0; i < want.size(); ++i) {
            const double a = got.at(i), b = want.at(i);
            const bool same = want.integer ? got.ints[i] == want.ints[i]
                : std::isnan(b)            ? std::isnan(a)
                : std::isinf(b)            ? a == b
                                           : std::abs(a - b) <= atol + rtol * std::abs(b);
            if (!same) {
                why += "output " + std::to_string(k) + " element " + std::to_string(i) + " is " + std::to_string(a)
                    + ", expected " + std::to_string(b) + "; ";
                break;
            }
        }
    }
    return why;
}

TEST(ConstantFolding, MatchesOnnxNodeTests)
{
    const fs::path root = fs::path(OPSCHED_ONNX_TESTDATA) / "node";
    if (!fs::is_directory(root))
        GTEST_SKIP() << "libonnx-testdata is not installed (" << root << ")";
    std::vector<fs::path> cases;
    for (const auto& entry : fs::directory_iterator(root))
        cases.push_back(entry.path());
    std::sort(cases.begin(), cases.end());
    int checked = 0;
    std::set<std::string> limitsSeen;
    for (const auto& dir : cases) {
        onnx::ModelProto model;
        std::ifstream in(dir / "model.onnx", std::ios::binary);
        if (!model.ParseFromIstream(&in) || model.graph().node_size() == 0)
            continue;
        bool foldable = true;
        for (const auto& node : model.graph().node())
            foldable = foldable && node.domain().empty() && isFoldableOpType(node.op_type());
        if (!foldable)
            continue;
        const std::string name = dir.filename().string();
        std::string why;
        try {
            why = foldNodeTestCase(dir);
        } catch (const std::exception& e) {
            why = std::string("throws: ") + e.what();
        }
        const auto limit = kNodeTestLimits.find(name);
        if (limit != kNodeTestLimits.end()) {
            limitsSeen.insert(name);
            EXPECT_FALSE(why.empty()) << name << " passes now: take it off the known limits";
            continue;
        }
        ++checked;
        EXPECT_TRUE(why.empty()) << name << ": " << why;
    }
    for (const auto& [name, reason] : kNodeTestLimits)
        EXPECT_TRUE(limitsSeen.count(name)) << name << " is a known limit but was not seen";
    std::printf("[ folding  ] %d node tests folded and compared, %zu known limits\n", checked, kNodeTestLimits.size());
    EXPECT_GT(checked, 200);
}

// ---------------------------------------------------------------------------------------------
// Whole models: constant subgraphs as exporters write them fold away before the IR is built.

// int64 initializers of any shape (ModelMaker::ints makes 1-D ones).
void intTensor(ModelMaker& m, const std::string& name, const Dims& dims, const Ints& values)
{
    auto* t = m.graph().add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    for (auto d : dims)
        t->add_dims(d);
    for (auto v : values)
        t->add_int64_data(v);
}

// A Swin-style shifted-window mask (Range -> Mod -> Equal -> Where -> ScatterND) sized from the
// input's Shape, and T5-style relative position buckets (Range -> Sub -> Abs -> Cast -> Log ->
// Clip -> Cast), both only feeding the target of a Reshape of the input: everything but the
// Reshape folds away.
TEST(ConstantFolding, TransformerShapeSubgraphsFoldAway)
{
    ModelMaker m(17);
    m.input("x", { 1, 4, 6 }).output("y", { 1, 4, 6 }); // ONNX cannot infer the folded target
    m.ints("zero1", { 0 }).ints("one1", { 1 }).ints("two1", { 2 }).ints("minus1", { -1 }).ints("updates", { 1, 1 });
    intTensor(m, "s0", {}, { 0 });
    intTensor(m, "s1", {}, { 1 });
    intTensor(m, "s2", {}, { 2 });
    intTensor(m, "s3", {}, { 3 });
    intTensor(m, "where", { 2, 1 }, { 2, 5 });
    m.weight("fzero", {}, { 0.0F });
    m.node("Shape", { "x" }, { "shape" }, "shape");
    m.node("Gather", { "shape", "s2" }, { "n" }, "take_n"); // 6
    m.node("Range", { "s0", "n", "s1" }, { "pos" }, "range"); // 0 1 2 3 4 5
    m.node("Mod", { "pos", "s3" }, { "pos3" }, "mod"); // 0 1 2 0 1 2
    m.node("Equal", { "pos3", "s0" }, { "mask" }, "equal"); // 1 0 0 1 0 0
    m.node("Where", { "mask", "s1", "pos3" }, { "w" }, "where_node"); // 1 1 2 1 1 2
    m.node("ScatterND", { "w", "where", "updates" }, { "ones" }, "scatter"); // all ones
    m.node("ReduceSum", { "ones", "zero1" }, { "six" }, "sum"); // [6]
    m.node("Expand", { "six", "two1" }, { "six2" }, "expand"); // [6 6]
    m.node("Slice", { "six2", "zero1", "one1" }, { "last" }, "slice"); // [6]
    m.node("Range", { "s0", "s2", "s1" }, { "r2" }, "range2"); // 0 1
    m.node("Sub", { "r2", "s1" }, { "rel" }, "sub"); // -1 0
    m.node("Abs", { "rel" }, { "absrel" }, "abs"); // 1 0
    ModelMaker::attr(
        m.node("Cast", { "absrel" }, { "absf" }, "to_float"), "to", std::int64_t { onnx::TensorProto::FLOAT });
    m.node("Log", { "absf" }, { "logs" }, "log"); // 0 -inf
    m.node("Clip", { "logs", "fzero" }, { "clipped" }, "clip"); // 0 0
    ModelMaker::attr(
        m.node("Cast", { "clipped" }, { "bucket" }, "to_int"), "to", std::int64_t { onnx::TensorProto::INT64 });
    m.node("ReduceMax", { "bucket" }, { "zero" }, "max"); // [0]
    m.node("Add", { "last", "zero" }, { "last_dim" }, "add"); // [6]
    ModelMaker::attr(
        m.node("Concat", { "one1", "minus1", "last_dim" }, { "target" }, "concat"), "axis", std::int64_t { 0 });
    m.node("Reshape", { "x", "target" }, { "y" }, "reshape");
    const Graph g = importOnnx(m.save());
    EXPECT_EQ(g.opCount(), 1U);
    EXPECT_EQ(g.tensor(g.outputs().at(0)).shape, (Shape { 1, 4, 6 }));
}

// An op that has no IR counterpart says so when it meets an activation.
TEST(ConstantFolding, FoldOnlyOpsOnActivationsAreReported)
{
    ModelMaker m;
    m.input("x", { 1, 4 }).output("t");
    m.graph().mutable_output(0)->mutable_type()->mutable_tensor_type()->set_elem_type(onnx::TensorProto::INT64);
    m.node("NonZero", { "x" }, { "t" }, "nonzero");
    try {
        importOnnx(m.save());
        FAIL() << "NonZero of an activation was imported";
    } catch (const ImportError& e) {
        EXPECT_NE(std::string(e.what()).find("'nonzero' (NonZero): is only supported on constants"), std::string::npos)
            << e.what();
    }
}

} // namespace
