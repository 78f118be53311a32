#!/usr/bin/env python3
"""CPU latency of opsched's executor against PyTorch eager on the same network, input and threads.

    bench_cpu_vs_pytorch.py [--cli build/opsched-cli] [--data build/testdata/torchvision]
                            [--models inception_v3,resnet50] [--threads T] [--repeat N]
                            [--schedulers sequential,...]

The models and inputs are tests/data/export_torchvision.py's (exported there first when missing);
PyTorch runs the very module that was exported (torch.no_grad, eval, torch.set_num_threads(T)),
opsched runs `opsched-cli run MODEL --input DIR --repeat N --threads T --json`. Both take the
median of N runs after a warm-up. Also prints the import time of each model.onnx (`opsched-cli
info` wall time and run's load_ms). A benchmark, not a test: it prints numbers and always exits 0
unless something could not run.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "data"))

import torch  # noqa: E402
import export_torchvision  # noqa: E402


def pytorch_latency(name, threads, repeat):
    torch.set_num_threads(threads)
    model, x = export_torchvision.build(name, 1)
    with torch.no_grad():
        for _ in range(3):
            model(x)
        times = []
        for _ in range(repeat):
            start = time.perf_counter()
            model(x)
            times.append((time.perf_counter() - start) * 1e3)
    return statistics.median(times)


def opsched_run(cli, model_dir, threads, repeat, scheduler):
    cmd = [cli, "run", os.path.join(model_dir, "model.onnx"), "--input", model_dir, "--repeat", str(repeat),
           "--threads", str(threads), "--json"]
    if scheduler != "sequential":
        cmd += ["--scheduler", scheduler]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), done.returncode, done.stderr.strip()))
    return json.loads(done.stdout)


def import_seconds(cli, model_path, times=3):
    walls = []
    for _ in range(times):
        start = time.perf_counter()
        subprocess.run([cli, "info", model_path], check=True, capture_output=True)
        walls.append(time.perf_counter() - start)
    return statistics.median(walls)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cli", default=os.path.join(ROOT, "build", "opsched-cli"))
    parser.add_argument("--data", default=os.path.join(ROOT, "build", "testdata", "torchvision"))
    parser.add_argument("--models", default="inception_v3,resnet50")
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--schedulers", default="sequential")
    args = parser.parse_args()
    models = [m for m in args.models.split(",") if m]
    schedulers = [s for s in args.schedulers.split(",") if s]
    if not os.access(args.cli, os.X_OK):
        parser.error("no opsched-cli at %s (build it, or pass --cli)" % args.cli)

    missing = [m for m in models if not os.path.exists(os.path.join(args.data, m, "model.onnx"))]
    if missing:
        print("exporting %s into %s" % (", ".join(missing), args.data), flush=True)
        subprocess.run([sys.executable, os.path.join(ROOT, "tests", "data", "export_torchvision.py"), "--out",
                        args.data, "--models", ",".join(missing)], check=True)

    print("CPU: %d cores visible, %d threads; torch %s; median of %d runs after a warm-up"
          % (os.cpu_count() or 0, args.threads, torch.__version__, args.repeat))
    print("%-14s %-12s %12s %12s %8s %12s %12s %12s" % ("model", "plan", "pytorch ms", "opsched ms", "ratio",
                                                       "p10..p90 ms", "import s", "prepare ms"))
    for name in models:
        model_dir = os.path.join(args.data, name)
        torch_ms = pytorch_latency(name, args.threads, args.repeat)
        info_s = import_seconds(args.cli, os.path.join(model_dir, "model.onnx"))
        for scheduler in schedulers:
            r = opsched_run(args.cli, model_dir, args.threads, args.repeat, scheduler)
            print("%-14s %-12s %12.2f %12.2f %8.2f %12s %12.2f %12.1f"
                  % (name, scheduler, torch_ms, r["latency_ms"], r["latency_ms"] / torch_ms,
                     "%.1f..%.1f" % (r["p10_ms"], r["p90_ms"]), info_s, r["prepare_ms"]), flush=True)
    print("ratio = opsched / pytorch (below 1: opsched is faster); import s = `opsched-cli info model.onnx` wall time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
