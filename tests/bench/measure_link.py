#!/usr/bin/env python3
"""Measures the host <-> GPU link as opsched's segment runner uses it, for `map --link GBPS,US`.

    measure_link.py [--device cuda:0] [--json FILE]

The segment runner (docs/mapping.md, "Mappings with a GPU") hands values between the CPU and a
GPU as dense float32 host buffers: a GPU segment copies its inputs in from pageable host memory and
its outputs back, synchronously. This times the same kind of copy with PyTorch: pageable (not
pinned) float32 tensors of 4 KiB to 16 MiB, host to device and device to host, each followed by a
synchronize; median of 15 after 3 warm-up copies per size. A least-squares line through (bytes,
seconds) over both directions gives the bandwidth (1 / slope) and the latency (intercept), which
it prints as `GBPS,LATENCY_US` on the last line of stdout (the per-size medians go to --json).
Not measured here: a segment's own launch cost (one CUDA graph replay per segment), which the
mapping's predicted makespan does not charge to the link either.
Exit 0 on success, 1 without a usable CUDA device.
"""
import argparse
import json
import statistics
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--device", default="cuda:0")
    ap.add_argument("--json", help="write the per-size medians and the fit here")
    args = ap.parse_args()
    import torch
    if not torch.cuda.is_available():
        print("measure_link: error: no CUDA device (torch %s)" % torch.__version__, file=sys.stderr)
        return 1
    dev = torch.device(args.device)
    sizes = [1 << k for k in range(12, 25, 2)]  # 4 KiB .. 16 MiB
    points, rows = [], []
    for nbytes in sizes:
        host = torch.randn(nbytes // 4)  # pageable
        gpu = host.to(dev)
        torch.cuda.synchronize(dev)
        for direction in ("h2d", "d2h"):
            times = []
            for i in range(18):
                t0 = time.perf_counter()
                if direction == "h2d":
                    gpu.copy_(host)
                else:
                    host.copy_(gpu)
                torch.cuda.synchronize(dev)
                if i >= 3:
                    times.append(time.perf_counter() - t0)
            med = statistics.median(times)
            points.append((nbytes, med))
            rows.append({"bytes": nbytes, "direction": direction, "median_us": med * 1e6})
    n = len(points)
    mx = sum(b for b, _ in points) / n
    my = sum(t for _, t in points) / n
    slope = sum((b - mx) * (t - my) for b, t in points) / sum((b - mx) ** 2 for b, _ in points)
    intercept = max(my - slope * mx, 0.0)
    gbps = 1.0 / slope / 1e9 if slope > 0 else 25.0
    doc = {"device": str(dev), "name": torch.cuda.get_device_name(dev), "pinned": False, "points": rows,
           "gbps": gbps, "latency_us": intercept * 1e6}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(doc, f, indent=1)
    print("measure_link: %s pageable copies: %.1f GB/s, %.1f us latency (least squares over %d sizes, both "
          "directions)" % (doc["name"], gbps, intercept * 1e6, len(sizes)), file=sys.stderr)
    print("%.3f,%.2f" % (gbps, intercept * 1e6))
    return 0


if __name__ == "__main__":
    sys.exit(main())
