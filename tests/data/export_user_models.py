#!/usr/bin/env python3
"""Exports the kinds of networks users bring (segmentation, video, U-Net, super-resolution, audio,
FPN) as ONNX models with reference outputs, for `opsched-cli run --check`.

    export_user_models.py --out DIR [--models a,b,...] [--batch 1]

For each model, writes
    DIR/<name>/model.onnx
    DIR/<name>/test_data_set_K/input_0.pb    the input (float32)
    DIR/<name>/test_data_set_K/output_0.pb   PyTorch's output for it in eval mode, computed in
                                             float64 (the exact answer for the float32 weights)
with K = 0 and 1: two different inputs, and DIR/<name>/test_data_set_mismatch with the input of set
1 and the output of set 0, which a check must refuse. The script refuses to write a model whose
two outputs do not differ by far more than the check's tolerance (an output that ignores its
input would let a wrong answer pass).

Models (seeded random weights, nothing downloaded; [opset], input; inputs are small so that one
float32 inference on two CPU cores stays well under half a second):
  fcn_resnet50                  [13] 3x128x128  torchvision's, 21 classes, no aux head, 'out' only
  deeplabv3_mobilenet_v3_large  [13] 3x160x160  the same; ASPP's pooled branch and the final
  lraspp_mobilenet_v3_large     [13] 3x160x160  upsampling are bilinear Resizes sized from Shape
  r3d_18, r2plus1d_18           [13] 3x4x24x24  torchvision's video networks (Conv3d), NCDHW
  video_pools                   [13] 3x8x32x32  C3D-like: MaxPool3d (over frames; over a volume with
                                                padding), AvgPool3d (ceil_mode, padding not counted;
                                                padding counted), Conv3d+BatchNorm3d+ReLU blocks
  unet3d_small                  [13] 1x8x32x32  a volumetric U-Net: MaxPool3d, two ConvTranspose3d
                                                (stride 2; padding, output_padding, groups), skips
  unet_small                    [13] 3x64x64    3 skip levels, 16-64 channels, BatchNorm+ReLU, two
                                                ConvTranspose2d (stride 2) and one nearest Upsample
  espcn                         [13] 3x48x48    ESPCN super-resolution: conv5x5+tanh, conv3x3+tanh,
                                                conv3x3 to 27 channels, PixelShuffle(3) (DepthToSpace)
  audio1d                       [13] 1x4000     keyword spotting on a waveform: Conv1d, BatchNorm1d,
                                                LeakyReLU(0.1), per-channel PReLU, MaxPool1d,
                                                AvgPool1d, global mean, Linear to 12 classes
  fpn_upsample                  [11] 3x64x64    tiny FPN: 3 stride-2 convs (InstanceNorm2d+ELU,
                                                GroupNorm(4)+SELU, GroupNorm(4)+Mish), a top-down
                                                path with nearest x2, bilinear to a size from Shape
                                                (align_corners=False) and bilinear x2
                                                (align_corners=True); Softplus, Hardswish, GELU
  espcn_dynamic                 [13] espcn with symbolic height/width (output out_height/out_width)
  audio1d_dynamic               [13] audio1d with a symbolic time axis, 'samples'
  branchy_dynamic               [13] 3x32x32    scripted shape-dependent branches (stem by channel
                                                count, a pool when wider than 24) with free height
                                                and width: two If nodes decided by static shapes
  crnn_ocr                      [13] 1x32x100   CRNN text lines: conv stack to 25 columns, two-layer
                                                bidirectional LSTM (hidden 32), logits per column
  keyword_rnn                   [13] 40x49      keyword spotting on MFCC frames: two-layer GRU
                                                (batch-first, linear_before_reset), ReLU RNN, Linear
  crnn_ocr_dynamic              [13] crnn_ocr with a symbolic width (the sequence length follows)
  stn_recognizer                [16] 1x16x48    a spatial transformer (affine grid, GridSample) before
                                                a conv stack; per column the best row's features
                                                (ArgMax, GatherElements), a slice re-scaled in place
                                                (ScatterND), a bilinear einsum head (three operands)
The dynamic exports' test data have the static versions' sizes (and weights). BatchNorm gets
random affine parameters and running statistics from a seeded calibration batch (as in
export_torchvision.py), so activations keep a trained network's scale.
Exit 0 on success, 1 when an export fails, 2 for a usage error.
"""
import argparse
import inspect
import os
import sys
import time

import numpy as np
import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from torchvision.models import segmentation, video

from export_transformers import reference, save_tensor  # same folder: the float64 reference, .pb writer

SEED = 2026
BATCH_NORMS = (nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)
AFFINE_NORMS = BATCH_NORMS + (nn.InstanceNorm2d, nn.GroupNorm)
WITH_BIAS = (nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.ConvTranspose2d, nn.ConvTranspose3d, nn.Linear)


class OutOnly(nn.Module):
    """torchvision's segmentation networks return a dict; the export takes its 'out' tensor."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return self.net(x)["out"]


def segmentation_model(name):
    factory = getattr(segmentation, name)
    # weights_backbone=None too: its default would download ImageNet weights for the backbone
    return OutOnly(factory(weights=None, weights_backbone=None, num_classes=21, aux_loss=False))


def video_model(name):
    return getattr(video, name)(weights=None)


def conv_bn_relu(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNetSmall(nn.Module):
    """U-Net with 3 skip levels (64, 32, 16 pixels) and an 8x8 bottom; skips concatenated."""

    def __init__(self, classes=2):
        super().__init__()
        self.enc1, self.enc2, self.enc3 = conv_bn_relu(3, 16), conv_bn_relu(16, 32), conv_bn_relu(32, 64)
        self.bottom = conv_bn_relu(64, 64)
        self.up3, self.dec3 = nn.ConvTranspose2d(64, 64, 2, stride=2), conv_bn_relu(128, 64)
        self.up2, self.dec2 = nn.ConvTranspose2d(64, 32, 2, stride=2), conv_bn_relu(64, 32)
        self.up1 = nn.Sequential(nn.Upsample(scale_factor=2, mode="nearest"), nn.Conv2d(32, 16, 1))
        self.dec1 = conv_bn_relu(32, 16)
        self.head = nn.Conv2d(16, classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        e3 = self.enc3(F.max_pool2d(e2, 2))
        y = self.bottom(F.max_pool2d(e3, 2))
        y = self.dec3(torch.cat([self.up3(y), e3], dim=1))
        y = self.dec2(torch.cat([self.up2(y), e2], dim=1))
        y = self.dec1(torch.cat([self.up1(y), e1], dim=1))
        return self.head(y)


class Espcn(nn.Module):
    """ESPCN (Shi et al. 2016): features at low resolution, then a sub-pixel shuffle by r."""

    def __init__(self, r=3, channels=3):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(channels, 64, 5, padding=2), nn.Tanh(),
                                  nn.Conv2d(64, 32, 3, padding=1), nn.Tanh(),
                                  nn.Conv2d(32, channels * r * r, 3, padding=1), nn.PixelShuffle(r))

    def forward(self, x):
        return self.body(x)


class Audio1d(nn.Module):
    """M5-like keyword spotter on a raw waveform (N, 1, samples) -> (N, classes)."""

    def __init__(self, classes=12):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv1d(1, 32, 80, stride=4), nn.BatchNorm1d(32), nn.LeakyReLU(0.1), nn.MaxPool1d(4),
            nn.Conv1d(32, 32, 3, padding=1), nn.BatchNorm1d(32), nn.PReLU(32), nn.MaxPool1d(4),
            nn.Conv1d(32, 64, 3, padding=1), nn.BatchNorm1d(64), nn.LeakyReLU(0.1), nn.AvgPool1d(4),
            nn.Conv1d(64, 64, 3, padding=1), nn.BatchNorm1d(64), nn.PReLU(64))
        self.fc = nn.Linear(64, classes)

    def forward(self, x):
        return self.fc(self.features(x).mean(dim=-1))


class TinyFpn(nn.Module):
    """Three stride-2 stages, lateral 1x1 convs, a top-down path of three kinds of upsampling."""

    def __init__(self, classes=4, width=32):
        super().__init__()
        self.c1 = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.InstanceNorm2d(16, affine=True), nn.ELU())
        self.c2 = nn.Sequential(nn.Conv2d(16, 32, 3, 2, 1), nn.GroupNorm(4, 32), nn.SELU())
        self.c3 = nn.Sequential(nn.Conv2d(32, 64, 3, 2, 1), nn.GroupNorm(4, 64), nn.Mish())
        self.lat1, self.lat2, self.lat3 = (nn.Conv2d(c, width, 1) for c in (16, 32, 64))
        self.smooth2 = nn.Sequential(nn.Conv2d(width, width, 3, padding=1), nn.Softplus())
        self.smooth1 = nn.Sequential(nn.Conv2d(width, width, 3, padding=1), nn.Hardswish())
        self.head = nn.Sequential(nn.Conv2d(width, width, 3, padding=1), nn.GELU(), nn.Conv2d(width, classes, 1))

    def forward(self, x):
        c1 = self.c1(x)
        c2 = self.c2(c1)
        c3 = self.c3(c2)
        p2 = self.smooth2(self.lat2(c2) + F.interpolate(self.lat3(c3), scale_factor=2, mode="nearest"))
        p1 = self.lat1(c1) + F.interpolate(p2, size=c1.shape[-2:], mode="bilinear", align_corners=False)
        p1 = F.interpolate(self.smooth1(p1), scale_factor=2, mode="bilinear", align_corners=True)
        return self.head(p1)


class VideoPools(nn.Module):
    """C3D-like clip classifier: the 3-D pools video networks use (MaxPool3d over frames and over a
    volume with padding, AvgPool3d with ceil_mode and padding that does not count, and one that
    does), between Conv3d+BatchNorm3d+ReLU blocks; global average, Linear."""

    def __init__(self, classes=10):
        super().__init__()

        def block(cin, cout):
            return [nn.Conv3d(cin, cout, 3, padding=1), nn.BatchNorm3d(cout), nn.ReLU()]
        self.features = nn.Sequential(
            *block(3, 16), nn.MaxPool3d((1, 2, 2), (1, 2, 2)),
            *block(16, 32), nn.MaxPool3d(3, 2, padding=1),
            *block(32, 32), nn.AvgPool3d(3, 2, padding=1, ceil_mode=True, count_include_pad=False),
            *block(32, 64), nn.AvgPool3d(2, 2, padding=1, count_include_pad=True))
        self.fc = nn.Linear(64, classes)

    def forward(self, x):
        return self.fc(F.adaptive_avg_pool3d(self.features(x), 1).flatten(1))


class UNet3dSmall(nn.Module):
    """A volumetric U-Net (medical imaging's shape): Conv3d+BatchNorm3d+ReLU, MaxPool3d, two
    ConvTranspose3d up-samplings (stride 2; one with padding, output_padding and groups), skips
    concatenated, a 1x1x1 head."""

    def __init__(self, classes=3):
        super().__init__()

        def block(cin, cout):
            return nn.Sequential(nn.Conv3d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm3d(cout), nn.ReLU())
        self.enc1, self.enc2, self.bottom = block(1, 8), block(8, 16), block(16, 32)
        self.up2 = nn.ConvTranspose3d(32, 16, 2, stride=2)
        self.dec2 = block(32, 16)
        self.up1 = nn.ConvTranspose3d(16, 8, 3, stride=2, padding=1, output_padding=1, groups=2)
        self.dec1 = block(16, 8)
        self.head = nn.Conv3d(8, classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool3d(e1, 2))
        y = self.bottom(F.max_pool3d(e2, 2))
        y = self.dec2(torch.cat([self.up2(y), e2], dim=1))
        y = self.dec1(torch.cat([self.up1(y), e1], dim=1))
        return self.head(y)


class Branchy(nn.Module):
    """Shape-dependent control flow, scripted: the stem depends on the channel count, a pool on the
    width. With free height and width the export keeps both tests as If nodes (Shape, Gather or
    Slice, Equal or Greater), which a static shape decides at import."""

    SCRIPTED = True

    def __init__(self, classes=4):
        super().__init__()
        self.rgb = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16))
        self.gray = nn.Conv2d(1, 16, 3, padding=1)
        self.body = nn.Conv2d(16, 16, 3, padding=1)
        self.head = nn.Conv2d(16, classes, 1)

    def forward(self, x):
        if x.shape[1] == 3:
            y = F.relu(self.rgb(x))
        else:
            y = torch.sigmoid(self.gray(x))
        if y.shape[-1] > 24:
            y = F.max_pool2d(y, 2)
        return self.head(F.relu(self.body(y)))


class Crnn(nn.Module):
    """CRNN text-line recognition: a conv stack down to one column per position, a two-layer
    bidirectional LSTM over the columns (sequence-first), per-column class scores (CTC logits)."""

    def __init__(self, classes=37, hidden=32):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 48, 3, padding=1), nn.BatchNorm2d(48), nn.ReLU(), nn.MaxPool2d((2, 1)),
            nn.Conv2d(48, 64, (4, 1)), nn.ReLU())
        self.rnn = nn.LSTM(64, hidden, num_layers=2, bidirectional=True)
        self.head = nn.Linear(2 * hidden, classes)

    def forward(self, x):
        columns = self.features(x).squeeze(2).permute(2, 0, 1)  # [width, batch, channels]
        y, _ = self.rnn(columns)
        return self.head(y)


class KeywordRnn(nn.Module):
    """Keyword spotting on MFCC frames: a two-layer GRU over the frames (batch-first), a ReLU RNN
    on its outputs, the last state to class scores."""

    def __init__(self, classes=12, coefficients=40):
        super().__init__()
        self.gru = nn.GRU(coefficients, 48, num_layers=2, batch_first=True)
        self.rnn = nn.RNN(48, 32, nonlinearity="relu", batch_first=True)
        self.head = nn.Linear(32, classes)

    def forward(self, x):  # [batch, coefficients, frames]
        y, _ = self.gru(x.transpose(1, 2))
        _, h = self.rnn(y)
        return self.head(h[-1])


class StnRecognizer(nn.Module):
    """A text recognizer with a spatial transformer in front (as TPS/STN rectifiers do): a small
    localisation net predicts an affine transform, grid_sample warps the image by it (GridSample);
    then per column the best-scoring row of features is picked (argmax, torch.gather:
    GatherElements), two slices are re-scaled in place (slice assignment: ScatterND), and a
    bilinear layer written with einsum ('bn,anm,bm->ba': three operands, the weight in the middle)
    scores the classes."""

    def __init__(self, classes=10, height=16, width=48):
        super().__init__()
        self.localise = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d((2, 4)), nn.Flatten(),
            nn.Linear(64, 6))
        with torch.no_grad():  # start near the identity warp, as STNs are initialised
            self.localise[-1].weight.mul_(0.1)
            self.localise[-1].bias.copy_(torch.tensor([1.0, 0.05, 0.0, -0.05, 1.0, 0.0]))
        ys, xs = torch.meshgrid(torch.linspace(-1, 1, height), torch.linspace(-1, 1, width), indexing="ij")
        self.register_buffer("base", torch.stack([xs, ys, torch.ones_like(xs)], dim=-1).reshape(-1, 3).t())
        self.size = (height, width)
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 24, 3, padding=1), nn.BatchNorm2d(24), nn.ReLU())
        self.score = nn.Conv2d(24, 1, 1)
        self.bilinear = nn.Parameter(torch.randn(classes, 24, 24) * 0.05)
        self.context = nn.Linear(24, 24)

    def forward(self, x):  # [batch, 1, height, width]
        theta = self.localise(x).view(-1, 2, 3)
        grid = torch.matmul(theta, self.base).transpose(1, 2).reshape(-1, *self.size, 2)
        warped = F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False)
        f = self.features(warped)  # [batch, 24, h, w]
        best = self.score(f).argmax(dim=2, keepdim=True).expand(-1, f.shape[1], -1, -1)
        picked = torch.gather(f, 2, best).squeeze(2)  # [batch, 24, w]: each column's best row
        picked = picked.clone()
        picked[:, :4] = torch.sigmoid(picked[:, :4]) * 2.0
        pooled = picked.mean(dim=2)
        return torch.einsum("bn,anm,bm->ba", pooled, self.bilinear, torch.tanh(self.context(pooled)))


ESPCN_AXES = {"input": {2: "height", 3: "width"}, "output": {2: "out_height", 3: "out_width"}}
AUDIO_AXES = {"input": {2: "samples"}}
IMAGE_AXES = {"input": {2: "height", 3: "width"}}
LINE_AXES = {"input": {3: "width"}, "output": {0: "positions"}}

# name -> (opset, builder, input shape without the batch, dynamic_axes or None)
MODELS = {
    "fcn_resnet50": (13, lambda: segmentation_model("fcn_resnet50"), (3, 128, 128), None),
    "deeplabv3_mobilenet_v3_large": (13, lambda: segmentation_model("deeplabv3_mobilenet_v3_large"),
                                     (3, 160, 160), None),
    "lraspp_mobilenet_v3_large": (13, lambda: segmentation_model("lraspp_mobilenet_v3_large"), (3, 160, 160), None),
    "r3d_18": (13, lambda: video_model("r3d_18"), (3, 4, 24, 24), None),
    "r2plus1d_18": (13, lambda: video_model("r2plus1d_18"), (3, 4, 24, 24), None),
    "video_pools": (13, VideoPools, (3, 8, 32, 32), None),
    "unet3d_small": (13, UNet3dSmall, (1, 8, 32, 32), None),
    "unet_small": (13, UNetSmall, (3, 64, 64), None),
    "espcn": (13, Espcn, (3, 48, 48), None),
    "audio1d": (13, Audio1d, (1, 4000), None),
    "fpn_upsample": (11, TinyFpn, (3, 64, 64), None),
    "espcn_dynamic": (13, Espcn, (3, 48, 48), ESPCN_AXES),
    "audio1d_dynamic": (13, Audio1d, (1, 4000), AUDIO_AXES),
    "branchy_dynamic": (13, Branchy, (3, 32, 32), IMAGE_AXES),
    "crnn_ocr": (13, Crnn, (1, 32, 100), None),
    "keyword_rnn": (13, KeywordRnn, (40, 49), None),
    "crnn_ocr_dynamic": (13, Crnn, (1, 32, 100), LINE_AXES),
    "stn_recognizer": (16, StnRecognizer, (1, 16, 48), None),
}


def randomize(model, generator):
    """Norm layers' affine parameters away from 1/0, per-channel PReLU slopes, and small random
    biases where the initialisation left them zero (torchvision's convs), so every channel differs
    and every bias counts; BatchNorm's statistics are reset to be measured by calibrate()."""
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, AFFINE_NORMS) and m.weight is not None:
                m.weight.copy_(torch.rand(m.weight.shape, generator=generator) * 0.5 + 0.75)
                m.bias.copy_(torch.rand(m.bias.shape, generator=generator) * 0.2 - 0.1)
            elif isinstance(m, nn.PReLU):
                m.weight.copy_(torch.rand(m.weight.shape, generator=generator) * 0.3 + 0.05)
            elif isinstance(m, WITH_BIAS) and m.bias is not None and not m.bias.any():  # zero-initialised biases
                m.bias.copy_(torch.rand(m.bias.shape, generator=generator) * 0.2 - 0.1)
            if isinstance(m, BATCH_NORMS):
                m.reset_running_stats()
                m.momentum = None  # a cumulative average: after one batch, exactly that batch's statistics


def calibrate(model, shape, generator):
    """BatchNorm's running statistics from one seeded batch of 2 in train mode (then eval mode)."""
    if any(isinstance(m, BATCH_NORMS) for m in model.modules()):
        model.train()
        with torch.no_grad():
            model(torch.randn(2, *shape, generator=generator))
    model.eval()


def export_onnx(model, x, opset, dynamic_axes, path):
    """The TorchScript exporter (torch >= 2.9 would pick dynamo), one input 'input', one 'output'."""
    options = {"opset_version": opset, "input_names": ["input"], "output_names": ["output"],
               "do_constant_folding": True, "dynamic_axes": dynamic_axes}
    if "dynamo" in inspect.signature(torch.onnx.export).parameters:
        options["dynamo"] = False
    torch.onnx.export(model, (x,), path, **options)
    onnx.checker.check_model(path)


def float32_seconds(model, x, repeats=3):
    """PyTorch's float32 CPU inference time: the best of a few runs after a warm-up."""
    best = float("inf")
    with torch.no_grad():
        model(x)
        for _ in range(repeats):
            start = time.perf_counter()
            model(x)
            best = min(best, time.perf_counter() - start)
    return best


def export(name, out_dir, batch):
    """Writes DIR/<name>; returns (how far the two outputs differ relative to max|y|, float32 seconds)."""
    opset, builder, shape, dynamic_axes = MODELS[name]
    torch.manual_seed(SEED)
    model = builder()
    generator = torch.Generator().manual_seed(SEED + 1)
    randomize(model, generator)
    calibrate(model, shape, generator)
    inputs = torch.Generator().manual_seed(SEED + 2)
    x0, x1 = (torch.randn(batch, *shape, generator=inputs) for _ in range(2))
    y0, y1 = reference(model, (x0,)), reference(model, (x1,))
    differ = np.abs(y0 - y1).max() / max(np.abs(y0).max(), 1e-30)
    # The check's tolerance is ~1e-3 relative; outputs of two inputs must differ far beyond it.
    if not differ > 0.05:
        raise RuntimeError("outputs for two inputs differ by only %.3g of max|y|: the output ignores its input" % differ)
    model_dir = os.path.join(out_dir, name)
    os.makedirs(model_dir, exist_ok=True)
    exported = torch.jit.script(model) if getattr(model, "SCRIPTED", False) else model
    export_onnx(exported, x0, opset, dynamic_axes, os.path.join(model_dir, "model.onnx"))
    for suffix, x, y in (("0", x0, y0), ("1", x1, y1), ("mismatch", x1, y0)):
        data_dir = os.path.join(model_dir, "test_data_set_" + suffix)
        os.makedirs(data_dir, exist_ok=True)
        save_tensor(x.numpy(), "input", os.path.join(data_dir, "input_0.pb"))
        save_tensor(y, "output", os.path.join(data_dir, "output_0.pb"))
    return differ, float32_seconds(model, x0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="folder to write <model>/model.onnx and test data into")
    parser.add_argument("--models", default=",".join(MODELS), help="comma-separated (default: all)")
    parser.add_argument("--batch", type=int, default=1, help="batch size of the inputs and the export (default 1)")
    args = parser.parse_args()
    names = [n for n in args.models.split(",") if n]
    unknown = [n for n in names if n not in MODELS]
    if unknown or not names:
        parser.error("unknown model(s) %s; choose from %s" % (", ".join(unknown) or "(none)", ", ".join(MODELS)))
    if args.batch < 1:
        parser.error("--batch must be at least 1")

    torch.set_num_threads(max(1, os.cpu_count() or 1))
    print("export_user_models: torch %s, torchvision %s, onnx %s" % (torch.__version__, torchvision.__version__,
                                                                      onnx.__version__))
    for name in names:
        start = time.perf_counter()
        try:
            differ, seconds = export(name, args.out, args.batch)
        except Exception as e:  # report which model failed, then stop
            print("export_user_models: error: %s: %s" % (name, e), file=sys.stderr)
            return 1
        print("  %-28s %.1f s (float32 inference %.0f ms; two inputs' outputs differ by %.2g of max|y|)"
              % (name, time.perf_counter() - start, seconds * 1e3, differ))
    return 0


if __name__ == "__main__":
    sys.exit(main())
