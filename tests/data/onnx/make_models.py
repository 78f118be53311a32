#!/usr/bin/env python3
"""Regenerates the small ONNX models the CLI tests use (python3-onnx and numpy; run from anywhere).

two_branch.onnx        1x3x16x16 -> two parallel convs (1x1, 3x3 + BatchNorm) -> channel concat
                       -> relu -> global average pool -> flatten -> fc(10)
two_branch_truncated.onnx  the first half of two_branch.onnx's bytes
unsupported_ops.onnx   a valid model using ops opsched does not import (Erf, LRN, a custom domain)
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
        helper.make_node("LRN", ["e"], ["l"], name="lrn", size=3),
        helper.make_node("Relu", ["l"], ["y"], name="relu"),
        helper.make_node("FancyNorm", ["x"], ["z"], name="fancy", domain="com.example"),
    ]
    graph = helper.make_graph(nodes, "unsupported_ops",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 8, 8]),
                               helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 3, 8, 8])])
    return helper.make_model(graph, producer_name="opsched make_models.py",
                             opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid("com.example", 1)])


if __name__ == "__main__":
    model = two_branch()
    save(model, "two_branch.onnx")
    data = model.SerializeToString()
    with open(os.path.join(HERE, "two_branch_truncated.onnx"), "wb") as f:
        f.write(data[: len(data) // 2])
    save(unsupported_ops(), "unsupported_ops.onnx")
