"""What the CLI test scripts share: running opsched-cli and checking its exit status and messages."""
import subprocess
import sys


def run(cli, *args, expect=0):
    """Runs opsched-cli; a different exit status fails the test with the command's output."""
    p = subprocess.run([cli, *args], capture_output=True, text=True, timeout=600)
    if p.returncode != expect:
        sys.exit(f"FAIL: opsched-cli {' '.join(args)} exited {p.returncode}, expected {expect}\n"
                 f"stdout: {p.stdout[-2000:]}\nstderr: {p.stderr[-2000:]}")
    return p


def expect_error(cli, pattern, *args):
    """opsched-cli must exit 1 with a message containing `pattern` (case-insensitive)."""
    p = run(cli, *args, expect=1)
    if pattern.lower() not in (p.stderr + p.stdout).lower():
        sys.exit(f"FAIL: opsched-cli {' '.join(args)}: expected a message with '{pattern}', got:\n{p.stderr}")
