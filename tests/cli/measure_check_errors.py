#!/usr/bin/env python3
"""Measures the float32 error of clean `run --check` runs, per model and family, to set the
checks' tolerances from (tests/cli/*_checks.cmake record the figures beside each tolerance).

Usage: measure_check_errors.py CLI DATA_ROOT [--isa AVX2] [--schedulers sequential,ios]
DATA_ROOT holds torchvision/, transformers/ and usermodels/ as the test command makes them.
Prints, per model, the largest error over its outputs and schedulers as a fraction of the
output's largest reference magnitude ("scaled") and the largest relative error, then the
worst per family.
"""
import argparse
import os
import re
import subprocess
import sys

LINE = re.compile(r"^\s+(\S+)\s+(\S+)\s+max abs (\S+)\s+max rel (\S+)\s+scaled (\S+)\s+(pass|FAIL)")


def measure(cli, model_dir, schedulers, env, extra):
    worst_scaled = worst_rel = 0.0
    data = os.path.join(model_dir, "test_data_set_0")
    model = os.path.join(model_dir, "model.onnx")
    for scheduler in schedulers:
        # Loose bounds: every clean run passes, the figures are what is wanted.
        cmd = [cli, "run", model, "--input", data, "--scheduler", scheduler, "--check", "--rtol", "1",
               "--atol", "1", "--repeat", "1", "--threads", "1"] + extra
        out = subprocess.run(cmd, env=env, capture_output=True, text=True)
        found = False
        for line in out.stdout.splitlines():
            m = LINE.match(line)
            if m:
                found = True
                worst_scaled = max(worst_scaled, float(m.group(5)))
                worst_rel = max(worst_rel, float(m.group(4)))
        if not found:
            sys.exit(f"{model} under {scheduler}: no check lines\n{out.stdout}\n{out.stderr}")
    return worst_scaled, worst_rel


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cli")
    ap.add_argument("data_root")
    ap.add_argument("--isa", default="")
    ap.add_argument("--schedulers", default="sequential,greedy,ios,nimble,opara")
    ap.add_argument("--families", default="torchvision,transformers,usermodels")
    args = ap.parse_args()
    env = dict(os.environ)
    if args.isa:
        env["ONEDNN_MAX_CPU_ISA"] = args.isa
    schedulers = args.schedulers.split(",")
    for family in args.families.split(","):
        root = os.path.join(args.data_root, family)
        if not os.path.isdir(root):
            sys.exit(f"{root}: no test data (run the test command's data step first)")
        family_scaled = 0.0
        for name in sorted(os.listdir(root)):
            model_dir = os.path.join(root, name)
            if not os.path.exists(os.path.join(model_dir, "test_data_set_0")):
                continue
            extra = []
            shape_file = os.path.join(model_dir, "shape.txt")
            if os.path.exists(shape_file):  # free input dimensions
                extra = ["--shape", open(shape_file).read().strip()]
            scaled, rel = measure(args.cli, model_dir, schedulers, env, extra)
            family_scaled = max(family_scaled, scaled)
            print(f"{family:13s} {name:34s} scaled {scaled:.2e}  rel {rel:.2e}", flush=True)
        print(f"{family:13s} {'worst':34s} scaled {family_scaled:.2e}", flush=True)


if __name__ == "__main__":
    main()
