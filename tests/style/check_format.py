#!/usr/bin/env python3
"""Checks that opsched's C++ sources are formatted as .clang-format says.

Runs clang-format (version 14, Debian 12's; other versions format differently) in dry-run mode on
every C++ source under the given root's core/, profiler/, engine/, views/, app/ and tests/ and prints the
first difference of each file that differs. Exits 1 on any difference, 77 (skipped) when no
clang-format 14 is installed.

Usage: check_format.py SOURCE_ROOT
Fix: clang-format -i FILE...  (packaging/install-deps.sh installs clang-format)
"""
import os
import re
import shutil
import subprocess
import sys

FOLDERS = ("core", "profiler", "engine", "views", "app", "tests")
SUFFIXES = (".h", ".hpp", ".cpp", ".cu", ".cuh")
SKIPPED = 77


def find_clang_format():
    for name in ("clang-format-14", "clang-format"):
        path = shutil.which(name)
        if not path:
            continue
        version = subprocess.run([path, "--version"], capture_output=True, text=True).stdout
        m = re.search(r"version (\d+)", version)
        if m and m.group(1) == "14":
            return path
    return None


def sources(root):
    for folder in FOLDERS:
        top = os.path.join(root, folder)
        for base, dirs, files in os.walk(top):
            dirs[:] = sorted(d for d in dirs if not d.startswith(("build", ".")) and d not in ("format_fixture", "sizes_fixture"))
            for name in sorted(files):
                if name.endswith(SUFFIXES):
                    yield os.path.join(base, name)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    tool = find_clang_format()
    if tool is None:
        print("skipped: clang-format 14 not found (packaging/install-deps.sh installs it)")
        return SKIPPED
    style = "--style=file:" + os.path.join(root, ".clang-format") if os.path.exists(
        os.path.join(root, ".clang-format")) else "--style=file"
    files = list(sources(root))
    first_difference = {}  # file -> its first line that differs
    for i in range(0, len(files), 64):
        run = subprocess.run([tool, "--dry-run", style, *files[i:i + 64]], capture_output=True, text=True)
        for line in run.stderr.splitlines():
            m = re.match(r"(.+?):(\d+):\d+: (warning|error): code should be clang-formatted", line)
            if m:
                first_difference.setdefault(m.group(1), m.group(2))
    differing = list(first_difference.items())
    for path, line in differing:
        print(f"{os.path.relpath(path, root)}:{line}: not formatted as .clang-format says")
    if differing:
        print(f"{len(differing)} of {len(files)} files differ; fix with: clang-format -i FILE...")
        return 1
    print(f"{len(files)} files formatted as .clang-format says")
    return 0


if __name__ == "__main__":
    sys.exit(main())
