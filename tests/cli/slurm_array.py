#!/usr/bin/env python3
"""The Slurm job-array workflow of docs/slurm.md, for real, on this machine.

Starts munged, slurmctld and slurmd (one node with this machine's cores) from a throwaway
configuration in the work folder (its own munge key and socket, ports on localhost picked free,
state and spool folders there, no cgroups: proctrack/linuxproc, task/none), submits
packaging/slurm/profile-array.sh (4 tasks on sim:h100, each 2 models x 3 schedulers x 2 batches)
and, while it runs, cancels one task (scancel) once its database holds a run. When the array is
done it checks the other three tasks completed, resubmits the cancelled index and checks that it
resumed (skipping the runs it had) and completed, then runs `opsched-cli merge` and
`compare --db` and checks every job appears exactly once. The daemons are stopped at the end,
whatever happens.

Without root, Slurm or munge it prints "skipped: <why>" (registered with SKIP_REGULAR_EXPRESSION,
so it never counts as passed). With both installed and root, a daemon that does not come up is a
failure, printed with its log: that is exactly what a user of docs/slurm.md would hit.
packaging/install-deps.sh installs slurm-wlm and munge.

Usage: slurm_array.py --cli PATH --script packaging/slurm/profile-array.sh --work DIR
"""
import argparse
import os
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import store_support as s  # noqa: E402

SCHEDULERS = ["sequential", "ios", "nimble"]
BATCHES = [1, 8]
# Task 3 searches a wide random DAG (IOS takes seconds there): it is the one cancelled mid-run.
TASKS = [
    ["zoo:squeezenet", "zoo:googlenet"],
    ["zoo:inception_v3", "zoo:randwire?seed=1"],
    ["zoo:random?ops=12", "zoo:random?ops=30&width=4"],
    ["zoo:random?ops=20", "zoo:random?ops=200&width=8"],
]
CANCELLED = 3
DAEMONS = ("munged", "slurmctld", "slurmd", "sbatch", "squeue", "scancel", "scontrol", "sinfo")


class StartFailure(Exception):
    pass


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def tail(path, lines=20):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return ""


class Cluster:
    """munged + slurmctld + slurmd, each a child of this process, stopped by stop()."""

    def __init__(self, work):
        self.work = work
        self.procs = []
        self.env = dict(os.environ)
        self.conf = os.path.join(work, "slurm.conf")
        self.env["SLURM_CONF"] = self.conf
        # A socket path must fit in sockaddr_un (108 bytes): a short folder when the work folder is deep.
        munge_dir = os.path.join(work, "munge")
        if len(munge_dir) > 80:
            munge_dir = tempfile.mkdtemp(prefix="opsched-munge-")
        self.munge_dir = munge_dir
        os.makedirs(munge_dir, exist_ok=True)
        self.socket = os.path.join(munge_dir, "munge.socket")
        self.host = socket.gethostname().split(".")[0]

    def start(self, deadline=45):
        w = self.work
        for d in ("state", "spool", "log"):
            os.makedirs(os.path.join(w, d), exist_ok=True)
        key = os.path.join(self.munge_dir, "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        os.chmod(self.munge_dir, 0o755)
        self.spawn("munged", ["munged", "--foreground", "--force", f"--key-file={key}", f"--socket={self.socket}",
                              f"--pid-file={self.munge_dir}/munged.pid", f"--log-file={w}/log/munged.log",
                              f"--seed-file={self.munge_dir}/munged.seed"])
        self.wait_for(lambda: subprocess.run(["munge", "-S", self.socket, "-n"], capture_output=True).returncode == 0,
                      deadline, "munged", f"{w}/log/munged.log")
        cpus = os.cpu_count() or 1
        ctld_port, node_port = free_port(), free_port()
        with open(self.conf, "w") as f:
            f.write(f"""# Throwaway single-node cluster for tests/cli/slurm_array.py
ClusterName=opschedtest
SlurmctldHost={self.host}(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={node_port}
AuthType=auth/munge
AuthInfo=socket={self.socket}
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation={w}/state
SlurmdSpoolDir={w}/spool/%n
SlurmctldPidFile={w}/slurmctld.pid
SlurmdPidFile={w}/slurmd.pid
SlurmctldLogFile={w}/log/slurmctld.log
SlurmdLogFile={w}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SlurmctldTimeout=60
SlurmdTimeout=120
InactiveLimit=0
KillWait=10
MinJobAge=600
NodeName=opsched-node NodeAddr=127.0.0.1 NodeHostname={self.host} CPUs={cpus} State=UNKNOWN
PartitionName=opsched Nodes=opsched-node Default=YES MaxTime=INFINITE State=UP
""")
        self.spawn("slurmctld", ["slurmctld", "-D", "-i", "-f", self.conf])
        self.wait_for(lambda: self.run(["scontrol", "ping"]).stdout.find("UP") >= 0, deadline, "slurmctld",
                      f"{w}/log/slurmctld.log")
        self.spawn("slurmd", ["slurmd", "-D", "-N", "opsched-node", "-f", self.conf])
        self.wait_for(lambda: self.run(["sinfo", "-h", "-n", "opsched-node", "-o", "%T"]).stdout.strip()
                      in ("idle", "mixed", "allocated"), deadline, "slurmd", f"{w}/log/slurmd.log")
        return cpus

    def spawn(self, name, argv):
        out = open(os.path.join(self.work, "log", f"{name}.out"), "w")
        proc = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT, env=self.env, start_new_session=True)
        self.procs.append((name, proc))

    def wait_for(self, ready, seconds, name, log):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for n, p in self.procs:
                if p.poll() is not None:
                    out = os.path.join(self.work, "log", f"{n}.out")
                    raise StartFailure(f"{n} exited with {p.returncode} on start:\n{tail(out)}{tail(log)}")
            try:
                if ready():
                    return
            except (OSError, subprocess.SubprocessError):
                pass
            time.sleep(0.3)
        out = os.path.join(self.work, "log", f"{name}.out")
        raise StartFailure(f"{name} did not come up within {seconds} s:\n{tail(out)}{tail(log)}")

    def run(self, argv, **kw):
        return subprocess.run(argv, capture_output=True, text=True, env=self.env, timeout=30, **kw)

    def stop(self):
        # Jobs first, then the daemons (scontrol shutdown stops slurmctld and slurmd), then whatever
        # of ours is left, by pid.
        try:
            self.run(["scancel", "--user=root"])
            self.run(["scontrol", "shutdown"])
        except (OSError, subprocess.SubprocessError):
            pass
        end = time.monotonic() + 15
        for name, p in reversed(self.procs):
            if name == "munged":
                p.send_signal(signal.SIGTERM)
            while p.poll() is None and time.monotonic() < end:
                time.sleep(0.1)
            if p.poll() is None:
                p.kill()
                p.wait()
        if self.munge_dir != os.path.join(self.work, "munge"):
            shutil.rmtree(self.munge_dir, ignore_errors=True)


def job_states(cluster, job):
    """{array index: state} of the job's tasks still known to slurmctld."""
    out = cluster.run(["squeue", "-h", "-r", "-j", str(job), "-o", "%K %T"]).stdout
    states = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0].isdigit():
            states[int(parts[0])] = parts[1]
    return states


def wait_job(cluster, job, seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if not job_states(cluster, job):
            return
        time.sleep(0.3)
    s.fail(f"job {job} still queued or running after {seconds} s: {job_states(cluster, job)}\n"
           f"{tail(os.path.join(cluster.work, 'log', 'slurmctld.log'))}")


def ok_runs(db):
    if not os.path.exists(db):
        return 0
    try:
        con = sqlite3.connect(db, timeout=5)
        try:
            return con.execute("SELECT count(*) FROM runs WHERE status = 'ok'").fetchone()[0]
        finally:
            con.close()
    except sqlite3.Error:
        return 0  # not created yet


def submit(cluster, script, work, env_extra, array=None):
    argv = ["sbatch", "--parsable", f"--chdir={work}", f"--output={work}/logs/task-%A_%a.out"]
    if array is not None:
        argv.append(f"--array={array}")
    argv.append(script)
    env = dict(cluster.env, **env_extra)
    proc = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=30)
    if proc.returncode != 0:
        s.fail(f"sbatch: exit {proc.returncode}: {proc.stderr}")
    return int(proc.stdout.strip().split(";")[0])


def read(path):
    with open(path, errors="replace") as f:
        return f.read()


def body(args, cluster):
    work = args.work
    os.makedirs(os.path.join(work, "logs"))
    cpus = cluster.start()
    print(f"munged, slurmctld and slurmd up: one node, {cpus} CPUs, host {cluster.host}", flush=True)
    results = os.path.join(work, "results")
    env = {
        "OPSCHED_CLI": args.cli,
        "OPSCHED_RESULTS": results,
        "OPSCHED_DEVICE": "sim:h100",
        "OPSCHED_TASKS": ";".join(" ".join(models) for models in TASKS),
        "OPSCHED_SCHEDULERS": ",".join(SCHEDULERS),
        "OPSCHED_BATCHES": ",".join(map(str, BATCHES)),
    }
    t0 = time.monotonic()
    job = submit(cluster, args.script, work, env)
    print(f"submitted job array {job} (4 tasks, 2 models x 3 schedulers x 2 batches each)", flush=True)

    # Cancel task 3 once it is running and has stored a run.
    cancelled_db = os.path.join(results, f"task-{CANCELLED}.db")
    end = time.monotonic() + 60
    while ok_runs(cancelled_db) < 1:
        if time.monotonic() > end:
            s.fail(f"task {CANCELLED} stored no run within 60 s: {job_states(cluster, job)}\n"
                   f"{tail(os.path.join(work, 'logs', f'task-{job}_{CANCELLED}.out'))}")
        time.sleep(0.1)
    cancel = cluster.run(["scancel", f"{job}_{CANCELLED}"])
    if cancel.returncode != 0:
        s.fail(f"scancel {job}_{CANCELLED}: {cancel.stderr}")
    print(f"scancel {job}_{CANCELLED} with {ok_runs(cancelled_db)} runs in its database", flush=True)
    wait_job(cluster, job, 90)
    print(f"array done in {time.monotonic() - t0:.1f} s", flush=True)

    per_task = len(SCHEDULERS) * len(BATCHES) * 2
    for i in range(len(TASKS)):
        if i == CANCELLED:
            continue
        log = read(os.path.join(work, "logs", f"task-{job}_{i}.out"))
        if f"{per_task} jobs: {per_task} run, 0 already in the database, 0 failed" not in log:
            s.fail(f"task {i} did not complete:\n{log[-3000:]}")
    before = ok_runs(cancelled_db)
    log = read(os.path.join(work, "logs", f"task-{job}_{CANCELLED}.out"))
    if before >= per_task:
        s.fail(f"task {CANCELLED} finished before scancel reached it ({before} runs); nothing to resume:\n{log[-2000:]}")
    if "stopping after the current job" not in log:
        s.fail(f"task {CANCELLED} shows no SIGTERM from scancel:\n{log[-2000:]}")
    s.check_database(cancelled_db, s.expected_jobs(TASKS[CANCELLED], SCHEDULERS, BATCHES), complete=False)
    print(f"task {CANCELLED} cancelled mid-run with {before} of {per_task} jobs stored, whole", flush=True)

    # Resubmit the cancelled index: it resumes.
    again = submit(cluster, args.script, work, env, array=str(CANCELLED))
    wait_job(cluster, again, 90)
    log = read(os.path.join(work, "logs", f"task-{again}_{CANCELLED}.out"))
    expect = f"{per_task} jobs: {per_task - before} run, {before} already in the database, 0 failed"
    if expect not in log:
        s.fail(f"resubmitted task {CANCELLED}: expected '{expect}':\n{log[-3000:]}")
    print(f"resubmitted as job {again}: {expect}", flush=True)

    # Merge and compare: every job once.
    merged = os.path.join(results, "all.db")
    dbs = [os.path.join(results, f"task-{i}.db") for i in range(len(TASKS))]
    merge = s.run_cli(args.cli, "merge", merged, *dbs, check_exit=0)
    all_jobs = set()
    for models in TASKS:
        all_jobs |= s.expected_jobs(models, SCHEDULERS, BATCHES)
    s.check_database(merged, all_jobs)
    s.check_compare(args.cli, merged, len(all_jobs))
    print(merge.stdout.strip().splitlines()[-1], flush=True)
    print(f"compare --db: {len(all_jobs)} results, every job exactly once; {time.monotonic() - t0:.1f} s in all",
          flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--script", required=True)
    ap.add_argument("--work", required=True)
    args = ap.parse_args()
    args.cli = os.path.abspath(args.cli)
    args.script = os.path.abspath(args.script)
    missing = [d for d in DAEMONS + ("munge",) if not shutil.which(d)]
    if missing:
        print(f"skipped: Slurm or munge not installed (no {', '.join(missing)}; "
              f"packaging/install-deps.sh installs slurm-wlm and munge)", flush=True)
        return
    if os.geteuid() != 0:
        print("skipped: starting slurmd (and a munged of its own) needs root", flush=True)
        return
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    cluster = Cluster(args.work)
    try:
        s.main_wrapper(lambda: body(args, cluster))
    except StartFailure as e:
        print(f"FAIL: Slurm and munge are installed and this runs as root, but a daemon did not start: {e}",
              flush=True)
        sys.exit(1)
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
