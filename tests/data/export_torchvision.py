#!/usr/bin/env python3
"""Exports torchvision networks as ONNX models with reference outputs, for `opsched-cli run --check`.

    export_torchvision.py --out DIR [--models a,b,...] [--batch 1]

For each model, writes
    DIR/<name>/model.onnx
    DIR/<name>/test_data_set_0/input_0.pb    the input (TensorProto)
    DIR/<name>/test_data_set_0/output_0.pb   PyTorch's output for it, in eval mode, computed in
                                             float64 (the exact answer for float32 weights and input,
                                             so a check measures opsched's own float32 error)

Weights are random from a fixed seed (nothing is downloaded). BatchNorm gets random affine
parameters and running statistics measured on a seeded calibration batch, so activations keep the
scale of a trained network (torchvision's initialisation alone lets Inception V3's logits reach
1e13, where every float32 difference is a cancellation) and folding BN into the convs is exercised. The script works with Debian's
PyTorch 1.13 (python3-torchvision, python3-onnx) and with torch 2.x (it asks for the TorchScript
exporter there). Exit 0 on success, 1 when an export fails, 2 for a usage error.
"""
import argparse
import inspect
import os
import sys
import time

import numpy as np
import onnx
import torch
import torchvision
from onnx import numpy_helper

MODELS = ["googlenet", "inception_v3", "squeezenet1_1", "resnet50", "mobilenet_v2"]
OPSET = 13
SEED = 2024


def input_size(name):
    return 299 if name == "inception_v3" else 224


def construct(name):
    """The architecture with torchvision's own random initialisation (no download)."""
    factory = getattr(torchvision.models, name)
    # `weights` is the keyword since torchvision 0.13; older ones call it `pretrained`.
    kwargs = {"weights": None} if "weights" in inspect.signature(factory).parameters else {"pretrained": False}
    if name in ("googlenet", "inception_v3"):
        # No auxiliary classifiers (eval mode ignores them anyway); init_weights=True silences the
        # warning about the changed default and keeps the initialisation the same across versions.
        kwargs.update(aux_logits=False, init_weights=True)
    return factory(**kwargs)


def batchnorms(model):
    return [m for m in model.modules() if isinstance(m, torch.nn.BatchNorm2d)]


def randomize_batchnorm(model, generator):
    """Random affine parameters, then running statistics from a calibration batch in train mode."""
    for m in batchnorms(model):
        c = m.num_features
        with torch.no_grad():
            m.weight.copy_(torch.rand(c, generator=generator) * 0.5 + 0.75)
            m.bias.copy_(torch.rand(c, generator=generator) * 0.2 - 0.1)
        m.reset_running_stats()
        m.momentum = None  # a cumulative average: after one batch, exactly that batch's statistics


def calibrate(model, size, generator):
    if not batchnorms(model):
        return
    model.train()
    with torch.no_grad():
        model(torch.randn(2, 3, size, size, generator=generator))


def build(name, batch):
    """(model in eval mode, input): the same for every caller with the same name and batch."""
    torch.manual_seed(SEED)
    model = construct(name)
    generator = torch.Generator().manual_seed(SEED + 1)
    size = input_size(name)
    randomize_batchnorm(model, generator)
    calibrate(model, size, generator)
    model.eval()
    x = torch.randn(batch, 3, size, size, generator=torch.Generator().manual_seed(SEED + 2))
    return model, x


def export_onnx(model, x, path):
    kwargs = dict(opset_version=OPSET, input_names=["input"], output_names=["output"], do_constant_folding=True)
    # torch >= 2.9 uses the dynamo exporter by default; the TorchScript one writes the plain
    # Conv/BatchNorm graphs opsched reads, in every version that has it.
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        kwargs["dynamo"] = False
    torch.onnx.export(model, (x,), path, **kwargs)
    onnx.checker.check_model(onnx.load(path))


def save_tensor(array, name, path):
    tensor = numpy_helper.from_array(np.ascontiguousarray(array, dtype=np.float32), name)
    with open(path, "wb") as f:
        f.write(tensor.SerializeToString())


def export(name, out_dir, batch):
    model, x = build(name, batch)
    model_dir = os.path.join(out_dir, name)
    os.makedirs(model_dir, exist_ok=True)
    export_onnx(model, x, os.path.join(model_dir, "model.onnx"))
    with torch.no_grad():
        y = model.double()(x.double())
    data_dir = os.path.join(model_dir, "test_data_set_0")
    os.makedirs(data_dir, exist_ok=True)
    save_tensor(x.numpy(), "input", os.path.join(data_dir, "input_0.pb"))
    save_tensor(y.numpy(), "output", os.path.join(data_dir, "output_0.pb"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="folder to write <model>/model.onnx and test data into")
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated (default: all five)")
    parser.add_argument("--batch", type=int, default=1, help="batch size of the input and the export (default 1)")
    args = parser.parse_args()
    names = [n for n in args.models.split(",") if n]
    unknown = [n for n in names if n not in MODELS]
    if unknown or not names:
        parser.error("unknown model(s) %s; choose from %s" % (", ".join(unknown) or "(none)", ", ".join(MODELS)))
    if args.batch < 1:
        parser.error("--batch must be at least 1")

    torch.set_num_threads(max(1, os.cpu_count() or 1))
    print("export_torchvision: torch %s, torchvision %s, onnx %s, opset %d"
          % (torch.__version__, torchvision.__version__, onnx.__version__, OPSET))
    for name in names:
        start = time.perf_counter()
        try:
            export(name, args.out, args.batch)
        except Exception as e:  # report which model failed, then stop
            print("export_torchvision: error: %s: %s" % (name, e), file=sys.stderr)
            return 1
        print("  %-14s %.1f s" % (name, time.perf_counter() - start))
    return 0


if __name__ == "__main__":
    sys.exit(main())
