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

Read the 1-thread numbers with care: PyTorch 1.13 runs 1x1 convolutions at batch < 16 on one
thread with its own im2col + BLAS path (aten::_slow_conv2d_forward; Debian's BLAS is the generic
one), not oneDNN, so only at 2 threads or more does it use oneDNN for every convolution.
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
        cpu_start = time.process_time()
        for _ in range(repeat):
            start = time.perf_counter()
            model(x)
            times.append((time.perf_counter() - start) * 1e3)
        cpu_ms = (time.process_time() - cpu_start) * 1e3 / repeat
    return statistics.median(times), min(times), cpu_ms


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
    print("%-14s %-11s | %-26s | %-26s | %-17s | %8s %10s"
          % ("", "", "median ms: torch opsched", "min ms: torch opsched", "cpu ms/run: ratio", "import s", "prepare ms"))
    for name in models:
        model_dir = os.path.join(args.data, name)
        info_s = import_seconds(args.cli, os.path.join(model_dir, "model.onnx"))
        for scheduler in schedulers:
            # Interleaved, so that a busy spell of the machine hits both.
            t_med, t_min, t_cpu = pytorch_latency(name, args.threads, args.repeat)
            r = opsched_run(args.cli, model_dir, args.threads, args.repeat, scheduler)
            o_min = r["latency_ms"] if args.repeat == 1 else min(r["p10_ms"], r["latency_ms"])
            print("%-14s %-11s | %8.1f %8.1f (x%5.2f) | %8.1f %8.1f (x%5.2f) | %6.0f %6.0f x%4.2f | %8.2f %10.1f"
                  % (name, scheduler, t_med, r["latency_ms"], r["latency_ms"] / t_med, t_min, o_min, o_min / t_min,
                     t_cpu, r["cpu_ms_per_run"], r["cpu_ms_per_run"] / t_cpu, info_s, r["prepare_ms"]), flush=True)
    print("x = opsched / pytorch (below 1: opsched is faster). min: opsched's p10. cpu ms/run: process CPU time per\n"
          "run (robust on a shared machine at --threads 1). import s: `opsched-cli info model.onnx` wall time.\n"
          "At 1 thread PyTorch 1.13 runs 1x1 convs without oneDNN (aten::_slow_conv2d_forward); see the docstring.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
