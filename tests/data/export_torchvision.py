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


def fold_batchnorm(model):
    """Folds every BatchNorm2d into the convolution it follows, in place (the model must be in eval
    mode): the convolution gets the folded weights and bias, the BatchNorm becomes nn.Identity, so
    the module computes conv (+ ReLU) as one layer per convolution, as the ONNX export does.
    Pairs: a BatchNorm right after a Conv2d in an nn.Sequential (ResNet's downsample, MobileNet's
    blocks), or attribute `bn`/`bnK` next to `conv`/`convK` (GoogLeNet's and Inception's
    BasicConv2d, ResNet's bottlenecks). Returns how many were folded; raises ValueError when a
    BatchNorm has no such convolution (it would stay unfolded)."""
    from torch.nn.utils.fusion import fuse_conv_bn_eval
    if model.training:
        raise ValueError("fold_batchnorm needs a model in eval mode")
    folded = 0
    for parent_name, parent in list(model.named_modules()):
        children = list(parent.named_children())
        for i, (name, child) in enumerate(children):
            if not isinstance(child, torch.nn.BatchNorm2d):
                continue
            conv_name = None
            if isinstance(parent, torch.nn.Sequential) and i > 0 and isinstance(children[i - 1][1], torch.nn.Conv2d):
                conv_name = children[i - 1][0]
            elif name.startswith("bn") and isinstance(getattr(parent, "conv" + name[2:], None), torch.nn.Conv2d):
                conv_name = "conv" + name[2:]
            if conv_name is None:
                raise ValueError("%s.%s: a BatchNorm2d with no convolution to fold into" % (parent_name, name))
            conv = getattr(parent, conv_name)
            setattr(parent, conv_name, fuse_conv_bn_eval(conv, child))
            setattr(parent, name, torch.nn.Identity())
            folded += 1
    if batchnorms(model):
        raise ValueError("%d BatchNorm2d left after folding" % len(batchnorms(model)))
    return folded


def calibrate(model, size, generator):
    if not batchnorms(model):
        return
    model.train()
    with torch.no_grad():
        model(torch.randn(2, 3, size, size, generator=generator))


def build(name, batch, fold_bn=False):
    """(model in eval mode, input): the same for every caller with the same name and batch; with
    fold_bn, BatchNorm folded into the convolutions (fold_batchnorm)."""
    torch.manual_seed(SEED)
    model = construct(name)
    generator = torch.Generator().manual_seed(SEED + 1)
    size = input_size(name)
    randomize_batchnorm(model, generator)
    calibrate(model, size, generator)
    model.eval()
    if fold_bn:
        fold_batchnorm(model)
    return model, make_input(name, batch)


def make_input(name, batch):
    """build()'s input: seeded, so batch 1's image is the first image of every larger batch."""
    size = input_size(name)
    return torch.randn(batch, 3, size, size, generator=torch.Generator().manual_seed(SEED + 2))


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


def export(name, out_dir, batch, fold_bn=False):
    model, x = build(name, batch, fold_bn)
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
    parser.add_argument("--fold-bn", action="store_true",
                        help="fold BatchNorm into the convolutions in the PyTorch module before exporting "
                             "(the reference is then the folded module's float64 output)")
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
            export(name, args.out, args.batch, args.fold_bn)
        except Exception as e:  # report which model failed, then stop
            print("export_torchvision: error: %s: %s" % (name, e), file=sys.stderr)
            return 1
        print("  %-14s %.1f s" % (name, time.perf_counter() - start))
    return 0


if __name__ == "__main__":
    sys.exit(main())
