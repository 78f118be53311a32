#!/usr/bin/env python3
"""Disk full while a batch writes its database.

--mode fsize: the batch runs under a file-size limit (RLIMIT_FSIZE, as `ulimit -f` sets it) a little
above the database's size, so a write fails part way through the batch.
--mode tmpfs: the database lies on a small tmpfs that a filler file has almost filled (needs root
and `unshare`: the test re-runs itself in a private mount namespace, so the mount goes with it;
without them it prints "skipped: ..." and the test is not counted as passed).

Either way: profile must stop with exit 1 and a message that names the database and says the disk
(or the file-size limit) is full and that the batch resumes, not die of a signal or report a
generic I/O error; the database must pass integrity_check with whole runs only; and, once there is
room again, running the same command must finish the batch: every job exactly once.

Usage: store_disk_full.py --cli PATH --work DIR --mode fsize|tmpfs
"""
import argparse
import os
import resource
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import store_support as s  # noqa: E402

MODELS = ["zoo:squeezenet", "zoo:random?ops=40"]
BATCHES = list(range(1, 9))


def command(cli, db):
    return [cli, "profile", *MODELS, "--schedulers", ",".join(s.SCHEDULERS),
            "--batch", ",".join(map(str, BATCHES)), "--device", "sim:h100", "--repeat", "3", "--warps",
            "--db", db]


def check_full_error(proc, db):
    if proc.returncode < 0:
        s.fail(f"profile died of signal {-proc.returncode} instead of reporting a full disk\n{proc.stderr[-2000:]}")
    if proc.returncode != 1:
        s.fail(f"profile with a full disk: exit {proc.returncode}, expected 1\nstdout:\n{proc.stdout[-2000:]}\n"
               f"stderr:\n{proc.stderr[-2000:]}")
    err = proc.stderr
    if db not in err or not ("disk full" in err or "file-size limit" in err) or "resume" not in err:
        s.fail(f"unclear disk-full message (must name the database, say it is full and how to resume):\n{err}")
    print(f"  message: {err.strip().splitlines()[-1]}", flush=True)


def resume_and_check(cli, db, jobs):
    before = s.check_database(db, jobs, complete=False) or 0
    print(f"  after the failure: integrity ok, {before} whole runs", flush=True)
    proc = s.run_cli(cli, *command(cli, db)[1:], check_exit=0)
    total, ran, skipped, failed = s.summary_counts(proc.stdout)
    if skipped != before or ran != len(jobs) - before:
        s.fail(f"resume: {ran} run, {skipped} skipped; expected {len(jobs) - before} and {before}")
    s.check_database(db, jobs)
    s.check_compare(cli, db, len(jobs))
    print(f"  resumed: {ran} run, {skipped} already in the database; every job exactly once", flush=True)


def mode_fsize(cli, work, jobs):
    db = os.path.join(work, "fsize.db")
    # A first job makes the database; the rest must not fit under the limit.
    s.run_cli(cli, "profile", MODELS[0], "--schedulers", "sequential", "--batch", "1", "--device", "sim:h100",
              "--repeat", "3", "--warps", "--db", db, check_exit=0)
    size = os.path.getsize(db)
    limit = size + 256 * 1024

    def limited():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    print(f"database {size} bytes; file-size limit {limit} bytes", flush=True)
    proc = subprocess.run(command(cli, db), capture_output=True, text=True, timeout=120, preexec_fn=limited)
    check_full_error(proc, db)
    resume_and_check(cli, db, jobs)


def mode_tmpfs(cli, work, jobs):
    mnt = os.path.join(work, "small-fs")
    os.makedirs(mnt, exist_ok=True)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "opsched-test", mnt],
                      capture_output=True).returncode != 0:
        print("skipped: cannot mount a tmpfs here", flush=True)
        return
    try:
        db = os.path.join(mnt, "results.db")
        s.run_cli(cli, "profile", MODELS[0], "--schedulers", "sequential", "--batch", "1", "--device",
                  "sim:h100", "--repeat", "3", "--warps", "--db", db, check_exit=0)
        # Fill the file system but for 200 KiB.
        filler = os.path.join(mnt, "filler")
        st = os.statvfs(mnt)
        free = st.f_bavail * st.f_frsize
        with open(filler, "wb") as f:
            f.write(b"\0" * max(0, free - 200 * 1024))
        st = os.statvfs(mnt)
        print(f"tmpfs of 16 MiB, {st.f_bavail * st.f_frsize} bytes left", flush=True)
        proc = subprocess.run(command(cli, db), capture_output=True, text=True, timeout=120)
        check_full_error(proc, db)
        os.remove(filler)
        resume_and_check(cli, db, jobs)
    finally:
        subprocess.run(["umount", "-l", mnt], capture_output=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("--mode", choices=["fsize", "tmpfs"], required=True)
    ap.add_argument("--in-namespace", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.mode == "tmpfs" and not args.in_namespace:
        # A private mount namespace: the tmpfs disappears with this process, whatever happens.
        if os.geteuid() != 0:
            print("skipped: mounting a small file system needs root", flush=True)
            return
        unshare = shutil.which("unshare")
        if not unshare:
            print("skipped: no unshare (util-linux) to make a private mount namespace", flush=True)
            return
        probe = subprocess.run([unshare, "--mount", "--propagation", "private", "true"], capture_output=True)
        if probe.returncode != 0:
            print(f"skipped: cannot make a private mount namespace: {probe.stderr.decode().strip()}", flush=True)
            return
        os.execv(unshare, [unshare, "--mount", "--propagation", "private", sys.executable, "-B",
                           os.path.abspath(__file__), *sys.argv[1:], "--in-namespace"])
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    jobs = s.expected_jobs(MODELS, s.SCHEDULERS, BATCHES)
    s.main_wrapper(lambda: (mode_fsize if args.mode == "fsize" else mode_tmpfs)(args.cli, args.work, jobs))


if __name__ == "__main__":
    main()
