"""What the run --mapping tests share: a two-device mapping that is sure to use both devices, and
the checks that a mapped run did (its outputs are compared element-wise by run --check itself)."""
import json
import sys

from cli_support import run


def spread_mapping(doc, ops):
    """The file's mapping remade to keep its first two devices busy at the same time.

    `ops` is `info --json`'s op list (topological). List scheduling with unit costs and free
    transfers: each op goes to the device that would finish it first, a tie to its first input's
    device, so chains stay together and parallel branches spread. Deterministic (no measured
    costs), and the file's costs and links stay, so the run still predicts.
    """
    devices = doc["devices"][:2]
    finish, free, mapping = {}, {d: 0 for d in devices}, {}
    for op in ops:
        name, inputs = op["name"], op["inputs"]
        ready = max((finish[i] for i in inputs), default=0)
        home = mapping[inputs[0]] if inputs else devices[0]
        device = min(devices, key=lambda d: (max(ready, free[d]), d != home))
        finish[name] = free[device] = max(ready, free[device]) + 1
        mapping[name] = device
    out = {k: v for k, v in doc.items() if k not in ("makespan_ms", "start_ms", "finish_ms", "transfers")}
    out["mapper"] = "spread by level"
    out["mapping"] = mapping
    out["order"] = {d: [op["name"] for op in ops if mapping[op["name"]] == d] for d in doc["devices"]}
    return out


def ops_per_device(doc):
    """How many ops a mapping file puts on each of its devices."""
    return {d: sum(1 for v in doc["mapping"].values() if v == d) for d in doc["devices"]}


def device_spans(run_doc):
    """Measured busy intervals per device of `run --mapping --json`: segments when the run reports
    them (the segment runner), else the per-op launches (the partitioned CPU executor)."""
    m = run_doc["mapping"]
    spans = {}
    for item in m["segments"] if "segments" in m else m["ops"]:
        if item["end_ms"] > item["start_ms"]:  # folded ops run nothing
            spans.setdefault(item["device"], []).append((item["start_ms"], item["end_ms"]))
    return spans


def check_devices_overlap(run_doc, what):
    """Both devices ran ops, and some time both were busy; returns that longest shared stretch (ms)."""
    spans = device_spans(run_doc)
    devices = run_doc["mapping"]["devices"]
    idle = [d for d in devices if not spans.get(d)]
    if idle:
        sys.exit(f"FAIL: {what}: device(s) {', '.join(idle)} ran no ops: {spans}")
    a, b = spans[devices[0]], spans[devices[1]]
    shared = max(min(e1, e2) - max(s1, s2) for s1, e1 in a for s2, e2 in b)
    if shared <= 0:
        sys.exit(f"FAIL: {what}: {devices[0]} and {devices[1]} never ran at the same time: {spans}")
    return shared


def check_passed(run_doc, what):
    """run --check's verdict in --json, with each output's scaled error (max |a - e| / max |ref|)."""
    if not run_doc.get("check", {}).get("pass"):
        sys.exit(f"FAIL: {what}: --check did not pass: {run_doc.get('outputs')}")
    return max(o["scaled_error"] for o in run_doc["outputs"])


def concurrent_segments(run_doc):
    """Pairs of segments on different devices that nothing orders (no chain of waits_for and
    same-device order between them): what the segment runner may run at the same time."""
    segments = run_doc["mapping"]["segments"]
    before = [set(s["waits_for"]) for s in segments]
    for k, s in enumerate(segments):
        before[k] |= {p for p in range(k) if segments[p]["device"] == s["device"]}
    grew = True
    while grew:  # transitive closure (waits may point to higher indices: other devices' segments)
        grew = False
        for k in range(len(segments)):
            more = set().union(*(before[p] for p in before[k])) - before[k]
            before[k] |= more
            grew = grew or bool(more)
    return [(i, j) for j in range(len(segments)) for i in range(j)
            if segments[i]["device"] != segments[j]["device"] and i not in before[j] and j not in before[i]]


def run_until_overlap(cli, what, *args, attempts=5):
    """`run ... --json` until both devices were busy at the same time (a matter of timing on a
    shared machine, so a few tries); returns the last document, the shared time (ms) and the try."""
    for attempt in range(1, attempts + 1):
        doc = json.loads(run(cli, *args).stdout)
        try:
            return doc, check_devices_overlap(doc, what), attempt
        except SystemExit as failure:
            if attempt == attempts:
                raise
            print(f"{what}: try {attempt}: {failure}")
