#!/usr/bin/env python3
"""PyTorch reference latencies for opsched's GPU numbers: eager and torch.cuda.graph replay.

Builds the same torchvision models that tests/data/export_torchvision.py exports (random weights,
eval mode, no auxiliary heads), at the same batch and input size, and times a forward pass:

  eager       model(x) under inference mode, timed with CUDA events around each call
  cuda_graph  the forward captured once with torch.cuda.graph and replayed, timed the same way

Each (model, batch, mode) gets warm-up iterations, then --iters timed ones; the median, p10 and p90
are reported. TF32 follows opsched's default: allowed for convolutions (cuDNN), not for matmuls,
which is also PyTorch's default; --tf32 off turns it off for both. cudnn.benchmark is on by default
because opsched picks each convolution's algorithm by measurement too.

With --device cpu (no GPU) the same code runs with wall-clock timing and the graph mode is reported
as skipped: that exercises the script without a GPU. Prints one JSON document on stdout;
--json-out FILE also rewrites it after every measurement, so a run cut short keeps what it had.
Exit status: 0 all measurements done, 1 some failed (each failure is in the JSON), 2 usage.
"""
import argparse
import json
import math
import statistics
import sys
import time
import traceback

INPUT_SIZE = {"googlenet": 224, "inception_v3": 299, "squeezenet1_1": 224, "resnet50": 224, "mobilenet_v2": 224}


def set_tf32(torch, conv_on):
    """TF32 for convolutions as asked, never for matmuls; returns the settings as PyTorch reports them.
    torch >= 2.9 has per-backend fp32_precision ("tf32"/"ieee") and deprecates the allow_tf32 flags;
    the two APIs must not be mixed, so the new one is used alone where it exists."""
    conv = getattr(torch.backends.cudnn, "conv", None)
    matmul = torch.backends.cuda.matmul
    if conv is not None and hasattr(conv, "fp32_precision") and hasattr(matmul, "fp32_precision"):
        conv.fp32_precision = "tf32" if conv_on else "ieee"
        matmul.fp32_precision = "ieee"
        return {"tf32_conv": conv.fp32_precision == "tf32", "tf32_matmul": matmul.fp32_precision == "tf32"}
    torch.backends.cudnn.allow_tf32 = conv_on
    matmul.allow_tf32 = False
    return {"tf32_conv": torch.backends.cudnn.allow_tf32, "tf32_matmul": matmul.allow_tf32}


def percentile(sorted_values, q):
    """Linear interpolation between closest ranks (numpy's default), q in [0, 100]."""
    if not sorted_values:
        return math.nan
    pos = (len(sorted_values) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def summarize(times_ms):
    s = sorted(times_ms)
    return {"median_ms": statistics.median(s), "p10_ms": percentile(s, 10), "p90_ms": percentile(s, 90),
            "min_ms": s[0], "runs": len(s)}


def build_model(torchvision, name):
    """The torchvision model with random weights; the keyword differs across torchvision versions."""
    ctor = getattr(torchvision.models, name, None)
    if ctor is None or not callable(ctor):
        raise ValueError(f"unknown torchvision model '{name}'")
    extra = {}
    if name in ("googlenet", "inception_v3"):
        # No auxiliary classifiers (eval mode ignores them anyway) and no ImageNet input transform,
        # as in the exported ONNX models.
        extra = {"aux_logits": False, "init_weights": True, "transform_input": False}
    try:
        return ctor(weights=None, **extra)
    except TypeError:  # torchvision < 0.13
        return ctor(pretrained=False, **extra)


class WallTimer:
    """Host wall clock for CPU runs."""

    def __init__(self, torch):
        self.torch = torch

    def time_ms(self, fn):
        start = time.perf_counter()
        fn()
        return (time.perf_counter() - start) * 1e3


class CudaEventTimer:
    """GPU time between two events on the current stream: what the kernels took, not the host."""

    def __init__(self, torch):
        self.torch = torch
        self.start = torch.cuda.Event(enable_timing=True)
        self.end = torch.cuda.Event(enable_timing=True)

    def time_ms(self, fn):
        self.start.record()
        fn()
        self.end.record()
        self.end.synchronize()
        return self.start.elapsed_time(self.end)


def measure(timer, fn, warmup, iters, sync):
    for _ in range(warmup):
        fn()
    sync()
    return summarize([timer.time_ms(fn) for _ in range(iters)])


def capture_graph(torch, model, static_input):
    """Capture one forward pass; warm-up happens on a side stream first, as torch.cuda.graph requires."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            model(static_input)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_output = model(static_input)
    return graph, static_output


def run_case(torch, torchvision, args, name, batch, device, timer, sync):
    """Measures every requested mode of one model at one batch; returns a list of result dicts."""
    results = []
    torch.manual_seed(0)
    model = build_model(torchvision, name).eval().to(device)
    size = INPUT_SIZE.get(name, 224)
    x = torch.randn(batch, 3, size, size, device=device)
    base = {"model": name, "batch": batch, "input_shape": [batch, 3, size, size]}
    with torch.inference_mode():
        eager_out = None
        if "eager" in args.modes:
            try:
                stats = measure(timer, lambda: model(x), args.warmup, args.iters, sync)
                eager_out = model(x)
                results.append({**base, "mode": "eager", **stats})
            except Exception as e:  # noqa: BLE001 - every failure is recorded, the run goes on
                results.append({**base, "mode": "eager", "error": f"{type(e).__name__}: {e}"})
        if "cuda_graph" in args.modes:
            if device.type != "cuda":
                results.append({**base, "mode": "cuda_graph", "skipped": "torch.cuda.graph needs a CUDA device"})
            else:
                try:
                    graph, graph_out = capture_graph(torch, model, x)
                    stats = measure(timer, graph.replay, args.warmup, args.iters, sync)
                    graph.replay()
                    sync()
                    entry = {**base, "mode": "cuda_graph", **stats}
                    if eager_out is not None:
                        # The replay must compute what eager computes; a mismatch makes the timing suspect.
                        entry["max_abs_diff_vs_eager"] = float((graph_out - eager_out).abs().max())
                    results.append(entry)
                    del graph
                except Exception as e:  # noqa: BLE001
                    results.append({**base, "mode": "cuda_graph", "error": f"{type(e).__name__}: {e}"})
    del model, x
    if device.type == "cuda":
        torch.cuda.empty_cache()
    return results


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--models", default="googlenet,inception_v3", help="comma-separated torchvision model names")
    p.add_argument("--batch", default="1,16", help="comma-separated batch sizes")
    p.add_argument("--device", default="cuda", help="cuda, cuda:N or cpu")
    p.add_argument("--modes", default="eager,cuda_graph", help="eager and/or cuda_graph")
    p.add_argument("--warmup", type=int, default=20)
    p.add_argument("--iters", type=int, default=200, help="timed iterations per measurement")
    p.add_argument("--tf32", choices=["on", "off"], default="on",
                   help="on: TF32 for convolutions only (opsched's and PyTorch's default); off: none")
    p.add_argument("--cudnn-benchmark", choices=["on", "off"], default="on")
    p.add_argument("--threads", type=int, default=0, help="CPU threads (cpu device; 0: PyTorch's default)")
    p.add_argument("--json-out", help="also write the JSON document here, after every measurement")
    args = p.parse_args(argv)
    try:
        args.batches = [int(b) for b in args.batch.split(",") if b]
    except ValueError:
        p.error(f"--batch: '{args.batch}' is not a comma-separated list of integers")
    if not args.batches or any(b < 1 for b in args.batches):
        p.error("--batch: batch sizes must be positive")
    args.model_list = [m for m in args.models.split(",") if m]
    args.modes = [m for m in args.modes.split(",") if m]
    bad = [m for m in args.modes if m not in ("eager", "cuda_graph")]
    if bad or not args.modes:
        p.error(f"--modes: expected eager and/or cuda_graph, got '{','.join(bad) or args.modes}'")
    if args.iters < 1 or args.warmup < 0:
        p.error("--iters must be >= 1 and --warmup >= 0")
    return args


def main(argv):
    args = parse_args(argv)
    import torch
    import torchvision

    device = torch.device(args.device)
    if device.type == "cuda" and device.index is None:
        device = torch.device("cuda", 0)  # set_device and get_device_name need an index
    if device.type == "cuda" and not torch.cuda.is_available():
        print(f"bench_pytorch_gpu: error: --device {args.device}: torch {torch.__version__} sees no CUDA device",
              file=sys.stderr)
        return 1
    tf32 = set_tf32(torch, args.tf32 == "on")
    torch.backends.cudnn.benchmark = args.cudnn_benchmark == "on"
    if args.threads > 0:
        torch.set_num_threads(args.threads)

    if device.type == "cuda":
        torch.cuda.set_device(device)
        timer, sync = CudaEventTimer(torch), torch.cuda.synchronize
        device_name = torch.cuda.get_device_name(device)
    else:
        timer, sync = WallTimer(torch), (lambda: None)
        device_name = f"cpu ({torch.get_num_threads()} threads)"

    doc = {
        "tool": "bench_pytorch_gpu", "torch": torch.__version__, "torchvision": torchvision.__version__,
        "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version() if device.type == "cuda" else None,
        "device": str(device), "device_name": device_name,
        **tf32,
        "cudnn_benchmark": torch.backends.cudnn.benchmark, "warmup": args.warmup, "iters": args.iters,
        "timing": "cuda events" if device.type == "cuda" else "wall clock", "results": [],
    }

    def flush():
        if args.json_out:
            with open(args.json_out, "w") as f:
                json.dump(doc, f, indent=1)

    failed = False
    for name in args.model_list:
        for batch in args.batches:
            try:
                entries = run_case(torch, torchvision, args, name, batch, device, timer, sync)
            except ValueError as e:  # an unknown model name
                entries = [{"model": name, "batch": batch, "mode": m, "error": str(e)} for m in args.modes]
            except Exception as e:  # noqa: BLE001 - e.g. out of memory while building
                traceback.print_exc(file=sys.stderr)
                entries = [{"model": name, "batch": batch, "mode": m, "error": f"{type(e).__name__}: {e}"}
                           for m in args.modes]
            for entry in entries:
                failed |= "error" in entry
                doc["results"].append(entry)
                shown = (f"{entry['median_ms']:.3f} ms (p10 {entry['p10_ms']:.3f}, p90 {entry['p90_ms']:.3f})"
                         if "median_ms" in entry else entry.get("error") or entry.get("skipped"))
                print(f"bench_pytorch_gpu: {name} batch {batch} {entry['mode']}: {shown}", file=sys.stderr, flush=True)
            flush()
    print(json.dumps(doc, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
