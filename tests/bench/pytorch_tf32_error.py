#!/usr/bin/env python3
"""PyTorch's own error on the GPU against the float64 reference of tests/data/export_torchvision.py.

opsched's `run --check` compares its outputs with the exported float64 reference. With TF32 on the
error grows well past the TF32-off bar; this prints what PyTorch itself gets on the same models,
weights and input, with TF32 on and off for convolutions, so the two can be read side by side:

  model  tf32  scaled_error  max_abs_error

scaled_error = max |got - reference| / max |reference| (what `run --check --json` reports as
scaled_error). One JSON document on stdout; exit 1 when no CUDA device is usable.
"""
import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "data"))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="googlenet,inception_v3,resnet50,mobilenet_v2,squeezenet1_1")
    args = ap.parse_args(argv)
    import torch
    import export_torchvision as tv
    if not torch.cuda.is_available():
        print("pytorch_tf32_error: error: torch sees no CUDA device", file=sys.stderr)
        return 1
    rows = []
    for name in args.models.split(","):
        model, x = tv.build(name, 1)
        with torch.no_grad():
            reference = model.double()(x.double())
            model = model.float().cuda()
            for tf32 in (False, True):
                torch.backends.cudnn.allow_tf32 = tf32
                torch.backends.cuda.matmul.allow_tf32 = False  # PyTorch's default for matmuls
                got = model(x.cuda()).double().cpu()
                diff = (got - reference).abs().max().item()
                rows.append({"model": name, "tf32": tf32, "max_abs_error": diff,
                             "scaled_error": diff / reference.abs().max().item()})
                print(f"{name:14s} tf32={'on ' if tf32 else 'off'}  scaled {rows[-1]['scaled_error']:.1e}  "
                      f"max abs {diff:.1e}", file=sys.stderr)
    print(json.dumps({"torch": torch.__version__, "device": torch.cuda.get_device_name(0), "results": rows}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
