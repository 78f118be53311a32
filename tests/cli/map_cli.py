#!/usr/bin/env python3
"""opsched-cli map, compare --devices and run --mapping as a user runs them.

The makespan `map --json` reports is recomputed here from the inputs the JSON carries (costs,
links, mapping, per-device order), by an evaluator written independently of opsched's; a CPU
mapping runs for real, both devices get ops and run at the same time, and run --check finds its
outputs equal element by element to the single-device run's; bad input fails clearly. A mapper
row that reports an error fails the test, except "built without CBC", which is a visible skip.
"""
import argparse
import json
import math
import os
import subprocess
import sys

from cli_support import expect_error, run
from mapping_support import check_passed, ops_per_device, run_until_overlap, spread_mapping

RWNN = "zoo:rwnn?modules=3&n=8&res=64&width=32"
NO_CBC = "which this build does not have"  # the MILP mappers' message in a build without COIN-OR CBC


def check_rows(rows, what):
    """Every compare row has a result; a row's error fails the test unless it is the explicit
    "built without CBC" one, which prints a visible skip. Returns the rows that have results."""
    good = {}
    for r in rows:
        if "error" not in r:
            good[r["mapper"]] = r
        elif NO_CBC in r["error"]:
            print(f"skipped: {what}: {r['mapper']}: {r['error']}")
        else:
            sys.exit(f"FAIL: {what}: {r['mapper']} reports an error: {r['error']}")
    return good


def recompute_makespan(doc, edges):
    """Each op starts when its device is free and every input has arrived (latency + bytes / bandwidth)."""
    device = doc["mapping"]
    cost = doc["costs"]
    links = doc["links"]
    finish, free = {}, {d: 0.0 for d in doc["devices"]}
    position = {d: 0 for d in doc["devices"]}
    order = doc["order"]
    preds = {}
    for a, b in edges:
        preds.setdefault(b, []).append(a)
    out_bytes = {t["from"]: t["bytes"] for t in doc["transfers"]}
    remaining = sum(len(v) for v in order.values())
    while remaining:
        progressed = False
        for d in doc["devices"]:
            if position[d] == len(order[d]):
                continue
            op = order[d][position[d]]
            if any(p not in finish for p in preds.get(op, [])):
                continue
            start = free[d]
            for p in preds.get(op, []):
                arrival = finish[p]
                if device[p] != d:
                    link = links[f"{device[p]}->{d}"]
                    arrival += link["latency_us"] * 1e-3 + out_bytes[p] / (link["bandwidth_gbps"] * 1e9) * 1e3
                start = max(start, arrival)
            finish[op] = start + cost[op][d]
            free[d] = finish[op]
            position[d] += 1
            remaining -= 1
            progressed = True
        if not progressed:
            sys.exit("FAIL: the device orders deadlock")
    return max(finish.values())


def recompute_throughput_makespan(doc, edges, output_bytes):
    """Batched makespan from the file's own costs and links: inputs dealt out in device order, a
    batch starts when its device is free and every overlapping batch of a predecessor has arrived."""
    devices, split, cost, links = doc["devices"], doc["mapping"], doc["costs"], doc["links"]
    first = {}
    for op, counts in split.items():
        nxt = 0
        for d in devices:
            first[(op, d)] = nxt
            nxt += counts.get(d, 0)

    def overlap(a, u, b, v):
        lo = max(first[(a, u)], first[(b, v)])
        hi = min(first[(a, u)] + split[a].get(u, 0), first[(b, v)] + split[b].get(v, 0))
        return max(0, hi - lo)

    preds = {}
    for a, b in edges:
        preds.setdefault(b, []).append(a)
    finish, free, position = {}, {d: 0.0 for d in devices}, {d: 0 for d in devices}
    order = doc["order"]
    remaining = sum(len(v) for v in order.values())
    while remaining:
        progressed = False
        for d in devices:
            if position[d] == len(order[d]):
                continue
            op = order[d][position[d]]
            needed = [(p, w) for p in preds.get(op, []) for w in split[p] if overlap(p, w, op, d)]
            if any(n not in finish for n in needed):
                continue
            start = free[d]
            for p, w in needed:
                arrival = finish[(p, w)]
                if w != d:
                    link = links[f"{w}->{d}"]
                    moved = overlap(p, w, op, d) * output_bytes[p]
                    arrival += link["latency_us"] * 1e-3 + moved / (link["bandwidth_gbps"] * 1e9) * 1e3
                start = max(start, arrival)
            finish[(op, d)] = start + cost[op][d][str(split[op][d])]
            free[d] = finish[(op, d)]
            position[d] += 1
            remaining -= 1
            progressed = True
        if not progressed:
            sys.exit("FAIL: the throughput device orders deadlock")
    return max(finish.values())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    cli = a.cli
    os.makedirs(a.work, exist_ok=True)
    devices = "sim:xeon,sim:t4,sim:a100"

    # 1. The JSON carries what is needed to recompute the makespan (the edges come from `info`).
    info = json.loads(run(cli, "info", RWNN, "--json").stdout)
    edges = [(src, op["name"]) for op in info["ops"] for src in op["inputs"]]
    for mapper in ["bd", "met", "greedy", "heft", "sa", "ea", "milp-split"]:
        doc = json.loads(run(cli, "map", RWNN, "--devices", devices, "--mapper", mapper, "--json").stdout)
        for key in ["mapper", "devices", "makespan_ms", "lower_bound_ms", "status", "gap", "solve_s", "mapping",
                    "order", "transfers", "costs", "links"]:
            if key not in doc:
                sys.exit(f"FAIL: map --json lacks {key}")
        got = recompute_makespan(doc, edges)
        if abs(got - doc["makespan_ms"]) > 1e-6 * max(1.0, got):
            sys.exit(f"FAIL: {mapper}: makespan {doc['makespan_ms']} ms, recomputed {got} ms")
        if doc["makespan_ms"] + 1e-9 < doc["lower_bound_ms"]:
            sys.exit(f"FAIL: {mapper}: makespan below the lower bound")
    print("map --json: fields present, makespans recomputed from its own inputs, none below the lower bound")

    # 2. milp-split equals milp on a single-channel graph; both optimal.
    small = "zoo:rwnn?modules=2&n=6&res=64&width=32"
    milp = json.loads(run(cli, "map", small, "--devices", "sim:t4,sim:a100", "--mapper", "milp", "--json").stdout)
    split = json.loads(run(cli, "map", small, "--devices", "sim:t4,sim:a100", "--mapper", "milp-split",
                           "--json").stdout)
    if milp["status"] != "optimal" or split["status"] != "optimal" or \
            abs(milp["makespan_ms"] - split["makespan_ms"]) > 1e-6:
        sys.exit(f"FAIL: milp {milp['status']} {milp['makespan_ms']} vs milp-split {split['status']} "
                 f"{split['makespan_ms']}")
    print(f"milp = milp-split = {milp['makespan_ms']:.4f} ms, both optimal")

    # 3. Bad input: clear messages, exit 1.
    expect_error(cli, "unknown device", "map", RWNN, "--devices", "sim:t4,tpu:0")
    expect_error(cli, "cpu:0 .. cpu:1", "map", RWNN, "--devices", "cpu:0,cpu:5")
    expect_error(cli, "listed twice", "map", RWNN, "--devices", "sim:t4,sim:t4")
    expect_error(cli, "bandwidth", "map", RWNN, "--devices", "sim:t4,sim:a100", "--link", "fast")
    expect_error(cli, "no device can take", "map", RWNN, "--devices", "sim:t4,sim:a100", "--memory", "0.0001,0.0001",
                 "--mapper", "heft")
    expect_error(cli, "unknown mapper", "map", RWNN, "--devices", "sim:t4,sim:a100", "--mapper", "magic")
    expect_error(cli, "unknown mapper", "map", RWNN, "--devices", "sim:t4,sim:a100", "--objective", "throughput",
                 "--mapper", "magic")
    print("bad devices, links, memory, mappers: clear messages, exit 1")

    # Throughput: 16 inputs split per op; every op's split sums to 16.
    doc = json.loads(run(cli, "map", RWNN, "--devices", devices, "--objective", "throughput", "--inputs", "16",
                         "--mapper", "greedy", "--json").stdout)
    if any(sum(split.values()) != 16 for split in doc["mapping"].values()) or doc["throughput_per_s"] <= 0:
        sys.exit("FAIL: throughput mapping does not split 16 inputs")
    if doc["throughput_per_s"] > doc["throughput_upper_bound_per_s"] * (1 + 1e-9):
        sys.exit("FAIL: throughput above its upper bound")
    # The file carries each op's cost per device and batch size and the links: its makespan
    # recomputes from them (outputs are float32: 4 bytes per element of one input's result).
    output_bytes = {op["name"]: 4 * math.prod(op["output_shape"][1:]) for op in info["ops"]}
    recomputed = recompute_throughput_makespan(doc, edges, output_bytes)
    if abs(recomputed - doc["makespan_ms"]) > 1e-9 * doc["makespan_ms"]:
        sys.exit(f"FAIL: throughput makespan {doc['makespan_ms']} does not recompute from costs/links ({recomputed})")
    if set(doc["costs"]) != set(doc["mapping"]) or any(set(c) != set(doc["devices"]) for c in doc["costs"].values()):
        sys.exit("FAIL: throughput costs do not cover every op and device")
    print(f"throughput (greedy, 16 inputs): {doc['throughput_per_s']:.0f} inputs/s, makespan recomputed from costs")
    tiny = "zoo:rwnn?modules=1&n=4&res=32&width=8"
    greedy = json.loads(run(cli, "map", tiny, "--devices", "sim:t4,sim:a100", "--objective", "throughput", "--inputs",
                            "4", "--mapper", "greedy", "--json").stdout)
    milp = json.loads(run(cli, "map", tiny, "--devices", "sim:t4,sim:a100", "--objective", "throughput", "--inputs",
                          "4", "--mapper", "milp", "--time-limit", "5", "--json").stdout)
    if milp["throughput_per_s"] < greedy["throughput_per_s"] * (1 - 1e-9):
        sys.exit(f"FAIL: throughput milp {milp['throughput_per_s']} below greedy {greedy['throughput_per_s']}")
    print(f"throughput milp ({milp['status']}): {milp['throughput_per_s']:.0f} inputs/s, greedy "
          f"{greedy['throughput_per_s']:.0f}")
    # milp-split for throughput: a feasible split of every op, never below the list heuristics
    # (it keeps the best of them), never above the upper bound, and a note saying what it did.
    modular = "zoo:rwnn?gen=er&modules=3&n=5&res=32&width=8"
    heuristics = {}
    for mapper in ["bd", "met", "greedy", "heft", "milp-split"]:
        heuristics[mapper] = json.loads(run(cli, "map", modular, "--devices", "sim:t4,sim:a100", "--objective",
                                            "throughput", "--inputs", "8", "--mapper", mapper, "--time-limit", "2",
                                            "--json").stdout)
    split = heuristics.pop("milp-split")
    if any(sum(s.values()) != 8 for s in split["mapping"].values()) or split["status"] != "feasible" or not split["note"]:
        sys.exit(f"FAIL: throughput milp-split: {split}")
    best = max(h["throughput_per_s"] for h in heuristics.values())
    if split["throughput_per_s"] < best * (1 - 1e-9) or \
            split["throughput_per_s"] > split["throughput_upper_bound_per_s"] * (1 + 1e-9):
        sys.exit(f"FAIL: throughput milp-split {split['throughput_per_s']} vs list heuristics {best}, upper bound "
                 f"{split['throughput_upper_bound_per_s']}")
    print(f"throughput milp-split: {split['throughput_per_s']:.0f} inputs/s (best list heuristic {best:.0f}); "
          f"{split['note']}")

    # 4. A time limit that ends the MILP still writes the best mapping found.
    out = os.path.join(a.work, "timeout.json")
    p = run(cli, "map", "zoo:rwnn?modules=6&res=64&width=32", "--devices", devices, "--mapper", "milp",
            "--time-limit", "0.5", "-o", out)
    doc = json.load(open(out))
    if doc["status"] not in ("timeout", "optimal") or "time limit" not in p.stderr and doc["status"] == "timeout":
        sys.exit(f"FAIL: time limit: status {doc['status']}, stderr {p.stderr}")
    print(f"milp with a 0.5 s limit: status {doc['status']}, mapping written ({doc['makespan_ms']:.4f} ms)")

    # 5. compare --devices: every mapper in one table.
    table = json.loads(run(cli, "compare", RWNN, "--devices", devices, "--time-limit", "5", "--json").stdout)
    names = [r["mapper"] for r in table["results"]]
    if names != ["bd", "met", "greedy", "heft", "sa", "ea", "milp", "milp-split"]:
        sys.exit(f"FAIL: compare --devices mappers: {names}")
    rows = check_rows(table["results"], "compare --devices")
    print("compare --devices: " + ", ".join(f"{m} {r['makespan_ms']:.3f}" for m, r in rows.items()))
    # ... and for throughput: the same mappers, rates that match the makespans, each under the bound.
    table = json.loads(run(cli, "compare", modular, "--devices", "sim:t4,sim:a100", "--objective", "throughput",
                           "--inputs", "8", "--time-limit", "1", "--json").stdout)
    if table["objective"] != "throughput" or [r["mapper"] for r in table["results"]] != names:
        sys.exit(f"FAIL: compare --objective throughput: {table}")
    rows = check_rows(table["results"], "compare --objective throughput")
    for r in rows.values():
        if abs(r["throughput_per_s"] - 8 / (r["makespan_ms"] * 1e-3)) > 1e-6 * r["throughput_per_s"] or \
                r["makespan_ms"] < table["lower_bound_ms"] * (1 - 1e-9):
            sys.exit(f"FAIL: compare throughput row {r}")
    listed = max(rows[m]["throughput_per_s"] for m in ["bd", "met", "greedy", "heft"])
    if "milp-split" in rows and rows["milp-split"]["throughput_per_s"] < listed * (1 - 1e-9):
        sys.exit(f"FAIL: compare milp-split {rows['milp-split']} below the list heuristics' {listed}")
    print("compare --objective throughput: " + ", ".join(f"{m} {r['throughput_per_s']:.0f}/s"
                                                          for m, r in rows.items()))

    # 6. A CPU mapping runs for real; its outputs equal the single-device run's element by element.
    cpu_map = os.path.join(a.work, "cpu.json")
    cache = os.path.join(a.work, "costs.db")
    if os.path.exists(cache):
        os.remove(cache)
    run(cli, "map", RWNN, "--devices", "cpu:0,cpu:1", "--mapper", "heft", "-o", cpu_map, "--cost-cache-file", cache)
    again = json.loads(run(cli, "map", RWNN, "--devices", "cpu:0,cpu:1", "--mapper", "heft", "--cost-cache-file", cache,
                           "--json").stdout)
    first = json.load(open(cpu_map))
    if again["costs"] != first["costs"] or again["links"] != first["links"]:
        sys.exit("FAIL: measured CPU costs were not taken from the cost cache the second time")
    print("measured CPU costs and hand-off: cached, the second map reads them back")
    # heft's own mapping: the check against the single-device run (it may leave a device idle:
    # measured hand-offs cost more than these small ops).
    mapped = json.loads(run(cli, "run", RWNN, "--mapping", cpu_map, "--check", "--repeat", "3", "--json").stdout)
    error = check_passed(mapped, "run --mapping --check (heft)")
    m = mapped["mapping"]
    if len(m["ops"]) != len(json.load(open(cpu_map))["mapping"]) or m["measured_ms"] <= 0:
        sys.exit("FAIL: run --mapping reports no per-op times")
    print(f"run --mapping on cpu:0,cpu:1 (heft: {ops_per_device(first)} ops): --check passes, scaled error "
          f"{error:.1e}; measured {m['measured_ms']:.3f} ms, predicted {m['predicted_ms']:.3f} ms")
    # A mapping is measured in rounds (3 by default) and reported as the median of their medians,
    # with their spread; a plain run keeps one round unless asked.
    rounds = mapped.get("round_medians_ms", [])
    if mapped.get("rounds") != 3 or len(rounds) != 3 or len(mapped.get("outputs", [])) == 0:
        sys.exit(f"FAIL: run --mapping measured {mapped.get('rounds')} rounds {rounds}, not 3")
    middle = sorted(rounds)[1]
    if abs(m["measured_ms"] - middle) > 1e-9 * middle or \
            abs(mapped["round_spread"] - (max(rounds) - min(rounds)) / middle) > 1e-9:
        sys.exit(f"FAIL: run --mapping's makespan {m['measured_ms']} or spread {mapped['round_spread']} is not its "
                 f"rounds' {rounds}")
    plain = json.loads(run(cli, "run", RWNN, "--repeat", "2", "--json").stdout)
    five = json.loads(run(cli, "run", RWNN, "--repeat", "2", "--rounds", "5", "--json").stdout)
    if plain.get("rounds") != 1 or five.get("rounds") != 5 or len(five["round_medians_ms"]) != 5:
        sys.exit(f"FAIL: run's rounds: {plain.get('rounds')} by default, {five.get('rounds')} with --rounds 5")
    print(f"run --mapping in 3 rounds: {', '.join(f'{r:.3f}' for r in rounds)} ms, spread "
          f"{100 * mapped['round_spread']:.1f}%; --rounds 5 on a plain run: 5 rounds")
    # A mapping that uses both devices: each gets ops, they run at the same time, the outputs still
    # pass the check. Overlap is a matter of timing on a shared machine: a few tries.
    spread = os.path.join(a.work, "spread.json")
    json.dump(spread_mapping(first, info["ops"]), open(spread, "w"))
    counts = ops_per_device(json.load(open(spread)))
    doc, shared, attempt = run_until_overlap(cli, "run --mapping (both devices)", "run", RWNN, "--mapping", spread,
                                             "--check", "--repeat", "3", "--json")
    error = check_passed(doc, "run --mapping --check (both devices)")
    print(f"run --mapping over both devices ({counts} ops): --check passes, scaled error {error:.1e}; both "
          f"devices busy at once for {shared * 1e3:.0f} us (try {attempt})")

    # profile --mapping stores the run: one stream per device, a span per op.
    db = os.path.join(a.work, "map.db")
    if os.path.exists(db):
        os.remove(db)
    run(cli, "profile", RWNN, "--mapping", cpu_map, "--db", db, "--repeat", "3")
    stored = json.loads(run(cli, "compare", "--db", db, "--json").stdout)
    text = json.dumps(stored)
    if "map:heft" not in text or "map:cpu:0,cpu:1" not in text:
        sys.exit(f"FAIL: profile --mapping: the stored run is not listed: {text[:400]}")
    print("profile --mapping: stored and listed by compare --db")

    # 7. Mapping files that do not fit: clear messages.
    bad = os.path.join(a.work, "bad.json")
    with open(bad, "w") as f:
        f.write("{ not json")
    expect_error(cli, "not valid JSON", "run", RWNN, "--mapping", bad)
    doc = json.load(open(cpu_map))
    doc["mapping"].pop(next(iter(doc["mapping"])))
    json.dump(doc, open(bad, "w"))
    expect_error(cli, "is not mapped", "run", RWNN, "--mapping", bad)
    expect_error(cli, "another model", "run", "zoo:rwnn?modules=2&n=8&res=64&width=32", "--mapping", cpu_map)
    through = os.path.join(a.work, "throughput.json")
    run(cli, "map", RWNN, "--devices", "cpu:0,cpu:1", "--objective", "throughput", "--inputs", "4", "--mapper",
        "greedy", "--cost-cache-file", cache, "-o", through)
    # Throughput files run (run_throughput.h), several inputs in flight, checked per input.
    out = run(cli, "run", RWNN, "--mapping", through, "--check", "--repeat", "1").stdout
    if "(throughput), 4 inputs in" not in out or "4 outputs of 4 inputs, pass" not in out:
        sys.exit(f"FAIL: run --mapping of a throughput file: {out}")
    sim_map = os.path.join(a.work, "sim.json")
    run(cli, "map", RWNN, "--devices", "sim:t4,sim:a100", "--mapper", "heft", "-o", sim_map)
    expect_error(cli, "sim devices only predict", "run", RWNN, "--mapping", sim_map)
    print("run --mapping: broken, incomplete, foreign and simulated mappings refused clearly")
    print("PASS")


if __name__ == "__main__":
    main()
