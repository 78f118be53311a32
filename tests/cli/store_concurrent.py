#!/usr/bin/env python3
"""Several `profile` processes writing one database at the same time.

First, "storms": eight small batches (overlapping lists) start together on a database that does
not exist yet, five times. Then each round starts three batches at once on a new database
(sim:h100, --repeat 1, --warps): A, B with a job list that overlaps A's in part, and C with A's
list again; the last round adds new jobs to the finished database of the previous one. Checks: every process ends
with exit 0 and never reports a locked database; the database is intact and holds every job of
the union exactly once, no failed run; and no job ran twice: the runs the processes report add up
to the number of jobs in the union.

Usage: store_concurrent.py --cli PATH --work DIR [--rounds 4] [--storms 5]
"""
import argparse
import os
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import store_support as s  # noqa: E402

BATCH_A = list(range(1, 9))
BATCH_B = list(range(5, 13))
LISTS = {
    "A": (["zoo:squeezenet", "zoo:random?ops=12"], BATCH_A),
    "B": (["zoo:random?ops=12", "zoo:random?ops=20"], BATCH_B),
    "C": (["zoo:squeezenet", "zoo:random?ops=12"], BATCH_A),
}
# Added to the finished database of the previous round: overlaps it and each other.
MORE = {
    "D": (["zoo:squeezenet", "zoo:random?ops=20"], list(range(1, 13))),
    "E": (["zoo:random?ops=20", "zoo:random?ops=30"], list(range(9, 17))),
}


def command(cli, db, models, batches):
    return [cli, "profile", *models, "--schedulers", ",".join(s.SCHEDULERS),
            "--batch", ",".join(map(str, batches)), "--device", "sim:h100", "--repeat", "1", "--warps",
            "--db", db]


def run_together(cli, db, lists, already):
    """Starts one process per list at once; checks them and the database. `already`: the jobs
    in the database before. Returns the jobs in it after."""
    procs = {}
    for name, (models, batches) in lists.items():
        procs[name] = subprocess.Popen(command(cli, db, models, batches), stdout=subprocess.PIPE,
                                       stderr=subprocess.PIPE, text=True)
    t0 = time.monotonic()
    union = set(already)
    ran_total = 0
    for name, p in procs.items():
        out, err = p.communicate(timeout=120)
        models, batches = lists[name]
        jobs = s.expected_jobs(models, s.SCHEDULERS, batches)
        union |= jobs
        if p.returncode != 0 or "locked" in (out + err).lower():
            s.fail(f"process {name}: exit {p.returncode}\nstdout:\n{out[-3000:]}\nstderr:\n{err[-3000:]}")
        total, ran, skipped, failed = s.summary_counts(out)
        if total != len(jobs) or ran + skipped != total or failed:
            s.fail(f"process {name}: summary {total}/{ran}/{skipped}/{failed} for {len(jobs)} jobs\n{out[-2000:]}")
        ran_total += ran
        print(f"  {name}: {len(jobs)} jobs, {ran} run, {skipped} already in the database or run by another",
              flush=True)
    seconds = time.monotonic() - t0
    new = len(union) - len(already)
    s.check_database(db, union)
    s.check_compare(cli, db, len(union))
    if ran_total != new:
        s.fail(f"the processes ran {ran_total} jobs for {new} new ones: {ran_total - new} ran twice")
    print(f"  {len(union)} jobs in the database, each once; {ran_total} runs for {new} new jobs; "
          f"{seconds:.2f} s", flush=True)
    return union


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--storms", type=int, default=5)
    args = ap.parse_args()
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)

    def body():
        # Creation storm: many small batches start together on a file that does not exist yet.
        storm = {f"S{i}": (["zoo:squeezenet", "zoo:random?ops=12"], [1 + i % 3]) for i in range(8)}
        for r in range(1, args.storms + 1):
            db = os.path.join(args.work, f"storm-{r}.db")
            print(f"storm {r}: 8 batches start together on a new database", flush=True)
            run_together(args.cli, db, storm, set())
        db = None
        for r in range(1, args.rounds + 1):
            db = os.path.join(args.work, f"round-{r}.db")
            print(f"round {r}: A, B, C start together on a new database", flush=True)
            run_together(args.cli, db, LISTS, set())
        print("last round: D and E add jobs to the finished database together", flush=True)
        already = set()
        for models, batches in LISTS.values():
            already |= s.expected_jobs(models, s.SCHEDULERS, batches)
        run_together(args.cli, db, MORE, already)
        print("no lost run, no job twice, no locked database", flush=True)

    s.main_wrapper(body)


if __name__ == "__main__":
    main()
