#!/usr/bin/env python3
"""kill -9 at random moments of a profiling batch, then resume.

A batch (2 small zoo models x 7 schedulers x several batch sizes on sim:h100, --repeat 1, --warps)
is started again and again into one database and killed with SIGKILL after a random delay drawn
from a seeded RNG (the seed is printed; --seed replays a run). After every kill the database is
checked as a reader sees it: integrity_check ok, every run whole (schedule, latencies, samples,
kernels, warps), no job twice, and `compare --db` reads it. When a started batch finishes before
its kill, the finished database is checked complete and a new round starts on a fresh file, so
kills also land while a database is being created. After KILLS kills, the batch is resumed to the
end: every job exactly once, no failed run.

Usage: store_kill9.py --cli PATH --work DIR [--kills 50] [--seed N]
"""
import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import store_support as s  # noqa: E402

MODELS = ["zoo:squeezenet", "zoo:random?ops=12"]
BATCHES = list(range(1, 17))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--kills", type=int, default=50)
    ap.add_argument("--seed", type=int, default=None)
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 31)
    print(f"seed {seed} (replay with --seed {seed})", flush=True)
    rng = random.Random(seed)
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    jobs = s.expected_jobs(MODELS, s.SCHEDULERS, BATCHES)

    def command(db):
        return [args.cli, "profile", *MODELS, "--schedulers", ",".join(s.SCHEDULERS),
                "--batch", ",".join(map(str, BATCHES)), "--device", "sim:h100", "--repeat", "1", "--warps",
                "--db", db]

    # How long the whole batch takes here, uninterrupted: kill delays are drawn up to that.
    t0 = time.monotonic()
    calibrate = os.path.join(args.work, "calibrate.db")
    proc = subprocess.run(command(calibrate), capture_output=True, text=True, timeout=120)
    full = time.monotonic() - t0
    if proc.returncode != 0:
        s.fail(f"uninterrupted batch: exit {proc.returncode}\n{proc.stdout[-2000:]}\n{proc.stderr[-2000:]}")
    s.check_database(calibrate, jobs)
    print(f"{len(jobs)} jobs; uninterrupted batch {full:.3f} s", flush=True)

    def body():
        kills = 0
        attempts = 0
        rounds = 1
        db = os.path.join(args.work, f"round-{rounds}.db")
        deadline = time.monotonic() + 90
        while kills < args.kills:
            if time.monotonic() > deadline:
                s.fail(f"only {kills} kills landed in the time allowed")
            attempts += 1
            delay = rng.uniform(0, full)
            child = subprocess.Popen(command(db), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            time.sleep(delay)
            child.send_signal(signal.SIGKILL)
            out, err = child.communicate(timeout=60)
            if child.returncode == -signal.SIGKILL:
                kills += 1
                done = s.check_database(db, jobs, complete=False)
                if done is None:
                    state = "no database yet"
                else:
                    s.check_compare(args.cli, db, done)
                    state = f"{done} of {len(jobs)} jobs in the database, whole"
                print(f"kill {kills}: after {delay * 1000:.1f} ms, round {rounds}, {state}", flush=True)
                continue
            if child.returncode != 0:
                s.fail(f"attempt {attempts}: exit {child.returncode} (not killed)\nstdout:\n{out[-2000:]}\n"
                       f"stderr:\n{err[-2000:]}")
            # Finished before its kill: the round is complete; start another on a fresh file.
            s.check_database(db, jobs)
            s.check_compare(args.cli, db, len(jobs))
            print(f"round {rounds} complete after {delay * 1000:.1f} ms (no kill landed)", flush=True)
            rounds += 1
            db = os.path.join(args.work, f"round-{rounds}.db")
        # Resume the last round to the end.
        proc = s.run_cli(args.cli, *command(db)[1:], check_exit=0)
        total, ran, skipped, failed = s.summary_counts(proc.stdout)
        s.check_database(db, jobs)
        s.check_compare(args.cli, db, len(jobs))
        print(f"resumed round {rounds}: {ran} run, {skipped} already in the database, {failed} failed", flush=True)
        print(f"{kills} kills in {attempts} attempts over {rounds} rounds; every job exactly once, "
              f"integrity ok", flush=True)

    s.main_wrapper(body)


if __name__ == "__main__":
    main()
