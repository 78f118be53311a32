#!/usr/bin/env python3
"""Regenerates the small ONNX models the CLI tests use (python3-onnx and numpy; run from anywhere).

two_branch.onnx        1x3x16x16 -> two parallel convs (1x1, 3x3 + BatchNorm) -> channel concat
                       -> relu -> global average pool -> flatten -> fc(10)
two_branch_truncated.onnx  the first half of two_branch.onnx's bytes
unsupported_ops.onnx   a valid model using ops opsched does not import (Acos, a custom domain)
two_branch_testdata/   test data for two_branch.onnx (run --input/--check), outputs computed with numpy:
    test_data_set_0/     a seeded input and its output
    wrong_output/        the same input, one output value changed (--check fails)
    wrong_output_shape/  a reference output of shape 1x5 (an error before running)
    wrong_input_shape/   an input of shape 1x3x8x8 (an error before running)
"""
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(7)


def weight(name, *shape):
    return numpy_helper.from_array((rng.standard_normal(shape) * 0.1).astype(np.float32), name)


def save(model, name):
    onnx.checker.check_model(model)
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(model.SerializeToString())


def two_branch():
    inits = [
        weight("w1", 8, 3, 1, 1), weight("b1", 8),
        weight("w2", 8, 3, 3, 3),
        numpy_helper.from_array(np.linspace(0.5, 1.5, 8).astype(np.float32), "bn_scale"),
        numpy_helper.from_array(np.linspace(-0.1, 0.1, 8).astype(np.float32), "bn_bias"),
        numpy_helper.from_array(np.zeros(8, np.float32), "bn_mean"),
        numpy_helper.from_array(np.ones(8, np.float32), "bn_var"),
        weight("fc_w", 10, 16), weight("fc_b", 10),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["a"], name="branch1x1"),
        helper.make_node("Conv", ["x", "w2"], ["b"], name="branch3x3", pads=[1, 1, 1, 1]),
        helper.make_node("BatchNormalization", ["b", "bn_scale", "bn_bias", "bn_mean", "bn_var"], ["bn"],
                         name="branch3x3_bn"),
        helper.make_node("Concat", ["a", "bn"], ["cat"], name="concat", axis=1),
        helper.make_node("Relu", ["cat"], ["r"], name="relu"),
        helper.make_node("GlobalAveragePool", ["r"], ["g"], name="pool"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "fc_w", "fc_b"], ["y"], name="fc", transB=1),
    ]
    graph = helper.make_graph(nodes, "two_branch",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], inits)
    return helper.make_model(graph, producer_name="opsched make_models.py", opset_imports=[helper.make_opsetid("", 13)])


def unsupported_ops():
    nodes = [
        helper.make_node("Erf", ["x"], ["e"], name="erf"),
        helper.make_node("Acos", ["e"], ["l"], name="acos"),
        helper.make_node("Relu", ["l"], ["y"], name="relu"),
        helper.make_node("FancyNorm", ["x"], ["z"], name="fancy", domain="com.example"),
    ]
    graph = helper.make_graph(nodes, "unsupported_ops",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 8, 8]),
                               helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 3, 8, 8])])
    return helper.make_model(graph, producer_name="opsched make_models.py",
                             opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.example", 1)])


def conv2d(x, w, b=None, pad=0):
    """Direct NCHW convolution, stride 1: the reference is independent of any library kernel."""
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - kh + 1, wd + 2 * pad - kw + 1
    y = np.zeros((n, o, oh, ow), np.float64)
    for i in range(kh):
        for j in range(kw):
            y += np.einsum("nchw,oc->nohw", xp[:, :, i:i + oh, j:j + ow], w[:, :, i, j])
    if b is not None:
        y += b.reshape(1, -1, 1, 1)
    return y


def two_branch_reference(model, x):
    """two_branch's forward pass in float64 numpy."""
    p = {t.name: numpy_helper.to_array(t).astype(np.float64) for t in model.graph.initializer}
    a = conv2d(x, p["w1"], p["b1"])
    b = conv2d(x, p["w2"], pad=1)
    scale = p["bn_scale"] / np.sqrt(p["bn_var"] + 1e-5)  # BatchNormalization's default epsilon
    bn = (b - p["bn_mean"].reshape(1, -1, 1, 1)) * scale.reshape(1, -1, 1, 1) + p["bn_bias"].reshape(1, -1, 1, 1)
    r = np.maximum(np.concatenate([a, bn], axis=1), 0.0)
    f = r.mean(axis=(2, 3))
    return f @ p["fc_w"].T + p["fc_b"]


def write_test_data(folder, inputs, outputs):
    os.makedirs(folder, exist_ok=True)
    for kind, arrays in (("input", inputs), ("output", outputs)):
        for i, (name, a) in enumerate(arrays):
            tensor = numpy_helper.from_array(np.asarray(a, np.float32), name)
            with open(os.path.join(folder, "%s_%d.pb" % (kind, i)), "wb") as f:
                f.write(tensor.SerializeToString())


def two_branch_testdata(model):
    data_rng = np.random.default_rng(11)  # its own generator: the models above stay byte-identical
    x = data_rng.uniform(-1.0, 1.0, (1, 3, 16, 16)).astype(np.float32)
    y = two_branch_reference(model, x.astype(np.float64)).astype(np.float32)
    root = os.path.join(HERE, "two_branch_testdata")
    write_test_data(os.path.join(root, "test_data_set_0"), [("x", x)], [("y", y)])
    wrong = y.copy()
    wrong[0, 3] += 0.5
    write_test_data(os.path.join(root, "wrong_output"), [("x", x)], [("y", wrong)])
    write_test_data(os.path.join(root, "wrong_output_shape"), [("x", x)], [("y", y[:, :5])])
    write_test_data(os.path.join(root, "wrong_input_shape"), [("x", x[:, :, :8, :8])], [("y", y)])


if __name__ == "__main__":
    model = two_branch()
    save(model, "two_branch.onnx")
    data = model.SerializeToString()
    with open(os.path.join(HERE, "two_branch_truncated.onnx"), "wb") as f:
        f.write(data[: len(data) // 2])
    save(unsupported_ops(), "unsupported_ops.onnx")
    two_branch_testdata(model)
