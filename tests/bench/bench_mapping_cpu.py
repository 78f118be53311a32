#!/usr/bin/env python3
"""A mapping run for real on this machine's CPU partitions, against its prediction and against
the same model on one partition (one core) and on every core with oneDNN's threads.

    bench_mapping_cpu.py [--cli build/opsched-cli] [--models REF,...] [--rounds 5] [--repeat 30]

For each model: `map --devices cpu:0,cpu:1 --mapper milp-split` (per-op costs and the hand-off
measured on this machine), then alternating rounds of `run --mapping`, `run --threads 1` and
`run --threads 2`, medians of the per-round medians. Prints predicted and measured makespan, their
ratio, and the mapping's speedup over one core and over two threads. A benchmark: it prints
numbers and exits 0 unless something could not run.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

MODELS = ["zoo:rwnn?gen=er&n=16&modules=4&channels=2&res=128&width=64",
          "zoo:rwnn?gen=ws&n=16&modules=4&channels=1&res=128&width=64",
          "zoo:rwnn?gen=er&n=32&modules=2&channels=1&res=96&width=64"]


def run_json(cli, *args):
    out = subprocess.run([cli, *args, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"bench_mapping_cpu: {' '.join(args)}: {out.stderr}")
    return json.loads(out.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default="build/opsched-cli")
    ap.add_argument("--models", default=",".join(MODELS), help="comma-separated model references (quote them: they hold &)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=30)
    a = ap.parse_args()
    models = a.models.split(",")
    print(f"{'model':<58} {'pred_ms':>8} {'meas_ms':>8} {'ratio':>6} {'1core_ms':>9} {'2thr_ms':>8} "
          f"{'vs_1core':>8} {'vs_2thr':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for model in models:
            path = os.path.join(tmp, "m.json")
            doc = run_json(a.cli, "map", model, "--devices", "cpu:0,cpu:1", "--mapper", "milp-split", "-o", path)
            mapped, one, two = [], [], []
            for _ in range(a.rounds):
                mapped.append(run_json(a.cli, "run", model, "--mapping", path, "--repeat", str(a.repeat))["mapping"]
                              ["measured_ms"])
                one.append(run_json(a.cli, "run", model, "--threads", "1", "--repeat", str(a.repeat))["latency_ms"])
                two.append(run_json(a.cli, "run", model, "--threads", "2", "--repeat", str(a.repeat))["latency_ms"])
            m, o, t = statistics.median(mapped), statistics.median(one), statistics.median(two)
            p = doc["makespan_ms"]
            print(f"{model:<58} {p:>8.3f} {m:>8.3f} {m / p:>6.2f} {o:>9.3f} {t:>8.3f} {o / m:>7.2f}x {t / m:>7.2f}x",
                  flush=True)


if __name__ == "__main__":
    main()
