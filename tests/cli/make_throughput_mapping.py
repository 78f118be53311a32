#!/usr/bin/env python3
"""Writes a cpu:0,cpu:1 throughput mapping of MODEL (map --objective throughput, its costs and
links kept) remade so that it exercises what a throughput run must get right: ops in turn run all
inputs pipelined on cpu:0 (one batch per input), pipelined on cpu:1, and split half and half over
both, so batches cross devices with several inputs in flight. The fixture of the
cli.mapping_check_throughput tests (CMakeLists.txt). Fails unless both devices got batches."""
import argparse
import json
import os
import sys

from cli_support import run


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--inputs", type=int, default=4)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    made = a.out + ".greedy.json"
    run(a.cli, "map", a.model, "--devices", "cpu:0,cpu:1", "--objective", "throughput", "--inputs", str(a.inputs),
        "--mapper", "greedy", "-o", made, "--no-cost-cache")
    doc = json.load(open(made))
    ops = [op["name"] for op in json.loads(run(a.cli, "info", a.model, "--json").stdout)["ops"]]  # topological
    L, half = a.inputs, a.inputs // 2
    smallest = min(doc["batch_sizes"])
    if half not in doc["batch_sizes"] or L % smallest:
        sys.exit(f"FAIL: batch sizes {doc['batch_sizes']} cannot split {L} inputs in halves and in batches")
    mapping = {}
    for i, op in enumerate(ops):
        kind = i % 3
        if kind == 2:
            mapping[op] = {"cpu:0": half, "cpu:1": L - half}
        else:
            mapping[op] = {f"cpu:{kind}": [smallest] * (L // smallest)}
    doc["mapper"] = "pipelined by turns"
    doc["mapping"] = mapping
    doc["order"] = {d: [op for op in ops if d in mapping[op]] for d in doc["devices"]}
    for key in ("makespan_ms", "throughput_per_s", "transfers", "transferred_bytes"):
        doc.pop(key, None)
    counts = {d: len(v) for d, v in doc["order"].items()}
    if min(counts.values()) == 0:
        sys.exit(f"FAIL: a device got no batches: {counts}")
    json.dump(doc, open(a.out, "w"), indent=1)
    print(f"{a.out}: ops per device {counts}")


if __name__ == "__main__":
    main()
