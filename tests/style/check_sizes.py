#!/usr/bin/env python3
"""Checks that opsched's product code stays in pieces a reader can hold: no function longer than 120
lines and no source file longer than 800 (core/, profiler/, engine/, views/, app/). A function is
counted from the line of its opening brace to the line of its closing one, lambdas and local
classes inside it included. Prints each offender as file:line and exits 1.

Usage: check_sizes.py SOURCE_ROOT
"""
import os
import re
import sys

MAX_FUNCTION_LINES = 120
MAX_FILE_LINES = 800
PRODUCT_FOLDERS = ("core", "profiler", "engine", "views", "app")
SOURCE_SUFFIXES = (".h", ".hpp", ".cpp", ".cu", ".cuh")


def blank_out(text, start, end):
    """text[start:end] with everything but newlines as spaces, so line numbers stay."""
    return re.sub(r"[^\n]", " ", text[start:end])


def strip_comments_and_literals(text):
    out, i, n = [], 0, len(text)
    while i < n:
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
        elif text.startswith('R"', i) and re.match(r'R"([^(\s]*)\(', text[i:]):
            delimiter = re.match(r'R"([^(\s]*)\(', text[i:]).group(1)
            j = text.find(")" + delimiter + '"', i)
            j = n if j < 0 else j + len(delimiter) + 2
        elif text[i] == '"' or (text[i] == "'" and not (i and text[i - 1].isalnum())):
            quote, j = text[i], i + 1
            while j < n and text[j] != quote and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(n, j + 1)
        elif text[i] == "#" and (i == 0 or text[:i].rstrip(" \t").endswith("\n")):
            j = i
            while True:  # a preprocessor line, with its continuations
                k = text.find("\n", j)
                k = n if k < 0 else k
                if k > 0 and text[k - 1] == "\\":
                    j = k + 1
                    continue
                break
            j = k
        else:
            out.append(text[i])
            i += 1
            continue
        out.append(blank_out(text, i, j))
        i = j
    return "".join(out)


def functions(text):
    """(first line, line count, signature) of every function body not nested in another."""
    code = strip_comments_and_literals(text)
    stack, last, found = [], 0, []
    for i, c in enumerate(code):
        if c == "{":
            head = " ".join(code[last:i].split())
            kind = "block"
            if not any(k == "function" for k, _ in stack):
                if re.search(r"\bnamespace\b", head) or re.search(r'\bextern\s*$', head):
                    kind = "scope"
                elif re.search(r"\b(class|struct|union|enum)\b[^()]*$", head):
                    kind = "scope"
                elif ")" in head and not head.endswith("=") and not head.endswith("]"):
                    kind = "function"
            stack.append((kind, (code.count("\n", 0, i) + 1, head[-80:])))
            last = i + 1
        elif c == "}":
            if stack:
                kind, (line, head) = stack.pop()
                if kind == "function" and not any(k == "function" for k, _ in stack):
                    found.append((line, code.count("\n", 0, i) + 2 - line, head))
            last = i + 1
        elif c == ";":
            last = i + 1
    return found


def check(root):
    problems = []
    for folder in PRODUCT_FOLDERS:
        for base, _, files in os.walk(os.path.join(root, folder)):
            for name in sorted(files):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                path = os.path.join(base, name)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                lines = text.count("\n")
                if lines > MAX_FILE_LINES:
                    problems.append(f"{rel}:1: {lines} lines, more than {MAX_FILE_LINES}: split it by concern")
                for line, count, head in functions(text):
                    if count > MAX_FUNCTION_LINES:
                        problems.append(f"{rel}:{line}: a function of {count} lines, more than {MAX_FUNCTION_LINES} "
                                        f"({head.split('(')[0].split()[-1] if '(' in head else head}): split it")
    return problems


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    problems = check(argv[1])
    for p in problems:
        print(p)
    if problems:
        print(f"{len(problems)} function(s) or file(s) too long")
        return 1
    print(f"sizes ok: no function over {MAX_FUNCTION_LINES} lines, no file over {MAX_FILE_LINES}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
