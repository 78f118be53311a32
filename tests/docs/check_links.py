#!/usr/bin/env python3
"""Checks the relative links of opsched's documentation.

Scans ROOT/README.md and every ROOT/docs/*.md for Markdown links and images ([text](target),
![alt](target), reference definitions `[id]: target`) and HTML src/href attributes. Targets with a
scheme (http:, https:, mailto:, ...) are not checked. Every other target must exist relative to
the file that names it, and an #anchor into a Markdown file (the same file for a bare #anchor) must
match a heading there, slugged as GitHub does: lowercase, punctuation other than '-' and '_'
removed, spaces turned into '-', and '-1', '-2', ... added to repeated headings. Links inside code
(fenced blocks, `inline code`) are not links and are skipped.

Prints each broken link as FILE:LINE: ... and exits 1 when there is one, 0 otherwise.
With --expect-broken the verdict is inverted (exit 0 only when broken links were found): the
self-test that shows the check can fail.

Usage: check_links.py [--expect-broken] [ROOT]     (ROOT defaults to the repository root)
"""
import os
import re
import sys
import unicodedata
from urllib.parse import unquote

FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
SETEXT = re.compile(r"^\s{0,3}(=+|-+)\s*$")
INLINE_CODE = re.compile(r"(`+)(?:.+?)\1")
# [text](target "title") and ![alt](target); text may hold one level of nested brackets.
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\[\]]*\])*\]\(\s*(<[^>]*>|[^)\s]+)(?:\s+(?:\"[^\"]*\"|'[^']*'|\([^)]*\)))?\s*\)")
REFERENCE_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_ATTR = re.compile(r"""<[a-zA-Z][^>]*?\b(?:src|href)\s*=\s*["']([^"']+)["']""")
HTML_ANCHOR = re.compile(r"""<[a-zA-Z][^>]*?\b(?:id|name)\s*=\s*["']([^"']+)["']""")
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


def prose_lines(text):
    """(line number, line, line with inline code blanked) for lines outside fenced code blocks."""
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        yield number, line, INLINE_CODE.sub(lambda c: " " * len(c.group(0)), line)


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links keep their text
    text = re.sub(r"<[^>]+>", "", text)                          # inline HTML tags go
    text = text.strip().lower()
    out = []
    for ch in text:
        if ch in "-_" or ch == " ":
            out.append("-" if ch == " " else ch)
        elif unicodedata.category(ch)[0] in "LNM":
            out.append(ch)
    return "".join(out)


def anchors_of(path, cache={}):
    if path not in cache:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        found, seen = set(), {}
        previous = None
        for _, line, prose in prose_lines(text):
            m = HEADING.match(line)
            title = m.group(2) if m else None
            if title is None and previous and previous.strip() and SETEXT.match(line) and not HEADING.match(previous):
                title = previous.strip()
            if title is not None:
                base = slug(title)
                count = seen.get(base, 0)
                seen[base] = count + 1
                found.add(base if count == 0 else f"{base}-{count}")
            for a in HTML_ANCHOR.findall(prose):
                found.add(a)
            previous = line
        cache[path] = found
    return cache[path]


def targets(line):
    for m in INLINE_LINK.finditer(line):
        yield m.group(1)
    m = REFERENCE_DEF.match(line)
    if m:
        yield m.group(1)
    for t in HTML_ATTR.findall(line):
        yield t


def check_file(path, root):
    problems = []
    rel = os.path.relpath(path, root)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    for number, _, prose in prose_lines(text):
        for target in targets(prose):
            target = target.strip("<>")
            if not target or SCHEME.match(target):
                continue
            file_part, _, anchor = target.partition("#")
            file_part = unquote(file_part.split("?", 1)[0])
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            where = f"{rel}:{number}: ({target})"
            if not os.path.exists(dest):
                problems.append(f"{where} {os.path.relpath(dest, root)} does not exist")
                continue
            if anchor and dest.endswith(".md") and os.path.isfile(dest):
                if unquote(anchor) not in anchors_of(dest):
                    problems.append(f"{where} no heading in {os.path.relpath(dest, root)} has the anchor #{anchor}")
    return problems


def documents(root):
    readme = os.path.join(root, "README.md")
    if os.path.isfile(readme):
        yield readme
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        for name in sorted(os.listdir(docs)):
            if name.endswith(".md"):
                yield os.path.join(docs, name)


def main(argv):
    args = argv[1:]
    expect_broken = "--expect-broken" in args
    args = [a for a in args if a != "--expect-broken"]
    if len(args) > 1 or any(a.startswith("-") for a in args):
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    root = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), "..", ".."))
    files = list(documents(root))
    if not files:
        print(f"check_links: no README.md or docs/*.md under {root}", file=sys.stderr)
        return 2
    problems = []
    for path in files:
        problems += check_file(path, root)
    for p in problems:
        print(p)
    print(f"check_links: {len(files)} files, {len(problems)} broken links")
    if expect_broken:
        if problems:
            print("check_links: broken links found, as the fixture expects")
            return 0
        print("check_links: --expect-broken, but every link resolved: the check cannot fail")
        return 1
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
