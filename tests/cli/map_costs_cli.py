#!/usr/bin/env python3
"""Cost tables from the command line: `map --write-costs` then `map --costs` gives the same mapping
(JSON and CSV tables, simulated and paper devices), --links changes one pair only, and the GPT-3
pipeline study runs on the shipped Fig. 8 topology (replicated vs multi-node, small; `map` and
`compare --objective pipeline`), and `compare --equal-time` gives sa and ea milp-split's time."""
import argparse
import json
import os
import subprocess
import sys


def run(cli, *args, expect=0):
    p = subprocess.run([cli, *args], capture_output=True, text=True)
    if p.returncode != expect:
        sys.exit(f"opsched-cli {' '.join(args)}: exit {p.returncode}, expected {expect}\n{p.stdout}\n{p.stderr}")
    return p.stdout


def devices_of(mapping_json):
    doc = json.loads(mapping_json)
    return sorted(doc["mapping"].items())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--source", required=True)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    model = "zoo:rwnn?modules=2&n=6&seed=3"
    for devices in ("sim:xeon,sim:t4,sim:a100", "sim:paper-xeon,sim:paper-t4,sim:paper-a100"):
        for ext in ("json", "csv"):
            table = os.path.join(a.work, f"costs.{ext}")
            first = run(a.cli, "map", model, "--devices", devices, "--mapper", "heft", "--json", "--write-costs", table)
            extra = [] if ext == "json" else ["--devices", devices]  # CSV holds costs only: devices named again
            again = run(a.cli, "map", model, "--costs", table, "--mapper", "heft", "--json", *extra)
            if devices_of(first) != devices_of(again) or json.loads(first)["makespan_ms"] != json.loads(again)["makespan_ms"]:
                sys.exit(f"{devices} {ext}: the mapping read back differs\n{first}\n{again}")
    # --links: one pair slower changes that pair only (the mapping may change; the problem must).
    links = os.path.join(a.work, "links.csv")
    with open(links, "w") as f:
        f.write("from,to,gbps,latency_us\nsim:t4,sim:a100,0.001,1000\n")
    slow = json.loads(run(a.cli, "map", model, "--devices", "sim:xeon,sim:t4,sim:a100", "--mapper", "heft", "--json",
                          "--links", links))
    fast = json.loads(run(a.cli, "map", model, "--devices", "sim:xeon,sim:t4,sim:a100", "--mapper", "heft", "--json"))
    for pair, link in slow["links"].items():
        want = ({"bandwidth_gbps": 0.001, "latency_us": 1000.0} if pair in ("sim:t4->sim:a100", "sim:a100->sim:t4")
                else fast["links"][pair])
        if abs(link["bandwidth_gbps"] - want["bandwidth_gbps"]) > 1e-9 or abs(link["latency_us"] - want["latency_us"]) > 1e-6:
            sys.exit(f"--links: {pair} is {link}, expected {want}")
    # The GPT-3 study, small: 6 layers on the six nodes.
    topo = os.path.join(a.source, "data", "topologies", "diviml_fig8.json")
    out = {}
    for mapper, sym in (("replicated-milp", "none"), ("milp-split", "time")):
        doc = json.loads(run(a.cli, "map", "zoo:gpt3?layers=6&tokens=20", "--topology", topo, "--objective", "pipeline",
                             "--mapper", mapper, "--symmetry", sym, "--time-limit", "4", "--json"))
        out[mapper] = doc["throughput_per_s"]
        if len(doc["devices"]) != 30 or doc["devices"][29]["name"] != "n5/a100.1":
            sys.exit("the Fig. 8 topology's devices are not n0/xeon .. n5/a100.1")
    if out["milp-split"] < out["replicated-milp"] * 0.999:
        sys.exit(f"multi-node milp-split ({out['milp-split']:.2f}/s) below replicated ({out['replicated-milp']:.2f}/s)")
    # compare --objective pipeline: every pipeline mapper in one table, against the replicated baseline.
    doc = json.loads(run(a.cli, "compare", "zoo:gpt3?layers=6&tokens=20", "--topology", topo, "--objective", "pipeline",
                         "--symmetry", "time", "--time-limit", "4", "--json"))
    rows = {r["mapper"]: r for r in doc["results"]}
    if doc["baseline"] != "replicated-milp" or sorted(rows) != sorted(
            ["greedy", "milp", "milp-split", "replicated-milp", "replicated-milp-split"]):
        sys.exit(f"compare --objective pipeline: rows {sorted(rows)}, baseline {doc['baseline']}")
    if any("error" in r for r in rows.values()) or rows["replicated-milp"]["vs_baseline"] != 1.0:
        sys.exit(f"compare --objective pipeline: {doc['results']}")
    if rows["milp-split"]["vs_baseline"] < 0.999:
        sys.exit(f"compare: multi-node milp-split at {rows['milp-split']['vs_baseline']:.4f}x the replicated baseline")
    # compare --objective batch: the same mappers timed on 16 inputs in batches of 4 (fill and drain
    # included): never above the steady state each one's mapping promises; a --batch-size that does
    # not divide --inputs is refused by name.
    doc = json.loads(run(a.cli, "compare", "zoo:gpt3?layers=6&tokens=20", "--topology", topo, "--objective", "batch",
                         "--inputs", "16", "--time-limit", "2", "--json"))
    rows = {r["mapper"]: r for r in doc["results"]}
    if doc["objective"] != "batch" or doc["inputs"] != 16 or doc["batch_size"] != 4 or any("error" in r for r in rows.values()):
        sys.exit(f"compare --objective batch: {doc}")
    for name, r in rows.items():
        if not 0 < r["throughput_per_s"] <= r["steady_per_s"] * (1 + 1e-9):
            sys.exit(f"compare --objective batch: {name} at {r['throughput_per_s']}/s, steady state {r['steady_per_s']}/s")
        if abs(16 / (r["makespan_ms"] * 1e-3) - r["throughput_per_s"]) > 1e-6 * r["throughput_per_s"]:
            sys.exit(f"compare --objective batch: {name}'s inputs/s is not 16 / its makespan")
    # Multi-node milp-split ranks its candidates by the batched throughput: never below its replicated start.
    if rows["milp-split"]["vs_baseline"] < 0.999:
        sys.exit(f"compare --objective batch: milp-split at {rows['milp-split']['vs_baseline']:.4f}x the replicated baseline")
    p = subprocess.run([a.cli, "map", "zoo:gpt3?layers=6&tokens=20", "--topology", topo, "--objective", "batch",
                        "--inputs", "10", "--batch-size", "4"], capture_output=True, text=True)
    if p.returncode != 1 or "multiple of --batch-size" not in p.stderr:
        sys.exit(f"map --objective batch --inputs 10 --batch-size 4: exit {p.returncode}, {p.stderr}")
    # Without a topology the replicated rows say why they cannot run, and greedy is the baseline.
    doc = json.loads(run(a.cli, "compare", model, "--devices", "sim:xeon,sim:t4,sim:a100", "--objective", "pipeline",
                         "--time-limit", "2", "--json"))
    rows = {r["mapper"]: r for r in doc["results"]}
    if doc["baseline"] != "greedy" or "topology" not in rows["replicated-milp"].get("error", ""):
        sys.exit(f"compare --objective pipeline without a topology: {doc}")
    if rows["milp"]["throughput_per_s"] < rows["greedy"]["throughput_per_s"] * 0.999:
        sys.exit("compare --objective pipeline: milp below greedy")
    # --equal-time (latency and throughput): sa and ea run for as long as milp-split took.
    for objective in ("latency", "throughput"):
        doc = json.loads(run(a.cli, "compare", model, "--devices", "sim:xeon,sim:t4,sim:a100", "--objective", objective,
                             "--inputs", "8", "--time-limit", "3", "--equal-time", "--json"))
        rows = {r["mapper"]: r for r in doc["results"]}
        split = min(rows["milp-split"]["solve_s"], 3.0)  # sa and ea stop at the time limit too
        for name in ("sa", "ea"):
            if rows[name]["solve_s"] < split * 0.95:
                sys.exit(f"compare --objective {objective} --equal-time: {name} ran {rows[name]['solve_s']:.3f} s, "
                         f"milp-split {split:.3f} s")
    print("ok", out)


if __name__ == "__main__":
    main()
