"""Every regular expression the package holds, and adversarial text for each (``tests/base/test_pattern_time.py``,
``benchmarks/stress_hostile.py``).

``patterns()`` finds them three ways: compiled patterns among module globals (also inside dicts, lists and
tuples), the literal first argument of every ``re.*`` / ``compiled`` call in the source (read with ``ast``),
and the triage cues of the shipped config. A call whose pattern is neither a literal nor a module constant
must be named in ``DYNAMIC`` with the patterns it can build, so a new pattern cannot slip past the timing
test. ``adversarial(pattern)`` builds 10-100 KB strings from the pattern's own pieces: its literal
fragments repeated (alone, with separators, as near misses), runs of what its loops match, whitespace runs.

Run as a script (``python3 tests/pattern_inventory.py``) it times every pattern on every string and prints
one JSON line per run, which the test reads with a deadline so that a pattern that never ends is named
rather than hanging the suite.
"""
from __future__ import annotations

import ast
import importlib
import json
import pkgutil
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PACKAGE = REPO / "scripts" / "team_memory"
CALLS = {"compile", "search", "match", "fullmatch", "sub", "subn", "finditer", "findall", "split"}
FLAGS = {"I": re.I, "IGNORECASE": re.I, "M": re.M, "MULTILINE": re.M, "S": re.S, "DOTALL": re.S, "X": re.X,
         "VERBOSE": re.X, "IGNORECASE_": re.I}

# Calls whose pattern is built at run time: (module, source of the argument) -> the patterns it can be.
DYNAMIC = {
    ("records/privacy.py", "'^[ \\\\t]{0,3}' + re.escape(fence[0]) + '{' + str(len(fence)) + ',}[ \\\\t]*$'"):
        lambda: [(r"^[ \t]{0,3}" + re.escape(f[0]) + "{" + str(len(f)) + r",}[ \t]*$", re.M) for f in ("```", "~~~~")],
    ("guards/shelljudge.py", "pattern"): lambda: [(p, re.I) for p in _module("guards.shelljudge")._WRITES.values()]
    + [(_module("guards.shelljudge")._GENERIC, re.I)],
    ("guards/pwshjudge.py", "pattern"): lambda: [(p, 0) for p in _module("guards.pwshjudge")._UNREAD.values()],
    ("capture/triage.py", "pattern"): lambda: cue_patterns(),  # the cues: below
    # a team's cue, compiled to be checked, never run here (test_patternrisk times the ones it accepts)
    ("base/patternrisk.py", "pattern"): lambda: [],
}


def _module(name: str):
    if str(REPO / "scripts") not in sys.path:
        sys.path.insert(0, str(REPO / "scripts"))
    return importlib.import_module(f"team_memory.{name}")


def cue_patterns() -> list:
    """The triage cues of the shipped config, as the scorer compiles them (case-insensitive)."""
    config = json.loads((REPO / "templates" / "memory-config.default.json").read_text(encoding="utf-8"))
    return [(p, re.I) for cues in config["triage"]["cues"].values() for ps in cues.values() for p in ps]


def _flags(node) -> int:
    if node is None:
        return 0
    if isinstance(node, ast.BinOp):
        return _flags(node.left) | _flags(node.right)
    if isinstance(node, ast.Attribute):
        return FLAGS.get(node.attr, 0)
    if isinstance(node, ast.Name):
        return re.I if node.id == "IGNORECASE" else 0
    return 0


def call_sites() -> list:
    """``(module path, line, argument node, flags node)`` of every call that compiles or runs a pattern."""
    sites = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call) or not node.args:
                continue
            f = node.func
            is_re = isinstance(f, ast.Attribute) and f.attr in CALLS and isinstance(f.value, ast.Name) \
                and f.value.id in ("re", "_sre")
            if is_re or (isinstance(f, ast.Name) and f.id in ("compiled", "_compile_one")):
                flags = node.args[1] if len(node.args) > 1 and not (f.attr if is_re else "") in ("sub", "subn") \
                    else next((k.value for k in node.keywords if k.arg == "flags"), None)
                if is_re and f.attr in ("sub", "subn") and len(node.args) > 3:
                    flags = node.args[3]
                sites.append((str(path.relative_to(PACKAGE)), node.lineno, node.args[0], flags))
    return sites


def _globals_patterns(value, out: list, seen: set) -> None:
    if isinstance(value, re.Pattern):
        out.append((value.pattern, value.flags & ~re.U))
    elif isinstance(value, dict) and id(value) not in seen:
        seen.add(id(value))
        for v in value.values():
            _globals_patterns(v, out, seen)
    elif isinstance(value, (list, tuple)) and id(value) not in seen:
        seen.add(id(value))
        for v in value:
            _globals_patterns(v, out, seen)


def patterns() -> list:
    """``[(name, pattern, flags)]``: every pattern the package holds, each once."""
    found = []
    for info in pkgutil.walk_packages([str(PACKAGE)], "team_memory."):
        module = _module(info.name[len("team_memory."):])
        out: list = []
        for value in list(vars(module).values()):
            _globals_patterns(value, out, set())
        found += [(info.name, p, f) for p, f in out]
    unknown = []
    for where, line, arg, flags in call_sites():
        name = f"{where}:{line}"
        if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
            found.append((name, arg.value, _flags(flags)))
            continue
        key = (where, ast.unparse(arg))
        if key in DYNAMIC:
            found += [(name, p, f) for p, f in DYNAMIC[key]()]
        else:  # a module constant, or an expression of module constants
            try:
                value = eval(key[1], dict(vars(_module(where[:-3].replace("/", ".")))))  # noqa: S307 - our source
            except NameError:
                value = None
            if isinstance(value, str):
                found.append((name, value, _flags(flags)))
            elif not isinstance(value, re.Pattern):
                unknown.append(key)
    if unknown:
        raise LookupError(f"pattern calls the inventory cannot resolve (add them to DYNAMIC): {unknown}")
    found += [("triage cue", p, f) for p, f in cue_patterns()]
    unique, seen = [], set()
    for name, p, f in found:
        if (p, f) not in seen:
            seen.add((p, f))
            unique.append((name, p, f))
    return unique


def _parser():
    return getattr(re, "_parser", None) or __import__("sre_parse")


_CATEGORY_SAMPLE = {"CATEGORY_DIGIT": "1", "CATEGORY_NOT_DIGIT": "a", "CATEGORY_SPACE": " ",
                    "CATEGORY_NOT_SPACE": "a", "CATEGORY_WORD": "a", "CATEGORY_NOT_WORD": " "}


def _one_char(op, av, c) -> str:
    """A character the single-character item matches (a sample), or ''."""
    if op is c.LITERAL:
        return chr(av)
    if op is c.ANY:
        return "a"
    if op is c.CATEGORY:
        return _CATEGORY_SAMPLE.get(str(av), "a")
    if op is c.IN:
        for o, a in av:
            if o is c.NEGATE:
                return "a" if not any(x is c.LITERAL and y == ord("a") for x, y in av) else "_"
            if o is c.RANGE:
                return chr(a[0])
            sample = _one_char(o, a, c)
            if sample:
                return sample
    return ""


def _walk(items, c, frags: list, runs: set, segments: list) -> str:
    """A near-match of ``items`` (one pass through each loop, the first branch); literal runs into
    ``frags``, the sample text of loop bodies into ``runs``, and ``segments`` (``(text, is a loop)``,
    top-level loops only) to pump one loop at a time."""
    out, literal = [], ""
    for op, av in items:
        if op is c.LITERAL:
            literal += chr(av)
            out.append(chr(av))
            segments.append((chr(av), False))
            continue
        if literal:
            frags.append(literal)
            literal = ""
        if op is c.SUBPATTERN:
            text = _walk(av[-1], c, frags, runs, segments)
            out.append(text)
        elif op is c.BRANCH:
            parts = [_walk(a, c, frags, runs, []) for a in av[1]]
            out.append(parts[0] if parts else "")
            segments.append((out[-1], False))
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, getattr(c, "POSSESSIVE_REPEAT", None)):
            body = _walk(av[2], c, frags, runs, [])
            if body:
                runs.add(body)
            out.append(body * max(1, av[0]) if av[0] < 50 else body * 50)
            segments.append((body, av[1] > 1))
            if av[1] <= 1:
                segments[-1] = (out[-1], False)
        elif op in (c.ASSERT, c.ASSERT_NOT):
            _walk(av[1], c, frags, set(), [])
        else:
            out.append(_one_char(op, av, c))
            segments.append((out[-1], False))
    if literal:
        frags.append(literal)
    return "".join(out)


def adversarial(pattern: str, flags: int, size: int = 20_000) -> list:
    """``[(label, text)]``: strings of about ``size`` characters built from the pattern's own pieces."""
    c = _parser()
    frags: list = []
    runs: set = set()
    segments: list = []
    try:
        skeleton = _walk(list(c.parse(pattern, flags)), c, frags, runs, segments)
    except Exception:  # noqa: BLE001 - an odd construct: the generic strings still run
        skeleton = ""
    pieces = list(dict.fromkeys([f for f in frags if f.strip()] + sorted(runs)))[:12]
    texts = [("skeleton", skeleton), ("near miss", skeleton[:-1])] if skeleton else []
    for piece in pieces:
        texts += [(f"{piece!r}", piece), (f"{piece!r}-", piece + "-"), (f"{piece!r} ", piece + " "),
                  (f"{piece!r}.", piece + ".")]
    if pieces:
        texts.append(("all pieces", "-".join(pieces)))
    texts += [("spaces", " "), ("word", "a"), ("a.", "a."), ("a ", "a "), ("a-", "a-"), ("a=", "a="),
              ("a:", "a:"), ("backticks", "`"), ("<", "<"), ("newlines", "\n"), ("tabs and spaces", " \t")]
    out = []
    for label, unit in texts:
        if unit:
            out.append((label, (unit * (size // len(unit) + 1))[:size]))
    # each loop pumped in turn inside one near-match (the prefix matches, the loop runs long, the end fails)
    for n, (body, loop) in enumerate(segments[:40]):
        if loop and body:
            before = "".join(t for t, _ in segments[:n])
            after = "".join(t for t, _ in segments[n + 1:])
            pumped = before + body * max(1, (size - len(before) - len(after)) // len(body))
            out += [(f"pumped {body!r}", pumped + after[:-1]), (f"pumped {body!r}, then !", pumped + "!")]
    return out


def is_cue(name: str) -> bool:
    """Triage cues only ever see one scoring line (``triage.MAX_LINE_CHARS``): the documented slice."""
    return name == "triage cue" or name.startswith("capture/triage")


def time_all(size: int, stream=sys.stdout) -> None:
    """Every pattern on every adversarial string (``finditer``: every start tried), cues line by line:
    a JSON line before and after each run."""
    line = _module("capture.triage").MAX_LINE_CHARS
    for name, pattern, flags in patterns():
        regex = re.compile(pattern, flags)
        for label, text in adversarial(pattern, flags, size // 2 if is_cue(name) else size):
            print(json.dumps({"start": name, "pattern": pattern[:120], "text": label}), file=stream, flush=True)
            began = time.thread_time()  # CPU time: a loaded machine's wall clock says nothing of the pattern
            for part in ([text[i:i + line] for i in range(0, len(text), line)] if is_cue(name) else [text]):
                for _ in regex.finditer(part):
                    pass
            print(json.dumps({"seconds": time.thread_time() - began}), file=stream, flush=True)


_ATOMS = ["a", "b", " ", "\\w", "\\s", "\\S", "\\d", ".", "[a-z]", "[^ ]", "x", ","]
_QUANTIFIERS = ["", "", "*", "+", "?", "{0,3}", "{2,}", "*?"]


def random_patterns(count: int, seed: int) -> list:
    """``count`` random small patterns (groups, alternatives, quantifiers over a few atoms): the kind of
    cue a team might write, good and bad."""
    import random
    rng = random.Random(seed)

    def piece(depth: int) -> str:
        if depth < 2 and rng.random() < 0.35:
            inner = "".join(piece(depth + 1) for _ in range(rng.randint(1, 3)))
            if rng.random() < 0.3:
                inner += "|" + "".join(piece(depth + 1) for _ in range(rng.randint(1, 2)))
            return "(" + inner + ")" + rng.choice(_QUANTIFIERS)
        return rng.choice(_ATOMS) + rng.choice(_QUANTIFIERS)

    return [("^" if rng.random() < 0.3 else "") + "".join(piece(0) for _ in range(rng.randint(1, 4)))
            + rng.choice(["", "$", "!", "x", "\\b"]) for _ in range(count)]


def time_accepted(count: int, seed: int, size: int, stream=sys.stdout) -> None:
    """The random patterns ``base.patternrisk`` accepts, timed as the scorer runs a cue: line by line."""
    risk = _module("base.patternrisk").backtrack_risk
    line = _module("capture.triage").MAX_LINE_CHARS
    for pattern in random_patterns(count, seed):
        if risk(pattern, re.I):
            continue
        regex = re.compile(pattern, re.I)
        for label, text in adversarial(pattern, re.I, size):
            print(json.dumps({"start": "random cue", "pattern": pattern, "text": label}), file=stream, flush=True)
            began = time.thread_time()  # CPU time: a loaded machine's wall clock says nothing of the pattern
            for part in (text[i:i + line] for i in range(0, len(text), line)):
                for _ in regex.finditer(part):
                    pass
            print(json.dumps({"seconds": time.thread_time() - began}), file=stream, flush=True)


def run_child(args: list, bound: float) -> list:
    """Run this file with ``args`` in a child process, reading its JSON lines as they come; a run still going
    after ``3 * bound`` seconds is killed and raised (named); returns the runs slower than ``bound``."""
    import subprocess
    import threading
    child = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), *map(str, args)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=str(REPO))
    lines: list = []

    def read() -> None:
        for line in child.stdout:
            lines.append((time.monotonic(), json.loads(line)))

    reader = threading.Thread(target=read, daemon=True)
    started = time.monotonic()
    reader.start()
    try:
        while reader.is_alive():
            reader.join(0.2)
            last_at, last = lines[-1] if lines else (started, {})
            if "start" in last and time.monotonic() - last_at > bound * 3:
                raise AssertionError(f"{last['start']} still running after {bound * 3:.0f} s on {last['text']}: "
                                     f"{last['pattern']}")
    finally:
        child.kill()
        child.wait()
    if child.returncode not in (0, -9) or len(lines) % 2:
        raise AssertionError(child.stderr.read()[-2000:])
    runs = [(before, after["seconds"]) for (_, before), (_, after) in zip(lines[::2], lines[1::2])]
    return runs, [f"{b['start']} {s:.1f} s on {b['text']}: {b['pattern']}" for b, s in runs if s > bound]


if __name__ == "__main__":
    if sys.argv[1:2] == ["--accepted"]:
        time_accepted(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
    else:
        time_all(int(sys.argv[1]) if len(sys.argv) > 1 else 20_000)
