#!/usr/bin/env python3
"""Writes ONNX models of opsets 18 to 22, the forms newer exporters write, with reference outputs,
for `opsched-cli run --check` (the ONNX library opsched builds against checks opsets up to 17 only).

    export_newer_opsets.py --out DIR [--batch 1]

For each case, writes
    DIR/<case>/model.onnx
    DIR/<case>/test_data_set_K/input_0.pb, output_N.pb   K = 0 and 1: two seeded inputs and the
                                                         outputs PyTorch (or numpy, for the formulas
                                                         the ONNX specification gives) computes for
                                                         them in float64
    DIR/<case>/test_data_set_mismatch/                   the input of set 1 with the outputs of set 0
The script refuses a case whose two outputs do not differ by far more than a check's tolerance.

Cases ([opset] what the graph uses that opset 17 does not have):
  reduce_axes_input     [18] ReduceMean / ReduceMax with axes as an input (an initializer and a
                             Constant node), keepdims 0 and 1
  reduce_empty_axes     [18] ReduceMean with noop_with_empty_axes=1 and no axes (the identity),
                             ReduceMax over every axis
  split_num_outputs     [18] Split by num_outputs: 5 into 3+2 (the last part smaller) and 6 into 2+2+2
  pad_axes              [18] Pad over listed axes (constant with a value, negative axes; reflect), and
                             a zero Pad over the spatial axes before a convolution
  resize_axes           [18] Resize with axes (linear, half_pixel, scales 2 and 1.5), antialias=1
                             while upsampling, nearest with sizes and keep_aspect_ratio_policy
                             not_larger
  resize_symmetric      [19] Resize's half_pixel_symmetric coordinates (linear, scale 1.5)
  group_norm_18         [18] GroupNormalization with the scale and bias per group
  group_norm_21         [21] GroupNormalization with the scale and bias per channel (IR version 10)
  gelu_mish             [20] Gelu (erf and approximate="tanh") and Mish after a convolution
  cast_pool_19          [19] Cast with saturate, AveragePool with unit dilations
  conv_block_22         [22] a small network: Conv, GroupNormalization (21 form), Gelu, Pad over two
                             axes, a Split by num_outputs, ReduceMean with an axes input and a Gemm
"""
import argparse
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import TensorProto, helper, numpy_helper

SEED = 2026
IR_VERSION = {18: 8, 19: 9, 20: 9, 21: 10, 22: 10}


def init(name, array):
    array = np.asarray(array)
    return numpy_helper.from_array(array.astype(np.int64 if array.dtype.kind in "iu" else np.float32), name)


def const_node(name, values):
    return helper.make_node("Constant", [], [name], name=name + "_const",
                            value=numpy_helper.from_array(np.asarray(values, np.int64), name))


def t(x):
    return torch.from_numpy(np.asarray(x, np.float64))


# Resize formulas from the ONNX specification (1-D along each axis, separable).
def source_coords(out_len, in_len, scale, mode):
    x = np.arange(out_len, dtype=np.float64)
    if mode == "half_pixel":
        return (x + 0.5) / scale - 0.5
    if mode == "half_pixel_symmetric":
        adjustment = out_len / (scale * in_len)
        offset = in_len / 2 * (1 - adjustment)
        return offset + (x + 0.5) / scale - 0.5
    if mode == "asymmetric":
        return x / scale
    raise ValueError(mode)


def linear_axis(a, axis, out_len, scale, mode):
    in_len = a.shape[axis]
    src = np.clip(source_coords(out_len, in_len, scale, mode), 0, in_len - 1)
    lo = np.floor(src).astype(np.int64)
    hi = np.minimum(lo + 1, in_len - 1)
    w = src - lo
    shape = [1] * a.ndim
    shape[axis] = out_len
    return np.take(a, lo, axis) * (1 - w).reshape(shape) + np.take(a, hi, axis) * w.reshape(shape)


def nearest_axis(a, axis, out_len, scale):
    src = np.floor(source_coords(out_len, a.shape[axis], scale, "asymmetric")).astype(np.int64)
    return np.take(a, np.clip(src, 0, a.shape[axis] - 1), axis)


def graph_model(name, opset, nodes, inputs, outputs, inits):
    graph = helper.make_graph(nodes, name, inputs, outputs, inits)
    model = helper.make_model(graph, producer_name="opsched export_newer_opsets.py",
                              opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = IR_VERSION[opset]
    return model


def vi(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def case_reduce_axes_input(rng, batch):
    shape = [batch, 4, 5, 6]
    nodes = [const_node("last", [-1]),
             helper.make_node("ReduceMean", ["x", "spatial"], ["m"], name="mean_hw", keepdims=1),
             helper.make_node("Sub", ["x", "m"], ["d"], name="centre"),
             helper.make_node("ReduceMax", ["d", "last"], ["y"], name="max_w", keepdims=0)]
    model = graph_model("reduce_axes_input", 18, nodes, [vi("x", shape)], [vi("y", [batch, 4, 5])],
                        [init("spatial", [2, 3])])

    def ref(x):
        d = x - x.mean(dim=(2, 3), keepdim=True)
        return [d.amax(dim=-1)]
    return model, shape, ref


def case_reduce_empty_axes(rng, batch):
    shape = [batch, 3, 4, 4]
    nodes = [helper.make_node("ReduceMean", ["x"], ["same"], name="noop_mean", noop_with_empty_axes=1),
             helper.make_node("ReduceMax", ["x"], ["top"], name="max_all", keepdims=1),
             helper.make_node("Mul", ["same", "two"], ["twice"], name="twice"),
             helper.make_node("Add", ["twice", "top"], ["y"], name="plus_max")]
    model = graph_model("reduce_empty_axes", 18, nodes, [vi("x", shape)], [vi("y", shape)],
                        [init("two", np.float32(2.0))])
    return model, shape, lambda x: [2 * x + x.amax()]


def case_split_num_outputs(rng, batch):
    shape = [batch, 11, 4]
    nodes = [helper.make_node("Split", ["x", "cut"], ["head", "tail"], name="first_cut", axis=1),
             helper.make_node("Split", ["head"], ["a", "b"], name="uneven", axis=1, num_outputs=2),
             helper.make_node("Split", ["tail"], ["c", "d", "e"], name="even", axis=1, num_outputs=3),
             helper.make_node("Relu", ["a"], ["ra"], name="relu_a"),
             helper.make_node("Sigmoid", ["b"], ["sb"], name="sigmoid_b"),
             helper.make_node("Concat", ["e", "d", "c"], ["y1"], name="reversed", axis=1),
             helper.make_node("Concat", ["sb", "ra"], ["y0"], name="swapped", axis=1)]
    model = graph_model("split_num_outputs", 18, nodes, [vi("x", shape)],
                        [vi("y0", [batch, 5, 4]), vi("y1", [batch, 6, 4])], [init("cut", [5, 6])])

    def ref(x):
        a, b = x[:, 0:3], x[:, 3:5]
        c, d, e = x[:, 5:7], x[:, 7:9], x[:, 9:11]
        return [torch.cat([torch.sigmoid(b), torch.relu(a)], 1), torch.cat([e, d, c], 1)]
    return model, shape, ref


def case_pad_axes(rng, batch):
    shape = [batch, 3, 5, 6]
    w = rng.standard_normal((4, 3, 3, 3)) * 0.2
    nodes = [helper.make_node("Pad", ["x", "pads_c", "half", "axes_c"], ["pc"], name="pad_wh", mode="constant"),
             helper.make_node("Pad", ["pc", "pads_r", "", "axes_r"], ["y0"], name="pad_reflect", mode="reflect"),
             helper.make_node("Pad", ["x", "pads_z", "", "axes_z"], ["pz"], name="pad_zero"),
             helper.make_node("Conv", ["pz", "w"], ["y1"], name="conv")]
    model = graph_model("pad_axes", 18, nodes, [vi("x", shape)],
                        [vi("y0", [batch, 3, 7, 10]), vi("y1", [batch, 4, 5, 6])],
                        [init("pads_c", [1, 0, 0, 2]), init("axes_c", [-1, 2]), init("half", np.float32(0.5)),
                         init("pads_r", [2, 1]), init("axes_r", [3]),
                         init("pads_z", [1, 1, 1, 1]), init("axes_z", [2, 3]), init("w", w)])
    # pad_wh: W gets 1 before and 0 after, H 0 before and 2 after; then W reflects 2 before, 1 after.

    def ref(x):
        pc = F.pad(x, (1, 0, 0, 2), value=0.5)
        pr = F.pad(pc, (2, 1, 0, 0), mode="reflect")
        return [pr, F.conv2d(F.pad(x, (1, 1, 1, 1)), t(w))]
    return model, shape, ref


def case_resize_axes(rng, batch):
    shape = [batch, 2, 4, 5]
    nodes = [helper.make_node("Resize", ["x", "", "scales"], ["y0"], name="linear_axes", mode="linear",
                              coordinate_transformation_mode="half_pixel", axes=[2, 3]),
             helper.make_node("Resize", ["x", "", "up"], ["y1"], name="antialias_up", mode="linear", antialias=1,
                              coordinate_transformation_mode="half_pixel"),
             helper.make_node("Resize", ["x", "", "", "sizes"], ["y2"], name="nearest_aspect", mode="nearest",
                              axes=[2, 3], keep_aspect_ratio_policy="not_larger",
                              coordinate_transformation_mode="asymmetric", nearest_mode="floor")]
    model = graph_model("resize_axes", 18, nodes, [vi("x", shape)],
                        [vi("y0", [batch, 2, 8, 7]), vi("y1", [batch, 2, 8, 10]), vi("y2", [batch, 2, 7, 9])],
                        [init("scales", np.array([2.0, 1.5], np.float32)),
                         init("up", np.array([1, 1, 2, 2], np.float32)), init("sizes", [9, 9])])

    def ref(x):
        a = x.numpy()
        y0 = linear_axis(linear_axis(a, 2, 8, 2.0, "half_pixel"), 3, 7, 1.5, "half_pixel")
        y1 = linear_axis(linear_axis(a, 2, 8, 2.0, "half_pixel"), 3, 10, 2.0, "half_pixel")
        scale = min(9 / 4, 9 / 5)  # not_larger: the smaller ratio for both axes; sizes 7x9
        y2 = nearest_axis(nearest_axis(a, 2, 7, scale), 3, 9, scale)
        return [t(y0), t(y1), t(y2)]
    return model, shape, ref


def case_resize_symmetric(rng, batch):
    shape = [batch, 2, 5, 4]
    nodes = [helper.make_node("Resize", ["x", "", "scales"], ["y"], name="symmetric", mode="linear",
                              coordinate_transformation_mode="half_pixel_symmetric")]
    model = graph_model("resize_symmetric", 19, nodes, [vi("x", shape)], [vi("y", [batch, 2, 7, 6])],
                        [init("scales", np.array([1, 1, 1.5, 1.5], np.float32))])

    def ref(x):
        a = linear_axis(x.numpy(), 2, 7, 1.5, "half_pixel_symmetric")
        return [t(linear_axis(a, 3, 6, 1.5, "half_pixel_symmetric"))]
    return model, shape, ref


def group_norm_case(name, opset, rng, batch):
    shape = [batch, 6, 4, 5]
    groups = 3
    per = 6 if opset >= 21 else groups
    scale = rng.uniform(0.5, 1.5, per)
    bias = rng.uniform(-0.5, 0.5, per)
    attrs = {"num_groups": groups, "epsilon": 1e-3}
    if opset >= 21:
        attrs["stash_type"] = 1
    nodes = [helper.make_node("GroupNormalization", ["x", "scale", "bias"], ["y"], name="gn", **attrs)]
    model = graph_model(name, opset, nodes, [vi("x", shape)], [vi("y", shape)],
                        [init("scale", scale), init("bias", bias)])
    per_channel = (lambda v: v) if opset >= 21 else (lambda v: np.repeat(v, 6 // groups))

    def ref(x):
        return [F.group_norm(x, groups, t(per_channel(scale.astype(np.float32))),
                             t(per_channel(bias.astype(np.float32))), eps=1e-3)]
    return model, shape, ref


def case_gelu_mish(rng, batch):
    shape = [batch, 3, 6, 6]
    w = rng.standard_normal((4, 3, 3, 3)) * 0.3
    b = rng.standard_normal(4) * 0.1
    nodes = [helper.make_node("Gelu", ["x"], ["y0"], name="gelu"),
             helper.make_node("Gelu", ["x"], ["y1"], name="gelu_tanh", approximate="tanh"),
             helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             helper.make_node("Mish", ["c"], ["y2"], name="mish")]
    model = graph_model("gelu_mish", 20, nodes, [vi("x", shape)],
                        [vi("y0", shape), vi("y1", shape), vi("y2", [batch, 4, 6, 6])], [init("w", w), init("b", b)])

    def ref(x):
        c = F.conv2d(x, t(w.astype(np.float32)), t(b.astype(np.float32)), padding=1)
        return [F.gelu(x), F.gelu(x, approximate="tanh"), F.mish(c)]
    return model, shape, ref


def case_cast_pool(rng, batch):
    shape = [batch, 2, 6, 6]
    nodes = [helper.make_node("Mul", ["x", "three"], ["x3"], name="scale"),
             helper.make_node("Cast", ["x3"], ["i"], name="to_int", to=TensorProto.INT32, saturate=1),
             helper.make_node("Cast", ["i"], ["y0"], name="to_float", to=TensorProto.FLOAT, saturate=1),
             helper.make_node("AveragePool", ["x"], ["y1"], name="pool", kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                              strides=[2, 2], dilations=[1, 1], count_include_pad=0)]
    model = graph_model("cast_pool_19", 19, nodes, [vi("x", shape)], [vi("y0", shape), vi("y1", [batch, 2, 3, 3])],
                        [init("three", np.float32(3.0))])

    def ref(x):
        return [torch.trunc(x * 3), F.avg_pool2d(x, 3, 2, 1, count_include_pad=False)]
    return model, shape, ref


def case_conv_block(rng, batch):
    shape = [batch, 3, 8, 8]
    w = rng.standard_normal((8, 3, 3, 3)) * 0.3
    scale, bias = rng.uniform(0.5, 1.5, 8), rng.uniform(-0.3, 0.3, 8)
    fc_w, fc_b = rng.standard_normal((5, 4)) * 0.3, rng.standard_normal(5) * 0.1
    nodes = [helper.make_node("Pad", ["x", "pads", "", "hw"], ["p"], name="pad_hw"),
             helper.make_node("Conv", ["p", "w"], ["c"], name="conv", strides=[2, 2]),
             helper.make_node("GroupNormalization", ["c", "gn_scale", "gn_bias"], ["g"], name="gn", num_groups=2),
             helper.make_node("Gelu", ["g"], ["a"], name="gelu"),
             helper.make_node("Split", ["a"], ["s0", "s1"], name="halves", axis=1, num_outputs=2),
             helper.make_node("Mul", ["s0", "s1"], ["gated"], name="gate"),
             helper.make_node("ReduceMean", ["gated", "hw"], ["pooled"], name="pool", keepdims=0),
             helper.make_node("Gemm", ["pooled", "fc_w", "fc_b"], ["y"], name="fc", transB=1)]
    model = graph_model("conv_block_22", 22, nodes, [vi("x", shape)], [vi("y", [batch, 5])],
                        [init("pads", [1, 1, 1, 1]), init("hw", [2, 3]), init("w", w), init("gn_scale", scale),
                         init("gn_bias", bias), init("fc_w", fc_w), init("fc_b", fc_b)])
    f32 = lambda a: t(a.astype(np.float32))  # noqa: E731

    def ref(x):
        c = F.conv2d(F.pad(x, (1, 1, 1, 1)), f32(w), stride=2)
        a = F.gelu(F.group_norm(c, 2, f32(scale), f32(bias)))
        gated = a[:, :4] * a[:, 4:]
        return [gated.mean(dim=(2, 3)) @ f32(fc_w).T + f32(fc_b)]
    return model, shape, ref


CASES = {
    "reduce_axes_input": case_reduce_axes_input,
    "reduce_empty_axes": case_reduce_empty_axes,
    "split_num_outputs": case_split_num_outputs,
    "pad_axes": case_pad_axes,
    "resize_axes": case_resize_axes,
    "resize_symmetric": case_resize_symmetric,
    "group_norm_18": lambda rng, batch: group_norm_case("group_norm_18", 18, rng, batch),
    "group_norm_21": lambda rng, batch: group_norm_case("group_norm_21", 21, rng, batch),
    "gelu_mish": case_gelu_mish,
    "cast_pool_19": case_cast_pool,
    "conv_block_22": case_conv_block,
}


def save_tensor(array, name, path):
    with open(path, "wb") as f:
        f.write(numpy_helper.from_array(np.ascontiguousarray(array, np.float32), name).SerializeToString())


def write_set(folder, model, x, outputs):
    os.makedirs(folder, exist_ok=True)
    save_tensor(x, model.graph.input[0].name, os.path.join(folder, "input_0.pb"))
    for k, y in enumerate(outputs):
        save_tensor(y, model.graph.output[k].name, os.path.join(folder, f"output_{k}.pb"))


def export(name, out, batch):
    rng = np.random.default_rng(SEED + sum(map(ord, name)))
    model, shape, ref = CASES[name](rng, batch)
    folder = os.path.join(out, name)
    os.makedirs(folder, exist_ok=True)
    inputs = [rng.standard_normal(shape).astype(np.float32) for _ in range(2)]
    sets = []
    for x in inputs:
        with torch.no_grad():
            ys = [y.numpy() for y in ref(t(x))]
        for k, y in enumerate(ys):
            declared = [d.dim_value for d in model.graph.output[k].type.tensor_type.shape.dim]
            if list(y.shape) != declared:
                raise SystemExit(f"{name}: output {k} is {list(y.shape)}, the model declares {declared}")
        sets.append(ys)
    for k in range(len(sets[0])):
        gap = np.abs(sets[0][k] - sets[1][k]).max()
        if gap < 1e-3 * max(1.0, np.abs(sets[0][k]).max()):
            raise SystemExit(f"{name}: output {k} barely depends on the input ({gap})")
    with open(os.path.join(folder, "model.onnx"), "wb") as f:
        f.write(model.SerializeToString())
    write_set(os.path.join(folder, "test_data_set_0"), model, inputs[0], sets[0])
    write_set(os.path.join(folder, "test_data_set_1"), model, inputs[1], sets[1])
    write_set(os.path.join(folder, "test_data_set_mismatch"), model, inputs[1], sets[0])
    print(f"{name}: opset {model.opset_import[0].version}, {len(model.graph.node)} nodes")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", required=True)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--cases", default=",".join(CASES))
    args = parser.parse_args()
    names = [n for n in args.cases.split(",") if n]
    unknown = [n for n in names if n not in CASES]
    if unknown or args.batch < 1:
        print(f"unknown cases: {', '.join(unknown)}" if unknown else "--batch must be positive", file=sys.stderr)
        return 2
    for name in names:
        export(name, args.out, args.batch)
    return 0


if __name__ == "__main__":
    sys.exit(main())
