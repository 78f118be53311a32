#!/usr/bin/env python3
"""Checks the include arrows between opsched's source folders.

core/'s folders form layers: a file may include its own folder and folders of lower layers only,
so every arrow between two folders points one way (no cycle). core/, profiler/ and engine/ include
no Qt; profiler/ builds on core/ only; engine/ on profiler/ and core/ (app -> views -> engine ->
profiler -> core): neither includes views/ or app/ headers, and core/ and profiler/ include no
engine/ header. Inside core/map/ the sub-folders form layers too (problem < solvers < bounds < split <
registry < files, bridge), and no two of its components (a header with its source) include each other,
directly or round a loop. app/ and views/ (the CLI and the window) reach core/ and profiler/ through
engine/ only: they may include the vocabulary types (util/, graph/, plan/, a few records) and nothing
of the machinery (executors, schedulers, mappers, simulator, importer, profiling sessions, the
results database). Prints each offending include as file:line and exits 1.

Usage: check_layering.py SOURCE_ROOT
"""
import os
import re
import sys

# Lower layers first. A folder may include folders of strictly lower rank (and its own).
CORE_LAYERS = {
    "util": 0,
    "graph": 1,
    "plan": 2, "import": 2, "zoo": 2, "report": 2,
    "sim": 3, "model": 3,
    "schedule": 4,
    "exec": 5, "map": 5,
}
# core/map/'s sub-folders, lower layers first: the problems, the solvers, the bounds built on the exact
# search, MILP-SPLIT built on both, the registry over all mappers, and the files and the plan bridge.
MAP_LAYERS = {"problem": 0, "solvers": 1, "bounds": 2, "split": 3, "registry": 4, "files": 5, "bridge": 5}
# What the front ends (app/, views/) may include from core/ and profiler/ directly: types, not machinery.
CORE_AND_PROFILER_FOLDERS = set(CORE_LAYERS) | {"analysis", "cupti", "export", "session", "store"}
FRONT_END_VOCABULARY_FOLDERS = ("util/", "graph/", "plan/")
FRONT_END_VOCABULARY_FILES = {"store/records.h", "map/problem/map_result.h", "map/problem/mapping_problem.h"}
# Folders whose components (NAME.h with NAME.cpp) must not form an include cycle.
CYCLE_FREE = ("map",)
# What views/ and app/ headers are included as: "schedules/schedule_panel.h", "commands.h" (app/cli's).
UPPER_FOLDERS = ("views", "app", "cli", "gui", "common", "dag", "mapping", "profile", "runs", "schedules",
                 "timeline", "window")
SOURCE_SUFFIXES = (".h", ".hpp", ".cpp", ".cu", ".cuh")
INCLUDE = re.compile(r'^\s*#\s*include\s+([<"])([^>"]+)[>"]')


def sources(top):
    for root, _, files in os.walk(top):
        for name in sorted(files):
            if name.endswith(SOURCE_SUFFIXES):
                yield os.path.join(root, name)


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                yield number, m.group(1), m.group(2)


def is_qt(delim, target):
    return delim == "<" and re.match(r"Q[A-Z]\w*(/|$)", target) is not None


def map_layers(core):
    problems = []
    top = os.path.join(core, "map")
    for path in sources(top) if os.path.isdir(top) else []:
        parts = os.path.relpath(path, top).split(os.sep)
        if len(parts) < 2:
            continue
        folder = parts[0]
        for number, delim, target in includes(path):
            bits = target.split("/")
            if delim != '"' or len(bits) < 3 or bits[0] != "map" or bits[1] == folder:
                continue
            where = f"core/map/{'/'.join(parts)}:{number}"
            if folder not in MAP_LAYERS or bits[1] not in MAP_LAYERS:
                problems.append(f"{where}: core/map/{folder if folder not in MAP_LAYERS else bits[1]}/ has no layer "
                                f"in check_layering.py")
            elif MAP_LAYERS[bits[1]] >= MAP_LAYERS[folder]:
                problems.append(f"{where}: map/{folder}/ (layer {MAP_LAYERS[folder]}) includes \"{target}\" from "
                                f"map/{bits[1]}/ (layer {MAP_LAYERS[bits[1]]}): arrows between map's folders point down only")
    return problems


def component_cycles(core, folder):
    """Include cycles between components (NAME.h and NAME.cpp as one) under core/FOLDER."""
    top = os.path.join(core, folder)
    if not os.path.isdir(top):
        return []
    edges = {}
    for path in sources(top):
        name = os.path.splitext(os.path.relpath(path, core))[0]
        edges.setdefault(name, set())
    for path in sources(top):
        name = os.path.splitext(os.path.relpath(path, core))[0]
        for _, delim, target in includes(path):
            dest = os.path.splitext(target)[0]
            if delim == '"' and dest in edges and dest != name:
                edges[name].add(dest)
    problems, state = [], {}

    def visit(node, trail):
        state[node] = 1
        for dest in sorted(edges[node]):
            if state.get(dest) == 1:
                loop = trail[trail.index(dest):] + [dest]
                problems.append(f"core/{loop[0]}: include cycle between components: {' -> '.join(loop)}")
            elif dest not in state:
                visit(dest, trail + [dest])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [node])
    return problems


def front_ends(root):
    """Includes of core/profiler machinery from app/ and views/: every one is refused."""
    problems = []
    for top in ("app", "views"):
        folder = os.path.join(root, top)
        for path in sources(folder) if os.path.isdir(folder) else []:
            rel = os.path.relpath(path, root)
            for number, delim, target in includes(path):
                if delim != '"' or target.split("/")[0] not in CORE_AND_PROFILER_FOLDERS:
                    continue
                if target.startswith(FRONT_END_VOCABULARY_FOLDERS) or target in FRONT_END_VOCABULARY_FILES:
                    continue
                problems.append(f"{rel}:{number}: {top}/ reaches \"{target}\" past engine/: call the engine for it "
                                f"(front ends include core/ and profiler/ types only)")
    return problems


def check(root):
    problems = []
    core = os.path.join(root, "core")
    for path in sources(core):
        rel = os.path.relpath(path, root)
        parts = os.path.relpath(path, core).split(os.sep)
        folder = parts[0] if len(parts) > 1 else None
        for number, delim, target in includes(path):
            where = f"{rel}:{number}"
            if is_qt(delim, target):
                problems.append(f"{where}: core/ links no Qt, but includes <{target}>")
                continue
            if delim != '"' or "/" not in target:
                continue
            dest = target.split("/")[0]
            if dest == "engine":
                problems.append(f"{where}: core/ is below engine/, but includes \"{target}\"")
                continue
            if dest not in CORE_LAYERS or folder is None or dest == folder:
                continue
            if folder not in CORE_LAYERS:
                problems.append(f"{where}: core/{folder}/ has no layer in check_layering.py")
                continue
            if CORE_LAYERS[dest] >= CORE_LAYERS[folder]:
                problems.append(f"{where}: {folder}/ (layer {CORE_LAYERS[folder]}) includes \"{target}\" "
                                f"from {dest}/ (layer {CORE_LAYERS[dest]}): arrows between core's folders point down only")
    problems += map_layers(core)
    for folder in CYCLE_FREE:
        problems += component_cycles(core, folder)
    profiler = os.path.join(root, "profiler")
    if os.path.isdir(profiler):
        for path in sources(profiler):
            rel = os.path.relpath(path, root)
            for number, delim, target in includes(path):
                if is_qt(delim, target):
                    problems.append(f"{rel}:{number}: profiler/ links no Qt, but includes <{target}>")
                elif delim == '"' and target.split("/")[0] in ("views", "app", "engine"):
                    problems.append(f"{rel}:{number}: profiler/ builds on core/ only, but includes \"{target}\"")
    problems += front_ends(root)
    engine = os.path.join(root, "engine")
    if os.path.isdir(engine):
        app_cli = os.path.join(root, "app", "cli")
        cli_headers = set(os.listdir(app_cli)) if os.path.isdir(app_cli) else set()
        for path in sources(engine):
            rel = os.path.relpath(path, root)
            for number, delim, target in includes(path):
                if is_qt(delim, target):
                    problems.append(f"{rel}:{number}: engine/ links no Qt, but includes <{target}>")
                elif delim == '"' and (target.split("/")[0] in UPPER_FOLDERS
                                       or ("/" not in target and target in cli_headers)):
                    problems.append(f"{rel}:{number}: engine/ builds on profiler/ and core/ only (views/ and app/ "
                                    f"build on it), but includes \"{target}\"")
    return problems


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    root = argv[1]
    if not os.path.isdir(os.path.join(root, "core")):
        print(f"check_layering: no core/ folder under {root}", file=sys.stderr)
        return 2
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} include(s) break the layering")
        return 1
    print("layering ok: every include between core's folders (and core/map's) points to a lower layer, no "
          "component cycle in core/map; no Qt in core/, profiler/ "
          "or engine/; engine/ includes no views/ or app/ header; app/ and views/ reach core/'s machinery "
          "through engine/ only")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
