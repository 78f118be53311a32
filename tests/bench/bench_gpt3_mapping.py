#!/usr/bin/env python3
"""DiviML Table V beside opsched's: GPT-3 (one decoding step of 20 tokens) on the six-node system of
Fig. 8 (data/topologies/diviml_fig8.json), throughput of a stream of inputs (map --objective pipeline),
or with --objective batch the paper's measure: --inputs L in batches of --batch-size (default L/4), fill
and drain included, L / makespan.

Rows, as the paper's:
  Single node - MILP (baseline)     1/6 of the layers on node 0 by the whole MILP, replicated on 6 nodes
  Single node - MILP-SPLIT          the same by MILP-SPLIT (windows of modules)
  Multi node - MILP-SPLIT ...       all 30 devices, without and with each symmetry-breaking criterion
Each run gets --time-limit seconds (the paper: 600). Prints inputs/s and the ratio to the baseline,
the paper's figures beside. Usage: bench_gpt3_mapping.py --cli build/opsched-cli [--time-limit 600]
[--layers 96] [--tokens 20] [--rows 0,4] [--objective pipeline|batch --inputs L --batch-size G] [--json out.json]
--rows runs only those rows (0-5, in the order above; without row 0, the baseline, no ratios), e.g.
two invocations in parallel on a two-core machine.
"""
import argparse
import json
import os
import subprocess
import sys
import time

PAPER = [  # (row, inputs/s)
    ("Single node - MILP (baseline)", 4.8),
    ("Single node - MILP-SPLIT", 5.7),
    ("Multi node - MILP-SPLIT no symmetries", 5.0),
    ("Multi node - MILP-SPLIT all symmetries - batch", 5.6),
    ("Multi node - MILP-SPLIT all symmetries - task", 6.3),
    ("Multi node - MILP-SPLIT all symmetries - time", 6.3),
]
RUNS = [("replicated-milp", "none"), ("replicated-milp-split", "none"), ("milp-split", "none"),
        ("milp-split", "batches"), ("milp-split", "tasks"), ("milp-split", "time")]


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True)
    ap.add_argument("--topology", default=os.path.join(here, "..", "..", "data", "topologies", "diviml_fig8.json"))
    ap.add_argument("--time-limit", type=float, default=600)
    ap.add_argument("--layers", type=int, default=96)
    ap.add_argument("--tokens", type=int, default=20)
    ap.add_argument("--rows", help="comma-separated row indices (0-5) to run")
    ap.add_argument("--objective", choices=["pipeline", "batch"], default="pipeline")
    ap.add_argument("--inputs", type=int, default=64)
    ap.add_argument("--batch-size", type=int)
    ap.add_argument("--json")
    a = ap.parse_args()
    wanted = set(range(len(RUNS))) if not a.rows else {int(x) for x in a.rows.split(",")}
    model = f"zoo:gpt3?layers={a.layers}&tokens={a.tokens}"
    rows = []
    for index, ((label, paper), (mapper, sym)) in enumerate(zip(PAPER, RUNS)):
        if index not in wanted:
            continue
        start = time.monotonic()
        cmd = [a.cli, "map", model, "--topology", a.topology, "--objective", a.objective, "--mapper", mapper,
               "--symmetry", sym, "--time-limit", str(a.time_limit), "--json"]
        if a.objective == "batch":
            cmd += ["--inputs", str(a.inputs)] + (["--batch-size", str(a.batch_size)] if a.batch_size else [])
        p = subprocess.run(cmd, capture_output=True, text=True)
        wall = time.monotonic() - start
        if p.returncode != 0:
            sys.exit(f"{mapper} --symmetry {sym}: exit {p.returncode}\n{p.stderr}")
        doc = json.loads(p.stdout)
        rows.append({"index": index, "row": label, "mapper": mapper, "symmetry": sym, "paper": paper,
                     "throughput": doc["throughput_per_s"], "period_ms": doc["period_ms"], "status": doc["status"],
                     "cuts": doc["symmetry_cuts"], "wall_s": wall, "bottleneck": doc["bottleneck"],
                     "note": doc.get("note", ""), "steady_per_s": doc.get("steady_per_s"),
                     "makespan_ms": doc.get("makespan_ms")})
        print(f"  ran {mapper:22s} --symmetry {sym:8s} {doc['throughput_per_s']:8.2f} inputs/s  {wall:6.1f} s",
              file=sys.stderr)
    base = rows[0]["throughput"] if rows[0]["index"] == 0 else float("nan")
    paperBase = PAPER[0][1]
    what = (f"{a.inputs} inputs in batches of {a.batch_size or max(1, a.inputs // 4)} (fill and drain included)"
            if a.objective == "batch" else "steady-state pipeline")
    print(f"GPT-3 ({model}) on {os.path.basename(a.topology)}, {what}, --time-limit {a.time_limit:g} s per row")
    print(f"{'':48s} {'paper':>7s} {'ratio':>6s} | {'opsched':>8s} {'ratio':>6s} {'status':>9s} {'cuts':>6s} {'wall_s':>7s}")
    for r in rows:
        print(f"{r['row']:48s} {r['paper']:7.1f} {r['paper'] / paperBase:6.2f} | {r['throughput']:8.3f} "
              f"{r['throughput'] / base:7.4f} {r['status']:>9s} {r['cuts']:6d} {r['wall_s']:7.1f}  {r['note']}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"model": model, "objective": a.objective, "inputs": a.inputs, "time_limit_s": a.time_limit,
                       "rows": rows}, f, indent=2)
    multi = [r["throughput"] for r in rows if r["index"] >= 3]
    if multi and base == base:
        best_multi = max(multi)
        print(f"multi-node with symmetry breaking / replicated single node: {best_multi / base:.5f} "
              f"(target >= 1: {'met' if best_multi >= base * (1 - 1e-9) else 'NOT met'})")


if __name__ == "__main__":
    main()
