#!/usr/bin/env python3
"""The PyTorch side of opsched's like-for-like GPU record: the same BN-folded modules opsched runs.

    bench_pytorch_gpu.py export --out DIR [--models a,b] [--batch 1,16] [--device cuda|cpu]
    bench_pytorch_gpu.py bench  [--models a,b] [--batch 1,16] [--device cuda|cpu] [--export-dir DIR]
                                [--modes eager,cuda_graph,compile,max-autotune] [--layouts nchw,channels_last]
                                [--tf32 on|off] [--time-budget S] [--json-out FILE]

One model object per network: tests/data/export_torchvision.py's seeded torchvision module (random
weights, BatchNorm with calibrated statistics), in eval mode, with every BatchNorm folded into the
convolution before it (fold_batchnorm). `export` checks on the CPU that the folded module computes
what the unfolded one does, then, for each batch, exports that very module to ONNX and writes

  DIR/<model>_b<batch>/model.onnx
  DIR/<model>_b<batch>/test_data_set_0/{input_0,output_0}.pb         input; the folded module's
                                                                       float64 output (exact answer)
  DIR/<model>_b<batch>/pytorch_fp32/test_data_set_0/{input_0,output_0}.pb   PyTorch's float32 output
                                                                       on --device, TF32 off
  DIR/<model>_b<batch>/pytorch_tf32/test_data_set_0/...               the same with TF32 on for
                                                                       convolutions and GEMMs (CUDA only)
  DIR/<model>.folded.pt                                                the folded weights (state_dict)
  DIR/manifest.json                                                    what was exported, the fold
                                                                       check, PyTorch's own errors,
                                                                       a fingerprint of the weights

so `opsched-cli run DIR/m_b1/model.onnx --input DIR/m_b1/pytorch_fp32 --check` compares opsched with
PyTorch at the same precision on the same graph, weights and input.

`bench` builds the same folded module again and, with --export-dir, loads the export's folded
weights into it (DIR/<model>.folded.pt; their fingerprint is checked against the manifest) and times, in this one process, per model, batch and layout (NCHW,
channels_last):
  eager                          model(x) under torch.no_grad
  cuda_graph                     one forward captured with torch.cuda.graph, replayed
  compile                        torch.compile(model, mode="reduce-overhead") (Inductor + CUDA graphs)
  max-autotune                   torch.compile(model, mode="max-autotune"), only where the time
                                 left (--time-budget) covers its expected compile time
Each with warm-up, then --iters timed calls, each between two CUDA events (wall clock on the CPU):
median, p10, p90, min, spread = (p90 - p10) / median. Compile times are recorded; the eager and
CUDA-graph measurements in NCHW come first, then reduce-overhead compiles in NCHW (batch 1, then
16), then the same in channels_last, then max-autotune; a compile is started only if the time left
is expected to cover it.
Every mode's output is compared with the float32 eager NCHW output and (with --export-dir) with
the float64 reference. TF32 is set explicitly for convolutions and GEMMs alike (--tf32 on: both,
opsched's default; off: neither, opsched's --no-tf32), cudnn.benchmark on.

Transformers: --models also takes tests/data/export_transformers.py's models (bert_like,
gpt2_like, t5_like, vit_b_16, convnext_tiny, ...) for `bench`, with --export-dir naming an export made by
`export_transformers.py --out DIR --batches B --pytorch-ref DEVICE`: the module is built by that
script, its weights loaded from DIR/<model>.pt (fingerprint checked) and its inputs (token ids, or
an image) read from the export's test_data_set_0, so both sides run the same numbers. No BatchNorm
to fold there; channels_last is timed only for the image models.

With --device cpu (no GPU) the same code runs with wall-clock timing; the CUDA graph and TF32 are
reported as skipped, and torch.compile too when this torch lacks it (torch < 2) or --cpu-compile
is not given. Prints one JSON document on stdout; --json-out FILE also rewrites it after every
measurement, so a run cut short keeps what it had. Exit status: 0 everything asked for was done or
skipped with a reason, 1 a measurement or export failed (each failure is in the JSON), 2 usage.
"""
import argparse
import copy
import json
import math
import os
import statistics
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "data"))

MODELS = ["googlenet", "inception_v3", "resnet50", "mobilenet_v2", "squeezenet1_1"]
# tests/data/export_transformers.py's models: `bench` only, on an export made by
# `export_transformers.py --batches B --pytorch-ref DEVICE` (its weights and inputs are loaded).
TRANSFORMERS = ["bert_like", "gpt2_like", "t5_like", "vit_b_16", "convnext_tiny", "transformer_encoder", "swin_t"]
IMAGE_TRANSFORMERS = ["vit_b_16", "convnext_tiny", "swin_t"]  # image input: channels_last applies
MODES = ["eager", "cuda_graph", "compile", "max-autotune"]
LAYOUTS = ["nchw", "channels_last"]
FOLD_TOLERANCE = 1e-4  # scaled error, folded vs unfolded module, float32 on the CPU


# ---------------------------------------------------------------- shared helpers
def set_tf32(torch, on):
    """TF32 for convolutions and GEMMs, both on or both off; returns what PyTorch reports.
    torch >= 2.9 has per-backend fp32_precision ("tf32"/"ieee") and deprecates the allow_tf32 flags;
    the two APIs must not be mixed, so the new one is used alone where it exists."""
    conv = getattr(torch.backends.cudnn, "conv", None)
    matmul = torch.backends.cuda.matmul
    if conv is not None and hasattr(conv, "fp32_precision") and hasattr(matmul, "fp32_precision"):
        conv.fp32_precision = "tf32" if on else "ieee"
        matmul.fp32_precision = "tf32" if on else "ieee"
        return {"tf32_conv": conv.fp32_precision == "tf32", "tf32_matmul": matmul.fp32_precision == "tf32"}
    torch.backends.cudnn.allow_tf32 = on
    matmul.allow_tf32 = on
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
    med = statistics.median(s)
    p10, p90 = percentile(s, 10), percentile(s, 90)
    return {"median_ms": med, "p10_ms": p10, "p90_ms": p90, "min_ms": s[0], "runs": len(s),
            "spread": (p90 - p10) / med if med > 0 else None}


def scaled_error(torch, got, want):
    """max |got - want| / max |want|, in float64 (what opsched's run --check calls scaled error)."""
    got, want = got.detach().double().cpu(), want.detach().double().cpu()
    return float((got - want).abs().max() / want.abs().max().clamp_min(1e-30))


def fingerprint(model):
    """A fingerprint of the weights (count, sum, sum of |x| in float64): export_transformers.py's, so
    the exports' manifests and this script compare the same thing."""
    import export_transformers  # tests/data (on sys.path); imported here so --help needs no torch
    return export_transformers.fingerprint(model)


def same_fingerprint(a, b):
    return a["values"] == b["values"] and all(
        abs(a[k] - b[k]) <= 1e-9 * max(1.0, abs(b[k])) for k in ("sum", "sum_abs"))


def device_of(torch, name):
    device = torch.device(name)
    if device.type == "cuda" and device.index is None:
        device = torch.device("cuda", 0)
    return device


def case_dir(out, name, batch):
    return os.path.join(out, f"{name}_b{batch}")


# ---------------------------------------------------------------- export
def save_test_data(tv, folder, x, y):
    data = os.path.join(folder, "test_data_set_0")
    os.makedirs(data, exist_ok=True)
    tv.save_tensor(x.detach().cpu().numpy(), "input", os.path.join(data, "input_0.pb"))
    tv.save_tensor(y.detach().double().cpu().numpy(), "output", os.path.join(data, "output_0.pb"))


def export_model(torch, tv, name, batches, out, device, log):
    """Exports one network at every batch; returns its manifest entries."""
    t0 = time.perf_counter()
    unfolded, x1 = tv.build(name, 1)
    bn = len(tv.batchnorms(unfolded))
    model = copy.deepcopy(unfolded)
    folded = tv.fold_batchnorm(model) if bn else 0
    with torch.no_grad():
        fold_error = scaled_error(torch, model(x1), unfolded(x1))
        fold_error64 = scaled_error(torch, copy.deepcopy(model).double()(x1.double()),
                                    copy.deepcopy(unfolded).double()(x1.double()))
    del unfolded
    if not fold_error <= FOLD_TOLERANCE:
        raise RuntimeError(f"{name}: the folded module differs from the unfolded one: scaled error "
                           f"{fold_error:.2e} > {FOLD_TOLERANCE:g}")
    # The folded weights themselves, for `bench` to load: the BatchNorm statistics come from a
    # calibration pass whose float sums depend on the thread count, so rebuilding could differ in
    # the last bits; loading these cannot.
    state_path = os.path.join(out, f"{name}.folded.pt")
    torch.save(model.state_dict(), state_path)
    common = {"model": name, "batchnorms": bn, "folded": folded, "fold_scaled_error_fp32": fold_error,
              "fold_scaled_error_fp64": fold_error64, "fingerprint": fingerprint(model),
              "state_dict": state_path}
    log(f"{name}: {folded} of {bn} BatchNorms folded; folded vs unfolded (CPU) scaled error "
        f"{fold_error:.1e} float32, {fold_error64:.1e} float64")
    entries = []
    model64 = copy.deepcopy(model).double()
    gpu_model = copy.deepcopy(model).to(device) if device.type == "cuda" else model
    for batch in batches:
        x = tv.make_input(name, batch)
        folder = case_dir(out, name, batch)
        os.makedirs(folder, exist_ok=True)
        onnx_path = os.path.join(folder, "model.onnx")
        tv.export_onnx(model, x, onnx_path)
        with torch.no_grad():
            reference = model64(x.double())
            save_test_data(tv, folder, x, reference)
            entry = {**common, "batch": batch, "dir": folder, "onnx": onnx_path,
                     "onnx_bytes": os.path.getsize(onnx_path), "input_shape": list(x.shape)}
            set_tf32(torch, False)
            y32 = gpu_model(x.to(device))
            save_test_data(tv, os.path.join(folder, "pytorch_fp32"), x, y32)
            entry["pytorch_fp32_scaled_error"] = scaled_error(torch, y32, reference)
            if device.type == "cuda":
                set_tf32(torch, True)
                ytf = gpu_model(x.to(device))
                save_test_data(tv, os.path.join(folder, "pytorch_tf32"), x, ytf)
                entry["pytorch_tf32_scaled_error"] = scaled_error(torch, ytf, reference)
                entry["pytorch_tf32_vs_fp32"] = scaled_error(torch, ytf, y32)
            else:
                entry["pytorch_tf32_skipped"] = "TF32 needs a CUDA device"
        entry["pytorch_device"] = str(device)
        entries.append(entry)
        log(f"{name} batch {batch}: {onnx_path} ({entry['onnx_bytes'] / 1e6:.1f} MB); PyTorch float32 on {device} "
            f"vs float64: {entry['pytorch_fp32_scaled_error']:.1e}"
            + (f", TF32 on: {entry['pytorch_tf32_scaled_error']:.1e}" if "pytorch_tf32_scaled_error" in entry else ""))
    for e in entries:
        e["seconds_model"] = round(time.perf_counter() - t0, 2)
    return entries


def cmd_export(args, torch, tv):
    import onnx
    device = device_of(torch, args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        print(f"bench_pytorch_gpu: error: --device {args.device}: torch {torch.__version__} sees no CUDA device",
              file=sys.stderr)
        return 1
    torch.backends.cudnn.benchmark = True
    if args.threads <= 0:  # the float64 references of batch 16 are the export's slowest part
        torch.set_num_threads(max(1, os.cpu_count() or 1))
    os.makedirs(args.out, exist_ok=True)
    manifest_path = os.path.join(args.out, "manifest.json")
    doc = {"tool": "bench_pytorch_gpu export", "torch": torch.__version__, "onnx": onnx.__version__,
           "device": str(device), "opset": tv.OPSET, "fold_tolerance": FOLD_TOLERANCE, "exports": [], "errors": []}
    if os.path.exists(manifest_path):  # add to an earlier export of other models
        try:
            with open(manifest_path) as f:
                old = json.load(f)
            doc["exports"] = [e for e in old.get("exports", []) if e["model"] not in args.model_list]
        except (OSError, ValueError):
            pass
    log = lambda msg: print("bench_pytorch_gpu export: " + msg, file=sys.stderr, flush=True)
    log(f"torch {torch.__version__}, onnx {onnx.__version__}, opset {tv.OPSET}, device {device}")
    failed = False
    for name in args.model_list:
        try:
            doc["exports"].extend(export_model(torch, tv, name, args.batches, args.out, device, log))
        except Exception as e:  # noqa: BLE001 - record it, go on with the next model
            traceback.print_exc(file=sys.stderr)
            doc["errors"].append({"model": name, "error": f"{type(e).__name__}: {e}"})
            failed = True
        with open(manifest_path, "w") as f:
            json.dump(doc, f, indent=1)
    print(json.dumps(doc, indent=1))
    return 1 if failed else 0


# ---------------------------------------------------------------- bench
class WallTimer:
    """Host wall clock for CPU runs."""

    def time_ms(self, fn):
        start = time.perf_counter()
        fn()
        return (time.perf_counter() - start) * 1e3


class CudaEventTimer:
    """GPU time between two events on the current stream: what the kernels took, host gaps included."""

    def __init__(self, torch):
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


def capture_graph(torch, model, static_inputs):
    """Capture one forward pass; warm-up happens on a side stream first, as torch.cuda.graph requires."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            model(*static_inputs)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        static_output = model(*static_inputs)
    return graph, static_output


def compile_unavailable(torch, device, args):
    if not hasattr(torch, "compile"):
        return f"torch.compile needs torch >= 2.0 (this is {torch.__version__})"
    if device.type != "cuda" and not args.cpu_compile:
        return "torch.compile is measured on CUDA only (--cpu-compile to try it on the CPU)"
    return None


class Case:
    """One (model, batch, layout): the folded module and its input on the device."""

    built = {}  # name -> the folded module on the CPU (built once, copied for each case)

    def __init__(self, torch, tv, name, batch, layout, device, manifest):
        self.torch, self.name, self.batch, self.layout = torch, name, batch, layout
        self.export = next((e for e in manifest.get("exports", []) if e["model"] == name and e["batch"] == batch), None)
        if name in TRANSFORMERS:
            self.init_transformer(torch, name, batch, layout, device)
            return
        if name not in Case.built:
            model = tv.build(name, 1, fold_bn=True)[0]
            if self.export and os.path.exists(self.export.get("state_dict", "")):
                model.load_state_dict(torch.load(self.export["state_dict"], map_location="cpu"))
            Case.built[name] = model
        model, x = copy.deepcopy(Case.built[name]), tv.make_input(name, batch)
        self.fingerprint = fingerprint(model)
        fmt = torch.channels_last if layout == "channels_last" else torch.contiguous_format
        self.model = model.to(device).to(memory_format=fmt)
        self.x = x.to(device).contiguous(memory_format=fmt)
        self.args = (self.x,)
        self.reference = None
        if self.export:
            self.reference = read_pb(torch, os.path.join(self.export["dir"], "test_data_set_0", "output_0.pb"),
                                     torch.float64)

    def init_transformer(self, torch, name, batch, layout, device):
        """export_transformers.py's model with the export's weights (<name>.pt) and set 0's inputs."""
        import export_transformers as et
        if not self.export:
            raise RuntimeError(f"{name} batch {batch}: no export in --export-dir's manifest.json (make it with "
                               "tests/data/export_transformers.py --batches B --pytorch-ref DEVICE)")
        key = (name, bool(self.export.get("full")))
        if key not in Case.built:
            model = et.models(key[1])[name][1]()
            model.load_state_dict(torch.load(self.export["state_dict"], map_location="cpu"))
            Case.built[key] = model.eval()
        model = copy.deepcopy(Case.built[key])
        self.fingerprint = fingerprint(model)
        fmt = torch.channels_last if layout == "channels_last" else torch.contiguous_format
        self.model = model.to(device).to(memory_format=fmt)
        data = os.path.join(self.export["dir"], "test_data_set_0")
        inputs = [read_pb(torch, os.path.join(data, f"input_{i}.pb"))
                  for i in range(len(self.export.get("input_names", ["x"])))]
        self.args = tuple(x.to(device).contiguous(memory_format=fmt) if x.dim() == 4 else x.to(device) for x in inputs)
        self.x = self.args[0]
        self.reference = read_pb(torch, os.path.join(data, "output_0.pb"), torch.float64)

    def base(self):
        entry = {"model": self.name, "batch": self.batch, "layout": self.layout, "input_shape": list(self.x.shape)}
        if self.export:
            entry["same_weights_as_export"] = same_fingerprint(self.fingerprint, self.export["fingerprint"])
            entry["onnx"] = self.export["onnx"]
        return entry


def read_pb(torch, path, dtype=None):
    """A tensor from an ONNX TensorProto file (test data); float tensors as DTYPE when given."""
    import numpy as np
    from onnx import numpy_helper, TensorProto
    t = TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    a = np.array(numpy_helper.to_array(t))
    x = torch.from_numpy(a)
    return x.to(dtype) if dtype is not None and x.is_floating_point() else x


def errors_of(torch, out, eager_out, reference):
    e = {}
    if eager_out is not None:
        e["scaled_diff_vs_eager"] = scaled_error(torch, out, eager_out)
    if reference is not None:
        e["scaled_error_vs_fp64"] = scaled_error(torch, out, reference)
    return e


def bench_simple(torch, case, modes, args, device, timer, sync):
    """eager and cuda_graph for one case; returns (entries, eager output)."""
    out = []
    eager_out = None
    with torch.no_grad():
        if "eager" in modes:
            try:
                stats = measure(timer, lambda: case.model(*case.args), args.warmup, args.iters, sync)
                eager_out = case.model(*case.args).float().clone()
                out.append({**case.base(), "mode": "eager", **stats, **errors_of(torch, eager_out, None, case.reference)})
            except Exception as e:  # noqa: BLE001 - every failure is recorded, the run goes on
                out.append({**case.base(), "mode": "eager", "error": f"{type(e).__name__}: {e}"})
        if "cuda_graph" in modes:
            if device.type != "cuda":
                out.append({**case.base(), "mode": "cuda_graph", "skipped": "torch.cuda.graph needs a CUDA device"})
            else:
                try:
                    graph, graph_out = capture_graph(torch, case.model, case.args)
                    stats = measure(timer, graph.replay, args.warmup, args.iters, sync)
                    graph.replay()
                    sync()
                    out.append({**case.base(), "mode": "cuda_graph", **stats,
                                **errors_of(torch, graph_out, eager_out, case.reference)})
                    del graph
                except Exception as e:  # noqa: BLE001
                    out.append({**case.base(), "mode": "cuda_graph", "error": f"{type(e).__name__}: {e}"})
    return out, eager_out


def bench_compile(torch, case, mode, args, timer, sync, eager_out):
    """torch.compile in one mode: compile time (first calls), then timed calls like eager."""
    torch_mode = "reduce-overhead" if mode == "compile" else "max-autotune"
    entry = {**case.base(), "mode": mode, "torch_compile_mode": torch_mode}
    try:
        if hasattr(torch, "_dynamo"):
            torch._dynamo.reset()
        compiled = torch.compile(case.model, mode=torch_mode, dynamic=False)
        with torch.no_grad():
            t0 = time.perf_counter()
            for _ in range(3):  # the first calls compile; CUDA-graph trees record on a later one
                compiled(*case.args)
            sync()
            entry["compile_s"] = round(time.perf_counter() - t0, 2)
            stats = measure(timer, lambda: compiled(*case.args), args.warmup, args.iters, sync)
            got = compiled(*case.args).float().clone()
            sync()
        entry.update(stats)
        entry.update(errors_of(torch, got, eager_out, case.reference))
    except Exception as e:  # noqa: BLE001
        traceback.print_exc(file=sys.stderr)
        entry["error"] = f"{type(e).__name__}: {e}"
    return entry


def cmd_bench(args, torch, tv):
    device = device_of(torch, args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        print(f"bench_pytorch_gpu: error: --device {args.device}: torch {torch.__version__} sees no CUDA device",
              file=sys.stderr)
        return 1
    started = time.perf_counter()
    deadline = started + args.time_budget if args.time_budget > 0 else math.inf
    tf32 = set_tf32(torch, args.tf32 == "on")
    if device.type != "cuda":
        tf32 = {"tf32_conv": False, "tf32_matmul": False, "tf32_note": "TF32 is a CUDA setting; CPU runs are FP32"}
    torch.backends.cudnn.benchmark = True
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    if device.type == "cuda":
        torch.cuda.set_device(device)
        timer, sync = CudaEventTimer(torch), torch.cuda.synchronize
        device_name = torch.cuda.get_device_name(device)
    else:
        timer, sync = WallTimer(), (lambda: None)
        device_name = f"cpu ({torch.get_num_threads()} threads)"
    manifest = {}
    if args.export_dir:
        try:
            with open(os.path.join(args.export_dir, "manifest.json")) as f:
                manifest = json.load(f)
        except (OSError, ValueError) as e:
            print(f"bench_pytorch_gpu: warning: no manifest in {args.export_dir} ({e}): weights not compared",
                  file=sys.stderr)
    try:
        import torchvision
        tv_version = torchvision.__version__
    except ImportError:
        tv_version = None
    doc = {
        "tool": "bench_pytorch_gpu", "torch": torch.__version__, "torchvision": tv_version,
        "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version() if device.type == "cuda" else None,
        "device": str(device), "device_name": device_name, "graph": ("export_transformers.py's modules, the export's weights and inputs"
                  if all(m in TRANSFORMERS for m in args.model_list) else "BN folded into the convolutions (fold_batchnorm)"),
        **tf32, "cudnn_benchmark": True, "warmup": args.warmup, "iters": args.iters,
        "timing": "cuda events" if device.type == "cuda" else "wall clock (time.perf_counter)",
        "time_budget_s": args.time_budget, "results": [],
    }
    unavailable = compile_unavailable(torch, device, args)
    if unavailable and any(m in args.modes for m in ("compile", "max-autotune")):
        doc["compile_skipped"] = unavailable
        print(f"bench_pytorch_gpu: torch.compile not measured: {unavailable}", file=sys.stderr)

    def flush():
        if args.json_out:
            with open(args.json_out, "w") as f:
                json.dump(doc, f, indent=1)

    failed = False

    def add(entry):
        nonlocal failed
        failed |= "error" in entry
        doc["results"].append(entry)
        shown = (f"{entry['median_ms']:.3f} ms (p10 {entry['p10_ms']:.3f}, p90 {entry['p90_ms']:.3f})"
                 if "median_ms" in entry else entry.get("error") or entry.get("skipped"))
        if "compile_s" in entry:
            shown += f", compiled in {entry['compile_s']:.1f} s"
        print(f"bench_pytorch_gpu: {entry['model']} batch {entry['batch']} {entry['layout']} {entry['mode']}: {shown}",
              file=sys.stderr, flush=True)
        flush()

    # The order of the work, most wanted first: eager and CUDA graph in NCHW (what everything else is
    # judged against), reduce-overhead compiles in NCHW, then channels_last, then max-autotune.
    # Only compiles are held back by the time budget (each is started when the time left covers
    # its expected compile time); eager and CUDA-graph runs take seconds.
    tasks = []
    for layout in args.layout_list:
        tasks += [("simple", n, b, layout) for b in args.batches for n in args.model_list]
        if "compile" in args.modes:
            tasks += [("compile", n, b, layout) for b in args.batches for n in args.model_list]
    if "max-autotune" in args.modes:
        tasks += [("max-autotune", n, b, l) for l in args.layout_list for b in args.batches for n in args.model_list]
    eager_outputs = {}
    compile_times = {}
    for kind, name, batch, layout in tasks:
        base = {"model": name, "batch": batch, "layout": layout}
        if layout == "channels_last" and name in TRANSFORMERS and name not in IMAGE_TRANSFORMERS:
            continue  # token ids in, no 4-D tensor anywhere: channels_last is NCHW's twin
        if kind == "simple":
            simple_modes = [m for m in args.modes if m in ("eager", "cuda_graph")]
            if not simple_modes:
                continue
            try:
                case = Case(torch, tv, name, batch, layout, device, manifest)
                entries, eager_out = bench_simple(torch, case, simple_modes, args, device, timer, sync)
                if layout == "nchw":
                    eager_outputs[(name, batch)] = eager_out
                for e in entries:
                    add(e)
                del case
            except Exception as e:  # noqa: BLE001 - e.g. out of memory while building
                traceback.print_exc(file=sys.stderr)
                for m in simple_modes:
                    add({**base, "mode": m, "error": f"{type(e).__name__}: {e}"})
        else:
            base["mode"] = kind
            if unavailable:
                add({**base, "skipped": unavailable})
                continue
            # Expected compile time: this case's reduce-overhead compile (x --autotune-factor for
            # max-autotune), else this model's at batch 1 in NCHW, else the slowest so far, else a guess.
            known = compile_times.get((name, batch, layout)) or compile_times.get((name, 1, "nchw"))
            guess = known if known is not None else max(compile_times.values(), default=args.compile_guess)
            if kind == "max-autotune":
                guess *= args.autotune_factor
            left = deadline - time.perf_counter()
            if guess > left:
                add({**base, "skipped": f"time budget: {left:.0f} s left, compile expected to take ~{guess:.0f} s "
                                        f"(--time-budget {args.time_budget:g})"})
                continue
            try:
                case = Case(torch, tv, name, batch, layout, device, manifest)
                entry = bench_compile(torch, case, kind, args, timer, sync, eager_outputs.get((name, batch)))
                if kind == "compile" and "compile_s" in entry:
                    compile_times[(name, batch, layout)] = entry["compile_s"]
                add(entry)
                del case
            except Exception as e:  # noqa: BLE001
                traceback.print_exc(file=sys.stderr)
                add({**base, "error": f"{type(e).__name__}: {e}"})
        if device.type == "cuda":
            torch.cuda.empty_cache()
    doc["seconds"] = round(time.perf_counter() - started, 1)
    flush()
    print(json.dumps(doc, indent=1))
    return 1 if failed else 0


# ---------------------------------------------------------------- arguments
def parse_args(argv):
    if not argv or argv[0] not in ("export", "bench", "-h", "--help"):
        argv = ["bench"] + list(argv)  # the old command line: bench
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                epilog="See the module documentation: python3 -m pydoc bench_pytorch_gpu")
    sub = p.add_subparsers(dest="command", required=True)

    def common(sp):
        sp.add_argument("--models", default=",".join(MODELS), help="comma-separated torchvision model names")
        sp.add_argument("--batch", default="1,16", help="comma-separated batch sizes")
        sp.add_argument("--device", default="cuda", help="cuda, cuda:N or cpu")
        sp.add_argument("--threads", type=int, default=0, help="CPU threads (0: PyTorch's default)")

    e = sub.add_parser("export", help="BN-folded ONNX exports with float64 and PyTorch reference outputs")
    common(e)
    e.add_argument("--out", required=True, help="folder for <model>_b<batch>/ and manifest.json")
    b = sub.add_parser("bench", help="time eager, CUDA graph and torch.compile on the folded modules")
    common(b)
    b.add_argument("--modes", default="eager,cuda_graph,compile,max-autotune", help="subset of " + ",".join(MODES))
    b.add_argument("--layouts", default="nchw,channels_last", help="subset of " + ",".join(LAYOUTS))
    b.add_argument("--warmup", type=int, default=20)
    b.add_argument("--iters", type=int, default=200, help="timed calls per measurement")
    b.add_argument("--tf32", choices=["on", "off"], default="on",
                   help="on: TF32 for convolutions and GEMMs (opsched's default); off: neither (opsched --no-tf32)")
    b.add_argument("--export-dir", help="the export's folder: weights checked against its manifest, outputs "
                                        "against its float64 reference")
    b.add_argument("--time-budget", type=float, default=0,
                   help="seconds for the whole bench; compiles expected not to fit are skipped (0: no limit)")
    b.add_argument("--compile-guess", type=float, default=45,
                   help="expected seconds of a first torch.compile before one was measured")
    b.add_argument("--autotune-factor", type=float, default=3,
                   help="max-autotune's expected compile time as a multiple of reduce-overhead's")
    b.add_argument("--cpu-compile", action="store_true", help="also try torch.compile with --device cpu")
    b.add_argument("--json-out", help="also write the JSON document here, after every measurement")
    args = p.parse_args(argv)
    try:
        args.batches = [int(x) for x in args.batch.split(",") if x]
    except ValueError:
        p.error(f"--batch: '{args.batch}' is not a comma-separated list of integers")
    if not args.batches or any(x < 1 for x in args.batches):
        p.error("--batch: batch sizes must be positive")
    args.model_list = [m for m in args.models.split(",") if m]
    known = MODELS + (TRANSFORMERS if args.command == "bench" else [])
    unknown = [m for m in args.model_list if m not in known]
    if unknown or not args.model_list:
        p.error(f"--models: unknown {','.join(unknown) or '(none)'}; choose from {','.join(known)} (transformers: "
                "bench only, on tests/data/export_transformers.py's export)")
    if args.command == "bench":
        args.modes = [m for m in args.modes.split(",") if m]
        bad = [m for m in args.modes if m not in MODES]
        if bad or not args.modes:
            p.error(f"--modes: expected a subset of {','.join(MODES)}, got '{','.join(bad) or args.modes}'")
        args.layout_list = [x for x in args.layouts.split(",") if x]
        bad = [x for x in args.layout_list if x not in LAYOUTS]
        if bad or not args.layout_list:
            p.error(f"--layouts: expected a subset of {','.join(LAYOUTS)}")
        if args.iters < 1 or args.warmup < 0:
            p.error("--iters must be >= 1 and --warmup >= 0")
    return args


def main(argv):
    args = parse_args(argv)
    import torch
    import export_torchvision as tv  # noqa: E402 (tests/data; export_transformers too, imported where used)
    if args.threads > 0:
        torch.set_num_threads(args.threads)
    return cmd_export(args, torch, tv) if args.command == "export" else cmd_bench(args, torch, tv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
