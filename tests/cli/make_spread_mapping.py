#!/usr/bin/env python3
"""Writes a cpu:0,cpu:1 mapping of MODEL that keeps both devices busy (mapping_support.spread_mapping):
the fixture of the run --mapping --check and --inject-fault tests in CMakeLists.txt. Prints how
many ops each device got; fails unless both got some."""
import argparse
import json
import os
import sys

from cli_support import run
from mapping_support import ops_per_device, spread_mapping


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    made = a.out + ".heft.json"
    run(a.cli, "map", a.model, "--devices", "cpu:0,cpu:1", "--mapper", "heft", "-o", made, "--no-cost-cache")
    ops = json.loads(run(a.cli, "info", a.model, "--json").stdout)["ops"]
    doc = spread_mapping(json.load(open(made)), ops)
    counts = ops_per_device(doc)
    if min(counts.values()) == 0:
        sys.exit(f"FAIL: the spread mapping leaves a device idle: {counts}")
    json.dump(doc, open(a.out, "w"), indent=1)
    print(f"{a.out}: {counts}")


if __name__ == "__main__":
    main()
