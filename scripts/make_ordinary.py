#!/usr/bin/env python3
"""Build ``recall/ordinary.txt``: the words of ordinary programming text, most common first.

The prompt hook's relevance rule (``recall/weights.py``) weighs a prompt word by how ordinary it
is in programming text at large: a memory met on "test", "type" or "null" alone says little about a
prompt. This script measures that from public text, offline, and writes the word list the package
ships (rank = line number after the header).

Each SOURCE is a folder; its ``.py``, ``.md``, ``.mdx``, ``.rst`` and ``.txt`` files and its man pages
(``*.1`` .. ``*.8``, gzipped or not) are read, cut into passages of about ``PASSAGE`` characters (a
prompt is short: what matters is how often a short text holds the word). A word's commonness in a
source is the share of its passages that hold it; a word is as common as its median share over the
sources, so a word one source repeats (``alert`` in a JavaScript tutorial's examples) is not ordinary. Words are the hook's own tokens
(``text.textnorm.token_groups``: folded forms, identifiers split), letters only.

The list shipped was built from (commits named in the header it writes):
  - CPython 3.11's standard library (its ``.py`` files): Python and general programming English;
  - Debian's man pages (``/usr/share/man``): shells, tools, systems;
  - javascript-tutorial/en.javascript.info, reactjs/react.dev, microsoft/TypeScript-Website
    (their Markdown): JavaScript, TypeScript and web words.

Usage:
    python3 scripts/make_ordinary.py SOURCE... [--top 6000] [--out PATH] [--note TEXT]
    python3 scripts/make_ordinary.py /usr/lib/python3.11 /usr/share/man react.dev en.javascript.info \\
        TypeScript-Website --note "sources: ..."
"""
from __future__ import annotations

import argparse
import gzip
import os
import re
import sys
from statistics import median

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from team_memory.text.features import SmartFeatures  # noqa: E402
from team_memory.text.textnorm import token_groups  # noqa: E402

PASSAGE = 1000  # characters of a passage
TEXT = (".py", ".md", ".mdx", ".rst", ".txt")
MAN = re.compile(r"\.[1-8][a-z]*(\.gz)?$")
WORD = re.compile(r"^[a-z]{2,30}$")
TROFF = re.compile(r"\\f[A-Z]|\\\(..|\\[-&e]|^\.[A-Za-z]+\s?", re.M)


def files(source: str):
    for folder, dirs, names in os.walk(source):
        dirs[:] = sorted(d for d in dirs if d not in ("site-packages", "node_modules", ".git", "__pycache__", "test",
                                                       "tests"))
        for name in sorted(names):
            if name.endswith(TEXT) or MAN.search(name):
                yield os.path.join(folder, name)


def read(path: str) -> str:
    try:
        if path.endswith(".gz"):
            with gzip.open(path, "rt", encoding="utf-8", errors="replace") as f:
                text = f.read()
        else:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
    except OSError:
        return ""
    return TROFF.sub(" ", text) if MAN.search(path) else text


def passages(text: str):
    for start in range(0, len(text), PASSAGE):
        yield text[start:start + PASSAGE]


def shares(source: str, stop_words) -> dict:
    """word -> the share of the source's passages that hold it."""
    counts: dict = {}
    n = 0
    for path in files(source):
        for passage in passages(read(path)):
            n += 1
            for word in {t for group in token_groups(passage, stop_words) for t in group if WORD.match(t)}:
                counts[word] = counts.get(word, 0) + 1
    print(f"{source}: {n} passages, {len(counts)} words", file=sys.stderr)
    return {w: c / n for w, c in counts.items()} if n else {}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sources", nargs="+", help="folders of public text")
    parser.add_argument("--top", type=int, default=6000, help="how many words to keep (default 6000)")
    parser.add_argument("--out", default=os.path.join(HERE, "team_memory", "recall", "ordinary.txt"))
    parser.add_argument("--note", default="", help="a line on the sources, written into the header")
    args = parser.parse_args(argv)
    stop_words = SmartFeatures({}).stop_words
    per_source = [shares(s, stop_words) for s in args.sources]
    words = set().union(*per_source)
    middle = {w: median([s.get(w, 0.0) for s in per_source]) for w in words}
    top = sorted((w for w in words if middle[w] > 0), key=lambda w: (-middle[w], w))[:args.top]
    header = ["# The words of ordinary programming text, most common first (rank = line number after this header).",
              "# Built by scripts/make_ordinary.py; read by recall/weights.py. Do not edit by hand.",
              f"# {args.note}" if args.note else "# sources: " + ", ".join(os.path.basename(s) for s in args.sources)]
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(header + top) + "\n")
    print(f"{len(top)} words -> {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
