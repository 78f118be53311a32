"""Shared by the results-database safety tests (store_kill9.py, store_concurrent.py,
store_disk_full.py, slurm_array.py): running opsched-cli, and checking a database the way a reader
(`compare --db`, the GUI) sees it. Python standard library only."""
import json
import os
import re
import sqlite3
import subprocess
import sys

SCHEDULERS = ["sequential", "greedy", "ios-merge", "ios-parallel", "ios", "nimble", "opara"]


class CheckFailed(Exception):
    pass


def fail(message):
    raise CheckFailed(message)


def run_cli(cli, *args, timeout=120, check_exit=None, **kwargs):
    """Runs opsched-cli; returns the CompletedProcess. check_exit: the exit code it must end with."""
    proc = subprocess.run([cli, *args], capture_output=True, text=True, timeout=timeout, **kwargs)
    if check_exit is not None and proc.returncode != check_exit:
        fail(f"opsched-cli {' '.join(args)}: exit {proc.returncode}, expected {check_exit}\n"
             f"stdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-3000:]}")
    return proc


def expected_jobs(models, schedulers, batches):
    """The (model ref, scheduler, batch) triples a profile command runs."""
    return {(m, s, b) for m in models for b in batches for s in schedulers}


def check_database(path, jobs=None, complete=True, warps=True):
    """Checks the database at `path`:
    - PRAGMA integrity_check and foreign_key_check are clean;
    - every run is whole: an ok run has its schedule, its latencies row, as many latency samples as
      repeats, its kernels (and warp samples when `warps`); no rows of any run table point at a run
      that is not there;
    - no job has two successful runs (by job_key, and by model, scheduler and batch);
    - with `jobs` (a set of (model ref, scheduler, batch)): the successful runs are those jobs, all
      of them when `complete`, a subset otherwise; no failed runs.
    Returns the number of successful runs, or None when there is no database yet (no file, an
    empty one, or one killed before its schema was committed)."""
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        if jobs is not None and complete and jobs:
            fail(f"{path}: no database")
        return None
    db = sqlite3.connect(path, timeout=60)
    try:
        integrity = [r[0] for r in db.execute("PRAGMA integrity_check")]
        if integrity != ["ok"]:
            fail(f"{path}: integrity_check: {integrity[:10]}")
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_schema WHERE type = 'table'")}
        if "runs" not in tables:
            # A database killed before its schema was committed holds no tables at all.
            if tables:
                fail(f"{path}: tables without runs: {sorted(tables)}")
            if jobs is not None and complete and jobs:
                fail(f"{path}: no runs table")
            return None
        fk = list(db.execute("PRAGMA foreign_key_check"))
        if fk:
            fail(f"{path}: foreign_key_check: {fk[:10]}")
        for table in ("latency_samples", "latencies", "stage_latencies", "kernels", "warp_samples"):
            orphans = db.execute(
                f"SELECT count(*) FROM {table} WHERE run_id NOT IN (SELECT id FROM runs)").fetchone()[0]
            if orphans:
                fail(f"{path}: {orphans} rows of {table} belong to no run")
        rows = db.execute("""
SELECT r.id, r.job_key, r.status, r.error, r.repeats, r.warps, r.average_active_warps, r.batch,
       m.ref, s.scheduler, s.id,
       (SELECT repeats FROM latencies l WHERE l.run_id = r.id),
       (SELECT count(*) FROM latency_samples x WHERE x.run_id = r.id),
       (SELECT count(*) FROM kernels k WHERE k.run_id = r.id),
       (SELECT count(*) FROM warp_samples w WHERE w.run_id = r.id)
FROM runs r JOIN models m ON m.id = r.model_id LEFT JOIN schedules s ON s.id = r.schedule_id
ORDER BY r.id""").fetchall()
    finally:
        db.close()
    keys, triples = {}, {}
    ok = 0
    for (rid, key, status, error, repeats, run_warps, avg_warps, batch, ref, scheduler, schedule,
         lat_repeats, samples, kernels, warp_samples) in rows:
        if status != "ok":
            if jobs is not None:
                fail(f"{path}: run {rid} ({ref} {scheduler} batch {batch}) failed: {error}")
            continue
        ok += 1
        where = f"{path}: run {rid} ({ref} {scheduler} batch {batch})"
        if schedule is None:
            fail(f"{where} has no schedule")
        if lat_repeats is None or lat_repeats != repeats or samples != repeats or repeats < 1:
            fail(f"{where} is not whole: {repeats} repeats, latencies row {lat_repeats}, {samples} samples")
        if kernels == 0:
            fail(f"{where} has no kernels")
        if warps and (run_warps != 1 or warp_samples == 0 or avg_warps is None):
            fail(f"{where} has no active warps ({warp_samples} samples)")
        if key in keys:
            fail(f"{where}: job run twice (runs {keys[key]} and {rid} share the job key)")
        keys[key] = rid
        triple = (ref, scheduler, batch)
        if triple in triples:
            fail(f"{where}: job run twice (runs {triples[triple]} and {rid})")
        triples[triple] = rid
    if jobs is not None:
        extra = set(triples) - jobs
        if extra:
            fail(f"{path}: runs of jobs nobody asked for: {sorted(extra)[:5]}")
        missing = jobs - set(triples)
        if complete and missing:
            fail(f"{path}: {len(missing)} jobs missing, e.g. {sorted(missing)[:5]}")
    return ok


def check_compare(cli, path, expected_runs):
    """`compare --db --json` reads the database and lists `expected_runs` results (one per
    model, batch, device and scheduler), each with a latency. A database without runs is refused
    with exit 1, saying so."""
    if expected_runs == 0:
        proc = run_cli(cli, "compare", "--db", path, "--json", check_exit=1)
        if "holds no successful runs" not in proc.stderr:
            fail(f"compare --db {path} (no runs yet): {proc.stderr}")
        return None
    proc = run_cli(cli, "compare", "--db", path, "--json", check_exit=0)
    doc = json.loads(proc.stdout)
    results = [r for g in doc["groups"] for r in g["results"]]
    for r in results:
        if r["latency_ms"] is None or r["latency_ms"] <= 0:
            fail(f"compare --db {path}: a result without latency: {r}")
    if expected_runs is not None and len(results) != expected_runs:
        fail(f"compare --db {path}: {len(results)} results, expected {expected_runs}")
    return doc


def summary_counts(stdout):
    """(total, run, skipped, failed) from profile's summary line."""
    m = re.search(r"^(\d+) jobs: (\d+) run, (\d+) already in the database, (\d+) failed", stdout, re.M)
    if not m:
        fail(f"no summary line in:\n{stdout[-2000:]}")
    return tuple(int(x) for x in m.groups())


def main_wrapper(body):
    """Runs body(); prints the failure and exits 1 on CheckFailed, exits 0 otherwise."""
    try:
        body()
    except CheckFailed as e:
        print(f"FAILED: {e}", flush=True)
        sys.exit(1)
