#!/usr/bin/env python3
"""`explain` and `compare --explain` from the command line: stored simulated runs of Inception V3
and SqueezeNet, the breakdown's terms adding up to the latency difference, the IOS ablation's
mechanisms (merged kernels for ios-merge, overlap for ios-parallel), and the refusals (unknown run,
malformed --runs, runs of two models).

Usage: explain_cli.py --cli PATH --work DIR
"""
import argparse
import json
import os
import subprocess
import sys


def run(cli, *args, expect=0):
    p = subprocess.run([cli, *args], capture_output=True, text=True)
    if p.returncode != expect:
        sys.exit(f"{' '.join(args)}: exit {p.returncode}, expected {expect}\n{p.stdout}\n{p.stderr}")
    return p


def check(cond, what):
    if not cond:
        sys.exit("FAILED: " + what)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--work", required=True)
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    db = os.path.join(a.work, "explain.db")
    if os.path.exists(db):
        os.remove(db)
    run(a.cli, "profile", "zoo:inception_v3", "zoo:squeezenet", "--schedulers",
        "sequential,ios-merge,ios-parallel,nimble", "--device", "sim:h100", "--db", db)
    groups = json.loads(run(a.cli, "compare", "--db", db, "--json").stdout)["groups"]
    ids = {(g["model"], r["scheduler"]): r["run"] for g in groups for r in g["results"]}

    def explain(model, sched):
        runs = f"{ids[(model, 'sequential')]},{ids[(model, sched)]}"
        return json.loads(run(a.cli, "explain", "--db", db, "--runs", runs, "--json").stdout)

    for model in ("inception_v3", "squeezenet"):
        for sched in ("ios-merge", "ios-parallel", "nimble"):
            e = explain(model, sched)
            total = sum(t["ms"] for t in e["terms"])
            check(abs(total - e["difference_ms"]) < 1e-3 * 1e-3, f"{model} {sched}: terms {total} != {e['difference_ms']}")
            check(abs(e["difference_ms"] - (e["a"]["latency_ms"] - e["b"]["latency_ms"])) < 1e-9,
                  f"{model} {sched}: difference is not latency A - latency B")
    # IOS's ablation: ios-merge gains by merging (kernels only one run has), ios-parallel by
    # running concurrently (overlap) with every kernel in both runs.
    merge = {t["term"]: t["ms"] for t in explain("inception_v3", "ios-merge")["terms"]}
    parallel = {t["term"]: t["ms"] for t in explain("inception_v3", "ios-parallel")["terms"]}
    check(merge["only_a_kernels"] + merge["only_b_kernels"] > 0, f"ios-merge's merged kernels save time: {merge}")
    check(parallel["only_a_kernels"] == 0 and parallel["only_b_kernels"] == 0,
          f"ios-parallel merges nothing: {parallel}")
    check(parallel["overlap"] > 0, f"ios-parallel hides kernel time by concurrency: {parallel}")

    text = run(a.cli, "explain", "--db", db, "--runs",
               f"{ids[('inception_v3', 'sequential')]},{ids[('inception_v3', 'nimble')]}").stdout
    for want in ("A = sequential", "B = nimble", "kernel time hidden by running concurrently",
                 "sum (= latency A - latency B)", "ops whose kernel time changed most"):
        check(want in text, f"explain's text lacks '{want}':\n{text}")
    why = run(a.cli, "compare", "--db", db, "--explain").stdout
    check("why, against sequential" in why and "ios-merge" in why, f"compare --db --explain:\n{why}")
    live = json.loads(run(a.cli, "compare", "zoo:squeezenet", "--device", "sim:h100", "--explain", "--json").stdout)
    for r in live["results"]:
        if r["scheduler"] == "sequential":
            check("explain" not in r, "sequential is not explained against itself")
            continue
        terms = r["explain"]["terms_ms"]
        check(abs(sum(terms.values()) - r["explain"]["difference_ms"]) < 1e-6, f"compare --explain {r['scheduler']}")

    # Measured runs on CPU partitions (mappings over cpu:0,cpu:1 stored by `profile --mapping`): the
    # terms add up there too, with the median's variation as a term of its own.
    cpu_db = os.path.join(a.work, "cpu.db")
    if os.path.exists(cpu_db):
        os.remove(cpu_db)
    for mapper in ("bd", "heft"):
        mapping = os.path.join(a.work, mapper + ".json")
        run(a.cli, "map", "zoo:squeezenet", "--devices", "cpu:0,cpu:1", "--mapper", mapper, "-o", mapping)
        run(a.cli, "profile", "zoo:squeezenet", "--mapping", mapping, "--db", cpu_db, "--repeat", "3")
    e = json.loads(run(a.cli, "explain", "--db", cpu_db, "--runs", "1,2", "--json").stdout)
    total = sum(t["ms"] for t in e["terms"])
    check(abs(total - e["difference_ms"]) < 1e-6, f"CPU partitions: terms {total} != {e['difference_ms']}")
    check(e["a"]["kernels"] > 0 and e["b"]["overlap_ms"] >= 0, f"CPU partitions: {e['a']}, {e['b']}")

    # Refusals: exit 1 with the reason.
    p = run(a.cli, "explain", "--db", db, "--runs", "1,999", expect=1)
    check("999" in p.stderr, f"an unknown run is named: {p.stderr}")
    p = run(a.cli, "explain", "--db", db, "--runs", "1", expect=1)
    check("give two run ids" in p.stderr, f"malformed --runs: {p.stderr}")
    p = run(a.cli, "explain", "--db", db, "--runs",
            f"{ids[('inception_v3', 'sequential')]},{ids[('squeezenet', 'nimble')]}", expect=1)
    check("different models or batches" in p.stderr, f"two models: {p.stderr}")
    p = run(a.cli, "compare", "zoo:squeezenet", "--devices", "sim:t4,sim:a100", "--explain", expect=2)
    print("explain: terms add up, the IOS ablation shows its mechanisms, refusals name the problem")


if __name__ == "__main__":
    main()
