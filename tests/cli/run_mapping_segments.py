#!/usr/bin/env python3
"""run --mapping through the segment runner, as a user runs it.

--cpu: a cpu:0,cpu:1 mapping run with --segments passes --check (its outputs equal the
single-device run's element by element), reports the mapping fields (per-op times split from
measured segments, the segments themselves), and checks against ONNX test data with --input
--check; a mapping that uses both devices gives each segments and, where nothing orders two of
them, runs them at the same time; a mapping with a cuda device fails clearly without a GPU.
--gpu: the same mappings moved onto cpu,cuda:0 (and one `map --devices cpu,cuda:0` makes) run and
pass --check against the CPU's single-device run; without a CUDA device it prints "skipped: no
CUDA device" (ctest: Skipped).
"""
import argparse
import json
import os
import subprocess
import sys

from cli_support import run
from mapping_support import check_passed, concurrent_segments, ops_per_device, run_until_overlap, spread_mapping

RWNN = "zoo:rwnn?gen=er&n=12&modules=2&channels=2&seed=3&res=32"


def check_mapping_json(doc, mapping_file, what):
    m = doc["mapping"]
    for key in ["predicted_ms", "measured_ms", "measured_over_predicted", "measured_span_ms", "ops", "segments", "note",
                "executor"]:
        if key not in m:
            sys.exit(f"FAIL: {what}: mapping JSON lacks {key}")
    ops = json.load(open(mapping_file))["mapping"]
    if sorted(o["op"] for o in m["ops"]) != sorted(ops) or m["measured_ms"] <= 0 or not m["segments"]:
        sys.exit(f"FAIL: {what}: per-op entries do not cover the mapping's ops once")
    for o in m["ops"]:
        seg = m["segments"][o["segment"]]
        if o["device"] != seg["device"] or not seg["start_ms"] - 1e-9 <= o["start_ms"] <= o["end_ms"] <= seg["end_ms"] + 1e-9:
            sys.exit(f"FAIL: {what}: op {o['op']} lies outside its segment {seg}")
    for k, seg in enumerate(m["segments"]):
        for p in seg["waits_for"]:
            if m["segments"][p]["end_ms"] > seg["start_ms"] + 1e-9:
                sys.exit(f"FAIL: {what}: segment {k} started before segment {p}, which it waits for, ended")


def to_devices(doc, names):
    """The same mapping (orders, costs, links) with its devices renamed."""
    rename = dict(zip(doc["devices"], names))
    out = dict(doc)
    out["devices"] = names
    out["mapping"] = {op: rename[d] for op, d in doc["mapping"].items()}
    out["order"] = {rename[d]: ops for d, ops in doc["order"].items()}
    out["costs"] = {op: {rename[d]: c for d, c in row.items()} for op, row in doc["costs"].items()}
    out["links"] = {"->".join(rename[x] for x in k.split("->")): v for k, v in doc["links"].items()}
    return out


def both_devices(cli, work, made, devices, extra):
    """A mapping over `devices` that uses both (mapping_support.spread_mapping), run through the
    segment runner: --check passes, each device runs segments, and two that nothing orders ran
    at the same time. Returns the spread mapping's file."""
    ops = json.loads(run(cli, "info", RWNN, "--json").stdout)["ops"]
    spread = os.path.join(work, "spread_" + "_".join(d.replace(":", "") for d in devices) + ".json")
    json.dump(to_devices(spread_mapping(json.load(open(made)), ops), devices), open(spread, "w"))
    what = f"run --mapping {','.join(devices)} (both devices)"
    doc, shared, attempt = run_until_overlap(cli, what, "run", RWNN, "--mapping", spread, "--segments", "--check",
                                             "--repeat", "3", "--json", *extra)
    error = check_passed(doc, what)
    check_mapping_json(doc, spread, what)
    pairs = concurrent_segments(doc)
    if not pairs:
        sys.exit(f"FAIL: {what}: every pair of segments is ordered, nothing can overlap: {doc['mapping']['segments']}")
    print(f"{what}: {ops_per_device(json.load(open(spread)))} ops in {len(doc['mapping']['segments'])} segments, "
          f"{len(pairs)} pair(s) unordered; --check passes, scaled error {error:.1e}; both busy at once for "
          f"{shared * 1e3:.0f} us (try {attempt})")
    return spread


def cpu_part(cli, work, onnx_model, onnx_data):
    two = os.path.join(work, "two.json")
    run(cli, "map", RWNN, "--devices", "cpu:0,cpu:1", "--mapper", "heft", "-o", two, "--no-cost-cache")
    seg = json.loads(run(cli, "run", RWNN, "--mapping", two, "--segments", "--check", "--repeat", "3", "--json").stdout)
    error = check_passed(seg, "run --mapping --segments --check")
    check_mapping_json(seg, two, "run --mapping --segments")
    if seg["backend"] != "segments" or seg["mapping"]["executor"] != "segments":
        sys.exit("FAIL: --segments did not run through the segment runner")
    plain = json.loads(run(cli, "run", RWNN, "--mapping", two, "--repeat", "3", "--json").stdout)
    if "segments" in plain["mapping"]:
        sys.exit("FAIL: a CPU mapping without --segments no longer takes the partitioned-executor path")
    text = run(cli, "run", RWNN, "--mapping", two, "--segments", "--repeat", "2").stdout
    if "segments" not in text or "segment 0" not in text or "predicted" not in text:
        sys.exit(f"FAIL: the text output lacks the segments:\n{text}")
    m = seg["mapping"]
    print(f"cpu:0,cpu:1 through {len(m['segments'])} segments (heft: {ops_per_device(json.load(open(two)))} ops): "
          f"--check passes, scaled error {error:.1e}; measured {m['measured_ms']:.3f} ms, predicted "
          f"{m['predicted_ms']:.3f} ms (partitioned executor: {plain['mapping']['measured_ms']:.3f} ms)")
    both_devices(cli, work, two, ["cpu:0", "cpu:1"], [])

    if onnx_model:
        onnx_map = os.path.join(work, "onnx.json")
        run(cli, "map", onnx_model, "--devices", "cpu:0,cpu:1", "--mapper", "heft", "-o", onnx_map, "--no-cost-cache")
        doc = json.loads(run(cli, "run", onnx_model, "--mapping", onnx_map, "--segments", "--input", onnx_data,
                             "--check", "--json").stdout)
        if not doc["check"]["pass"]:
            sys.exit("FAIL: --segments --check did not pass")
        print("--segments --input --check: the outputs match the ONNX reference data")

    run(cli, "run", RWNN, "--segments", expect=2)  # --segments needs --mapping
    mixed = os.path.join(work, "mixed.json")
    json.dump(to_devices(json.load(open(two)), ["cpu", "cuda:0"]), open(mixed, "w"))
    p = subprocess.run([cli, "run", RWNN, "--mapping", mixed], capture_output=True, text=True, timeout=600)
    if p.returncode == 0:
        print("cpu,cuda:0 ran (this machine has a GPU; the --gpu test checks it)")
    elif p.returncode != 1 or "cuda:0: no cuda device" not in p.stderr.lower():
        sys.exit(f"FAIL: a cuda mapping without a GPU: exit {p.returncode}, expected 1 with a clear message:\n{p.stderr}")
    else:
        print(f"cpu,cuda:0 without a GPU: exit 1, {p.stderr.strip()[:160]}")
    print("PASS")


def gpu_part(cli, work):
    two = os.path.join(work, "two.json")
    run(cli, "map", RWNN, "--devices", "cpu:0,cpu:1", "--mapper", "heft", "-o", two, "--no-cost-cache")
    mixed = os.path.join(work, "mixed.json")
    json.dump(to_devices(json.load(open(two)), ["cpu", "cuda:0"]), open(mixed, "w"))
    p = subprocess.run([cli, "run", RWNN, "--mapping", mixed, "--no-tf32", "--check", "--repeat", "3", "--json"],
                       capture_output=True, text=True, timeout=600)
    if p.returncode == 1 and ("no cuda device" in p.stderr.lower() or "no CUDA backend" in p.stderr):
        print(f"skipped: no CUDA device ({p.stderr.strip()[:200]})")
        return
    if p.returncode != 0:
        sys.exit(f"FAIL: run --mapping cpu,cuda:0 exited {p.returncode}\n{p.stderr[-2000:]}")
    mixed_doc = json.loads(p.stdout)
    error = check_passed(mixed_doc, "run --mapping cpu,cuda:0 (hand-made)")
    check_mapping_json(mixed_doc, mixed, "run --mapping cpu,cuda:0 (hand-made)")
    print(f"cpu,cuda:0 (hand-made, {len(mixed_doc['mapping']['segments'])} segments): --check passes, scaled "
          f"error {error:.1e}")
    both_devices(cli, work, two, ["cpu", "cuda:0"], ["--no-tf32"])
    mapped = os.path.join(work, "gpu.json")
    run(cli, "map", RWNN, "--devices", "cpu,cuda:0", "--mapper", "heft", "-o", mapped, "--no-cost-cache")
    doc = json.loads(run(cli, "run", RWNN, "--mapping", mapped, "--no-tf32", "--check", "--repeat", "5",
                         "--json").stdout)
    check_passed(doc, "run --mapping cpu,cuda:0 (map's)")
    check_mapping_json(doc, mapped, "run --mapping cpu,cuda:0 (map's)")
    m = doc["mapping"]
    print(f"cpu,cuda:0 (map --mapper heft): --check passes; measured {m['measured_ms']:.3f} ms, predicted "
          f"{m['predicted_ms']:.3f} ms")
    print("PASS")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--gpu", action="store_true")
    ap.add_argument("--onnx-model", default="")
    ap.add_argument("--onnx-data", default="")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    if a.gpu:
        gpu_part(a.cli, a.work)
    else:
        cpu_part(a.cli, a.work, a.onnx_model, a.onnx_data)


if __name__ == "__main__":
    main()
