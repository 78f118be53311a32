#!/usr/bin/env python3
"""How opsched's convolutions should run on a GPU, measured side by side in one run (the
first step): every `run --cudnn` variant x model x batch with the sequential plan as one CUDA
graph, CUDA-event medians and spread, and, from OPSCHED_CUDNN_LOG, which algorithm cuDNN was
given for each convolution and how much workspace it takes.

    gpu_conv_variants.py [--cli build/opsched-cli] [--models zoo:googlenet,...] [--batches 1,16]
                         [--repeat 50] [--variants V;V;...] [--out DIR] [--dry-run]

Variants are `run --cudnn` values (exec/cuda/conv_variant.h), separated by ';' or '|'; the default list is
fused vs separate epilogue x find vs heuristic algorithm, and the default with a 1 GiB workspace.
Writes DIR/conv_variants.csv (model, batch, variant, median/p10/p90 ms, prepare ms, the chosen
algorithms with their counts, convs fused by cuDNN) and prints a table with each variant's ratio
to the default. --dry-run runs the same loop on the CPU backend (no --cudnn, one repeat, one
model), so the script is tested where there is no GPU; its numbers mean nothing. A benchmark:
exit 0 unless a run could not be made.
"""
import argparse
import collections
import csv
import json
import os
import re
import subprocess
import sys

DEFAULT_VARIANTS = [
    "epilogue=fused,algo=find",
    "epilogue=separate,algo=find",
    "epilogue=fused,algo=heuristic",
    "epilogue=separate,algo=heuristic",
    "epilogue=fused,algo=find,workspace-mb=1024",
]
TOOK = re.compile(r"^cudnn: (?P<op>.*): took (?P<algo>[A-Z_0-9]+);")


def run_one(cli, model, batch, variant, repeat, dry_run):
    cmd = [cli, "run", model, "--batch", str(batch), "--scheduler", "sequential", "--repeat", str(repeat), "--json"]
    cmd += ["--backend", "cpu"] if dry_run else ["--backend", "cuda", "--cudnn", variant]
    env = dict(os.environ, OPSCHED_CUDNN_LOG="1")
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if p.returncode != 0:
        return None, f"exit {p.returncode}: {p.stderr.strip()[-400:]}"
    doc = json.loads(p.stdout)
    algos = collections.Counter(m.group("algo") for m in map(TOOK.match, p.stderr.splitlines()) if m)
    return {
        "model": doc.get("model", model), "batch": batch, "variant": variant,
        "median_ms": doc["latency_ms"], "p10_ms": doc.get("p10_ms"), "p90_ms": doc.get("p90_ms"),
        "prepare_ms": doc.get("prepare_ms"), "repeat": repeat,
        "algorithms": ";".join(f"{a}:{n}" for a, n in sorted(algos.items())),
    }, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cli", default="build/opsched-cli")
    ap.add_argument("--models", default="zoo:googlenet,zoo:inception_v3,zoo:squeezenet")
    ap.add_argument("--batches", default="1,16")
    ap.add_argument("--repeat", type=int, default=50)
    ap.add_argument("--variants", default=";".join(DEFAULT_VARIANTS))
    ap.add_argument("--out", default=".")
    ap.add_argument("--dry-run", action="store_true")
    a = ap.parse_args()
    models = a.models.split(",")
    batches = [int(b) for b in a.batches.split(",")]
    variants = re.split(r"[;|]", a.variants)
    if a.dry_run:  # the loop end to end on the CPU backend: one model, batch 1, one repeat
        models, batches, repeat = models[-1:], [1], 1
        print("dry run: CPU backend, no --cudnn; the numbers mean nothing")
    else:
        repeat = a.repeat
    os.makedirs(a.out, exist_ok=True)
    rows, failures = [], []
    for model in models:
        for batch in batches:
            for variant in variants:
                row, error = run_one(a.cli, model, batch, variant, repeat, a.dry_run)
                if error:
                    failures.append(f"{model} b{batch} {variant}: {error}")
                    continue
                rows.append(row)
    path = os.path.join(a.out, "conv_variants.csv")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["model", "batch", "variant", "median_ms", "p10_ms", "p90_ms", "prepare_ms",
                                          "repeat", "algorithms"])
        w.writeheader()
        w.writerows(rows)
    base = {(r["model"], r["batch"]): r["median_ms"] for r in rows if r["variant"] == variants[0]}
    print(f"{'model':<14}{'batch':>6}  {'variant':<44}{'median ms':>10}{'p10':>9}{'p90':>9}{'vs first':>9}  algorithms")
    for r in rows:
        b = base.get((r["model"], r["batch"]))
        ratio = f"{b / r['median_ms']:.2f}x" if b and r["median_ms"] > 0 else "-"
        print(f"{r['model']:<14}{r['batch']:>6}  {r['variant']:<44}{r['median_ms']:>10.3f}"
              f"{(r['p10_ms'] or 0):>9.3f}{(r['p90_ms'] or 0):>9.3f}{ratio:>9}  {r['algorithms'] or '-'}")
    print(f"wrote {path} ({len(rows)} rows)")
    for f in failures:
        print("failed:", f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
