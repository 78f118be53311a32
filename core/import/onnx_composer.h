// Small element-wise ops for mappings composed of several (GridSample, the hyperbolic and
// inverse functions, IsNaN, IsInf, Shrink, OneHot), each named after the node it comes from.
#pragma once

#include "import/onnx_mapping_support.h"

#include <string>
#include <utility>
#include <vector>

namespace opsched::onnx_import {

// Emits the ops of one node's composition, each named <node>:<what>.
class Composer {
public:
    Composer(ImportContext& ctx, std::string base)
        : ctx_(ctx)
        , base_(std::move(base))
    {
    }

    // x kind c (or c kind x with constantFirst), a constant of `shape` (one value by default).
    TensorId withConstant(const std::string& what, TensorId x, BinaryKind kind, std::vector<float> c,
        Shape shape = Shape { 1 }, bool constantFirst = false, Activation act = {})
    {
        const TensorId w = ctx_.newWeight(base_ + "." + what, std::move(shape), std::move(c));
        return addSimpleOp(
            ctx_, name(what), binaryOpKind(kind), { { x } }, makeLayer(Binary { kind, constantFirst }, { w }, act));
    }
    TensorId binary(const std::string& what, TensorId a, TensorId b, BinaryKind kind)
    {
        return addSimpleOp(ctx_, name(what), binaryOpKind(kind), { { a }, { b } }, makeLayer(Binary { kind }));
    }
    TensorId unary(const std::string& what, TensorId x, Activation act)
    {
        return addSimpleOp(ctx_, name(what), OpKind::Math, { { x } }, makeLayer(Eltwise { act }));
    }
    std::string name(const std::string& what) { return ctx_.derivedOpName(base_ + ":" + what); }

private:
    ImportContext& ctx_;
    std::string base_;
};

} // namespace opsched::onnx_import
