#!/usr/bin/env python3
"""Links that must resolve: relative links in docs/*.md and README.md ([text](path#anchor)),
and docs references in source comments (docs/x.md#anchor, or x.md#anchor meaning docs/x.md).
A file must exist; an anchor must be the GitHub slug of one of its headings.
Usage: scripts/check-links.py [ROOT]. Prints file:line: broken link ... and exits 1."""
import glob
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else "."
slugs_cache = {}


def slugs(path):
    if path not in slugs_cache:
        out = set()
        in_code = False
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.startswith("```"):
                    in_code = not in_code
                m = None if in_code else re.match(r"#{1,6}\s+(.*?)\s*#*\s*$", line)
                if m:
                    s = m.group(1).strip().lower()
                    s = re.sub(r"[^\w\- ]", "", s)
                    out.add(s.replace(" ", "-"))
        slugs_cache[path] = out
    return slugs_cache[path]


def check(src, lineno, target, base, bad):
    path, _, anchor = target.partition("#")
    full = os.path.normpath(os.path.join(base, path)) if path else src
    if not os.path.exists(full):
        bad.append(f"{src}:{lineno}: broken link '{target}': no file {os.path.relpath(full, root)}")
    elif anchor and full.endswith(".md") and anchor not in slugs(full):
        bad.append(f"{src}:{lineno}: broken link '{target}': no heading '#{anchor}'")


bad = []
for md in sorted(glob.glob(os.path.join(root, "docs", "*.md")) + [os.path.join(root, "README.md")]):
    if not os.path.exists(md):
        continue
    in_code = False
    with open(md, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if line.startswith("```"):
                in_code = not in_code
            if in_code:
                continue
            for t in re.findall(r"\]\(([^)\s]+)\)", line):
                if re.match(r"[a-z]+:", t):  # http:, https:, mailto:
                    continue
                check(md, n, t, os.path.dirname(md), bad)
docs = os.path.join(root, "docs")
for src in sorted(glob.glob(os.path.join(root, "src", "**", "*.[ch]"), recursive=True)):
    with open(src, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            for t in re.findall(r"(?<![\w/.-])(?:docs/)?[\w.-]+\.md(?:#[\w-]+)?", line):
                name = t[5:] if t.startswith("docs/") else t
                if name in ("README.md",):
                    continue
                check(src, n, name, docs, bad)
for b in bad:
    print(b, file=sys.stderr)
sys.exit(1 if bad else 0)
