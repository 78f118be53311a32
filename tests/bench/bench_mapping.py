#!/usr/bin/env python3
"""DiviML's tables on opsched's mappers: latency of 10-module RWNNs (Table I) and the solve time of
MILP against MILP-SPLIT (Table III), on the paper's setup as opsched simulates it: a Xeon CPU, a
T4 and an A100 (sim:xeon, sim:t4, sim:a100) over PCIe 4.0 x16 (25 GB/s, 10 us).

    bench_mapping.py [--cli build/opsched-cli] [--milp-limit 60] [--tables 1,3,4,n32] [--inputs 16] [--quick]
                     [--equal-time] [--table3-channels C] [--devices LIST|paper|mixed]

Table I: for ER(0.2) RWNNs of 10 modules with 1 to 4 channels (sdep and wdep), the makespan of
every mapper and the lower bound; MILP has --milp-limit seconds. Table III: MILP and MILP-SPLIT
solve times at 5, 10 and 20 modules (single-channel, or --table3-channels C); MILP stops at --milp-limit, so where it times
out the factor is a lower bound (marked >=). Table IV: throughput (inputs/s) of the same 10-module
RWNNs for --inputs L split into L/4..L batches (--objective throughput), every batched mapper,
and the upper bound; milp-split has --milp-limit seconds (the batched MILP refuses whole
networks, as it did not finish for the paper either). n32: single N=32 modules (ER, WS, BA) mapped
whole by milp-split (--max-module-tasks 40) on the default and the paper's relative speeds: makespan,
lower bound, status and gap. --devices: another device list for Tables I, III and IV: `paper`
(sim:paper-*: Table II's speeds, every op the same ratio), `mixed` (sim:mixed-*: the same mean
speeds, each op log-normally apart per device, so ops prefer different devices), or any list
`map --devices` takes (`cpu,sim:paper-t4,sim:paper-a100`: the local CPU's measured costs). Table I
also prints milp-split's own joined modules (before the polished heuristics compete) beside its
answer. A benchmark: it prints numbers, exits 0 unless something could not run.
"""
import argparse
import json
import subprocess
import sys

DEFAULT_DEVICES = "sim:xeon,sim:t4,sim:a100"
DEVICES = DEFAULT_DEVICES  # --devices replaces it
DEVICE_SETS = {"paper": "sim:paper-xeon,sim:paper-t4,sim:paper-a100",
               "mixed": "sim:mixed-xeon,sim:mixed-t4,sim:mixed-a100"}
MAPPERS = ["bd", "met", "greedy", "heft", "ea", "sa", "milp", "milp-split"]


def compare(cli, model, limit, equal_time=False):
    extra = ["--equal-time"] if equal_time else []
    out = subprocess.run([cli, "compare", model, "--devices", DEVICES, "--time-limit", str(limit), "--json", *extra],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def map_one(cli, model, mapper, limit, extra=(), devices=None):
    out = subprocess.run([cli, "map", model, "--devices", devices or DEVICES, "--mapper", mapper, "--time-limit", str(limit),
                          "--json", *extra], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def rwnn_configs(quick):
    configs = [("1-chan", 1, "sdep")]
    for dep in ["sdep", "wdep"]:
        for c in [2, 3, 4]:
            configs.append((f"{dep}, {c}-chan", c, dep))
    return configs[:2] if quick else configs


def table1(cli, limit, quick, equal_time):
    print(f"Table I: makespan (ms) of 10-module ER(0.2) RWNNs on {DEVICES}; milp limited to {limit} s"
          + ("; sa and ea run as long as milp-split (--equal-time)" if equal_time else ""))
    header = (f"{'model':<14}" + "".join(f"{m:>11}" for m in MAPPERS) +
              f"{'LBound':>9} {'split/LB':>8} {'split_s':>8}  split_vs_best_heuristic  joined  joined_vs_best")
    print(header)
    for label, channels, dep in rwnn_configs(quick):
        model = f"zoo:rwnn?gen=er&modules=10&channels={channels}&dep={dep}"
        doc = compare(cli, model, limit, equal_time)
        by = {r["mapper"]: r for r in doc["results"]}
        row = f"{label:<14}"
        for m in MAPPERS:
            row += f"{by[m]['makespan_ms']:>11.4f}" if "makespan_ms" in by[m] else f"{'error':>11}"
        heuristics = min(by[m]["makespan_ms"] for m in ["bd", "met", "greedy", "heft", "ea", "sa"])
        split = by["milp-split"]["makespan_ms"]
        row += f"{doc['lower_bound_ms']:>9.4f} {split / doc['lower_bound_ms']:>8.3f} {by['milp-split']['solve_s']:>8.2f}"
        row += f"  {(heuristics - split) / heuristics * 100:+.1f}%"
        joined = by["milp-split"].get("joined_makespan_ms", split)
        row += f"  {joined:.4f} {(heuristics - joined) / heuristics * 100:+.1f}%"
        row += f"  (milp {by['milp']['status']}, split {by['milp-split']['status']})"
        print(row, flush=True)


def table3(cli, limit, quick, channels=1):
    kind = "single-channel" if channels == 1 else f"{channels}-channel"
    print(f"\nTable III: solve time (s), {kind} ER(0.2) RWNNs; milp limited to {limit} s")
    print(f"{'modules':>7} {'dep':>5} {'milp_s':>8} {'milp_status':>11} {'milp_ms':>9} {'split_s':>8} "
          f"{'split_ms':>9} {'split_status':>12} {'factor':>9}")
    for modules in ([5] if quick else [5, 10, 20]):
        for dep in ["sdep", "wdep"]:
            model = f"zoo:rwnn?gen=er&modules={modules}&channels={channels}&dep={dep}"
            milp = map_one(cli, model, "milp", limit)
            split = map_one(cli, model, "milp-split", limit)
            factor = milp["solve_s"] / max(split["solve_s"], 1e-6)
            mark = ">=" if milp["status"] == "timeout" else "  "
            print(f"{modules:>7} {dep:>5} {milp['solve_s']:>8.2f} {milp['status']:>11} {milp['makespan_ms']:>9.4f} "
                  f"{split['solve_s']:>8.3f} {split['makespan_ms']:>9.4f} {split['status']:>12} {mark}{factor:>7.0f}x",
                  flush=True)


PAPER_DEVICES = "sim:paper-xeon,sim:paper-t4,sim:paper-a100"


def table_n32(cli, limit, quick):
    """N=32 single modules, solved whole (--max-module-tasks 40): the paper proves them optimal."""
    print(f"\nN=32 single modules (rwnn n=32, modules=1, --max-module-tasks 40), milp-split limited to {limit} s")
    print(f"{'graph':>5} {'devices':>8} {'split_ms':>9} {'LB_ms':>9} {'status':>9} {'gap':>7} {'split_s':>8}")
    default = [(DEFAULT_DEVICES, "default")]
    for devices, label in (default if quick else default + [(PAPER_DEVICES, "paper")]):
        for gen in (["er"] if quick else ["er", "ws", "ba"]):
            r = map_one(cli, f"zoo:rwnn?gen={gen}&n=32&modules=1", "milp-split", limit,
                        ("--max-module-tasks", "40"), devices)
            print(f"{gen:>5} {label:>8} {r['makespan_ms']:>9.4f} {r['lower_bound_ms']:>9.4f} {r['status']:>9} "
                  f"{100 * r['gap']:>6.2f}% {r['solve_s']:>8.1f}", flush=True)


BATCHED = ["bd", "met", "greedy", "heft", "ea", "sa", "milp", "milp-split"]


# The paper's Table IV (imgs/s): BD, bMET, bGreedy, bHEFT, EA, SA, MILP, MILP-SPLIT, UBound.
PAPER_TABLE4 = {
    "1-chan": [54, 56, 74, 75, 84, 87, 114, 135, 164],
    "sdep, 2-chan": [48, 50, 67, 66, 75, 78, 95, 119, 180],
    "sdep, 3-chan": [49, 51, 68, 70, 78, 81, 116, 129, 196],
    "sdep, 4-chan": [47, 48, 65, 67, 76, 79, 73, 126, 209],
    "wdep, 2-chan": [51, 53, 76, 75, 86, 87, 89, 137, 182],
    "wdep, 3-chan": [49, 52, 73, 73, 82, 85, 72, 137, 181],
    "wdep, 4-chan": [47, 50, 72, 74, 82, 84, 65, 138, 207],
}


def throughput_rows(cli, model, limit, inputs, equal_time):
    """Every batched mapper's JSON row: `map` each alone, or with equal_time one `compare --equal-time`
    (sa and ea run as long as milp-split took; milp-split's row gets the upper bound)."""
    args = ("--objective", "throughput", "--inputs", str(inputs))
    if not equal_time:
        by = {}
        for m in BATCHED:
            try:
                by[m] = map_one(cli, model, m, limit, args)
            except subprocess.CalledProcessError as e:
                by[m] = {"error": "refused" if "rows" in e.stderr else "error"}
        return by
    out = subprocess.run([cli, "compare", model, "--devices", DEVICES, "--time-limit", str(limit), "--json",
                          "--equal-time", *args], capture_output=True, text=True, check=True)
    doc = json.loads(out.stdout)
    by = {r["mapper"]: r for r in doc["results"]}
    by["milp-split"]["throughput_upper_bound_per_s"] = inputs / doc["lower_bound_ms"] * 1e3
    return by


def table4(cli, limit, inputs, quick, equal_time):
    print(f"\nTable IV: throughput (inputs/s) of 10-module ER(0.2) RWNNs, {inputs} inputs in batches of "
          f"L/4..L (pipelined or not), on {DEVICES}; milp-split limited to {limit} s"
          + ("; sa and ea run as long as milp-split (--equal-time)" if equal_time else ""))
    print("milp*: the whole MILP is over its row cap, the best list heuristic's mapping is what it returns")
    print(f"{'model':<14}" + "".join(f"{m:>11}" for m in BATCHED) + f"{'UBound':>9}  split_vs_best_heuristic  split_s"
          "  split/bd (paper)  split/UB (paper)")
    for label, channels, dep in rwnn_configs(quick):
        model = f"zoo:rwnn?gen=er&modules=10&channels={channels}&dep={dep}"
        row, by = f"{label:<14}", throughput_rows(cli, model, limit, inputs, equal_time)
        for m in BATCHED:
            if "error" in by[m]:
                row += f"{by[m]['error'][:10]:>11}"
                continue
            capped = m == "milp" and ("row" in by[m].get("note", "") or by[m].get("status") == "heuristic")
            row += f"{by[m]['throughput_per_s']:>10.1f}{'*' if capped else ' '}"
        heuristics = max(by[m]["throughput_per_s"] for m in ["bd", "met", "greedy", "heft", "ea", "sa"] if "error" not in by[m])
        split = by["milp-split"]
        upper = split["throughput_upper_bound_per_s"]
        paper = PAPER_TABLE4[label]
        row += f"{upper:>9.1f}  {(split['throughput_per_s'] - heuristics) / heuristics * 100:+.1f}%"
        row += f"{split['solve_s']:>22.1f}"
        row += f"  {split['throughput_per_s'] / by['bd']['throughput_per_s']:.2f} ({paper[7] / paper[0]:.2f})"
        row += f"  {split['throughput_per_s'] / upper:.2f} ({paper[7] / paper[8]:.2f})"
        print(row, flush=True)


def main():
    global DEVICES
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default="build/opsched-cli")
    ap.add_argument("--milp-limit", type=float, default=60)
    ap.add_argument("--tables", default="1,3,4")
    ap.add_argument("--inputs", type=int, default=16, help="Table IV: inputs per batch (the paper: 16 for RWNNs)")
    ap.add_argument("--quick", action="store_true", help="two rows of each table (a smoke run)")
    ap.add_argument("--table3-channels", type=int, default=1,
                    help="Table III: channels of the RWNNs (the paper's sdep and wdep differ only with 2 or more)")
    ap.add_argument("--equal-time", action="store_true",
                    help="Tables I and IV: sa and ea run for as long as milp-split took (compare --equal-time)")
    ap.add_argument("--devices", default=DEVICES,
                    help="Tables I, III, IV: paper, mixed, or a --devices list (default: %(default)s)")
    a = ap.parse_args()
    DEVICES = DEVICE_SETS.get(a.devices, a.devices)
    tables = a.tables.split(",")
    try:
        if "1" in tables:
            table1(a.cli, a.milp_limit, a.quick, a.equal_time)
        if "3" in tables:
            table3(a.cli, a.milp_limit, a.quick, a.table3_channels)
        if "4" in tables:
            table4(a.cli, a.milp_limit, a.inputs, a.quick, a.equal_time)
        if "n32" in tables:
            table_n32(a.cli, a.milp_limit, a.quick)
    except subprocess.CalledProcessError as e:
        sys.exit(f"bench_mapping: {' '.join(e.cmd)} failed: {e.stderr}")


if __name__ == "__main__":
    main()
