"""Can a pattern from config backtrack? ``backtrack_risk(pattern) -> reason | None``.

A teammate's ``triage.extra_cues`` run in every Stop hook, and ``re`` backtracks (``^(\\w+\\s?)*$`` ran for minutes).
Refused, from ``re``'s own parse: a pattern over ``MAX_PATTERN_CHARS`` or invalid; a backreference or conditional; a
repeated group holding another quantifier, a lookaround, or alternatives that can start alike (``(a+)+``, ``(a|ab)*``);
two repeats in a row that can match the same text with nothing required between (``\\w+\\w+x``, ``.*a.*b``) unless the
second ends the pattern. What is left is at most quadratic on a line cut to ``capture.triage.MAX_LINE_CHARS``.
"""
from __future__ import annotations

MAX_PATTERN_CHARS = 500
MAX_UNROLLED = 10  # a repeat of at most this many is checked pass by pass
IGNORECASE, DOTALL = 2, 16  # ``re``'s values, without importing ``re`` here
# A sample of characters standing for all: two repeats overlap when some sample character fits both.
_SAMPLE = "".join(chr(c) for c in range(32, 127)) + "\t\n\r\x0b\x0c\xa0\u3000\xe9\xdf\u0130\u017f\uac00\u3002\u4e00_"


def _variants(ch: str) -> set:
    return {ch} | {v for v in (ch.lower(), ch.upper()) if len(v) == 1}


_FOLDED = [(ch, _variants(ch)) for ch in _SAMPLE]  # each sample character with its case variants
_LEAVES: dict = {}  # (op, av, flags) -> the sample characters that one item matches: a config's cues share them


def backtrack_risk(pattern, flags: int = IGNORECASE):
    """Why ``pattern`` is refused (a short phrase), or None when it is safe to run on a bounded line."""
    if not isinstance(pattern, str):
        return "is not text"
    if len(pattern) > MAX_PATTERN_CHARS:
        return f"is longer than {MAX_PATTERN_CHARS} characters"
    import re
    try:
        re.compile(pattern, flags)
        parser = getattr(re, "_parser", None) or __import__("sre_parse")
        parsed = parser.parse(pattern, flags)
    except (re.error, RecursionError, OverflowError, ValueError) as exc:
        return f"is not a valid expression ({exc})"
    checker = _Checker(parser, flags | parsed.state.flags)
    try:
        checker.run(list(parsed), [], False, last_at_end=True)
    except _Refused as refused:
        return str(refused)
    except RecursionError:
        return "is nested too deeply"
    return None


class _Refused(Exception):
    pass


class _Checker:
    def __init__(self, parser, flags: int):
        self.c, self.flags = parser, flags
        self.repeats = tuple(op for op in (getattr(parser, "MAX_REPEAT", None), getattr(parser, "MIN_REPEAT", None),
                                           getattr(parser, "POSSESSIVE_REPEAT", None)) if op is not None)

    def chars(self, op, av) -> frozenset:
        """The sample characters one single-character item matches."""
        c = self.c
        if op is c.IN:
            negate = any(o is c.NEGATE for o, _ in av)
            hit = frozenset().union(*(self.chars(o, a) for o, a in av if o is not c.NEGATE))
            return frozenset(_SAMPLE) - hit if negate else hit
        if not any(op is leaf for leaf in (c.LITERAL, c.NOT_LITERAL, c.ANY, c.CATEGORY, c.RANGE)):
            return frozenset(_SAMPLE)  # anything else: assume it can match anything
        key = (op, av, self.flags & (IGNORECASE | DOTALL))
        if key not in _LEAVES:
            _LEAVES[key] = self.leaf_chars(op, av)
        return _LEAVES[key]

    def leaf_chars(self, op, av) -> frozenset:
        c, fold = self.c, self.flags & IGNORECASE
        if op is c.LITERAL or op is c.NOT_LITERAL:
            one = _variants(chr(av)) if fold else {chr(av)}
            hit = frozenset(ch for ch, variants in _FOLDED if one & (variants if fold else {ch}))
            return hit if op is c.LITERAL else frozenset(_SAMPLE) - hit
        if op is c.ANY:
            return frozenset(_SAMPLE if self.flags & DOTALL else _SAMPLE.replace("\n", ""))
        if op is c.CATEGORY:
            name = str(av).upper()
            test = (str.isdigit if "DIGIT" in name else str.isspace if "SPACE" in name
                    else (lambda ch: ch.isalnum() or ch == "_") if "WORD" in name else (lambda ch: False))
            hit = frozenset(ch for ch in _SAMPLE if test(ch))
            return frozenset(_SAMPLE) - hit if "NOT" in name else hit
        lo, hi = av  # RANGE
        return frozenset(ch for ch, variants in _FOLDED if any(lo <= ord(v) <= hi for v in (variants if fold else ch)))

    def body_chars(self, items) -> frozenset:
        """Every sample character some item of ``items`` (at any depth) can match."""
        c, out = self.c, set()
        for op, av in items:
            if op is c.SUBPATTERN:
                out |= self.body_chars(av[-1])
            elif op is c.BRANCH:
                for alternative in av[1]:
                    out |= self.body_chars(alternative)
            elif op in self.repeats:
                out |= self.body_chars(av[2])
            elif op in (c.AT, c.ASSERT, c.ASSERT_NOT):
                continue
            else:
                out |= self.chars(op, av)
        return frozenset(out)

    def first_chars(self, items):
        """The characters a match of ``items`` can start with, or None when it can start with nothing."""
        c = self.c
        for op, av in items:
            if op is c.AT or op in (c.ASSERT, c.ASSERT_NOT):
                continue
            if op is c.SUBPATTERN:
                return self.first_chars(av[-1])
            if op is c.BRANCH or op in self.repeats:
                return None
            return self.chars(op, av)
        return None

    def alternatives(self, alternatives) -> None:
        """Inside a repeated group, alternatives must start differently (``(a|ab)*`` is exponential)."""
        seen: set = set()
        for alternative in alternatives:
            first = self.first_chars(alternative)
            if first is None or seen & first:
                raise _Refused("has alternatives that can start alike inside a repeated group (such as (a|ab)*)")
            seen |= first

    def run(self, items, open_loops: list, in_loop: bool, last_at_end: bool = False) -> list:
        """Walk ``items``, refusing a repeat that overlaps an "open" one; returns the repeats open at the end."""
        c = self.c
        for index, (op, av) in enumerate(items):
            if op in (c.GROUPREF, getattr(c, "GROUPREF_EXISTS", None)):
                raise _Refused("has a backreference or a conditional group")
            if op is c.SUBPATTERN:
                open_loops = self.run(list(av[-1]), open_loops, in_loop)
            elif op in self.repeats:
                open_loops = self.repeat(av, open_loops, in_loop, last_at_end and index == len(items) - 1)
            elif op is c.BRANCH:
                if in_loop:
                    self.alternatives(av[1])
                after: list = []
                for alternative in av[1]:
                    after = _union(after, self.run(list(alternative), list(open_loops), in_loop))
                open_loops = after
            elif op in (c.ASSERT, c.ASSERT_NOT):
                if in_loop:
                    raise _Refused("has a lookaround inside a repeated group")
                self.run(list(av[1]), [], False)
            elif op is not c.AT:
                chars = self.chars(op, av)
                open_loops = [o for o in open_loops if o & chars]
        return open_loops

    def repeat(self, av, open_loops: list, in_loop: bool, terminal: bool) -> list:
        low, high, body = av[0], av[1], list(av[2])
        if high == low and high > 1:  # a fixed count (``\\d{4}``): no choice to make, only what it holds
            self.run(body + body, [], True)
            return self.run(body, open_loops, in_loop)
        if 1 < high <= MAX_UNROLLED and not in_loop:  # a small bounded repeat (``(\\w+ ){0,6}``): pass by pass
            reached = list(open_loops) if low == 0 else []
            for count in range(1, high + 1):
                open_loops = self.run(body, open_loops, True)
                if count >= low:
                    reached = _union(reached, open_loops)
            return reached
        if high <= 1 and not (in_loop and low == 0):
            after = self.run(body, list(open_loops), in_loop)
            return _union(open_loops, after) if low == 0 else after
        # a loop (or, inside one, an optional part: a choice made again on every pass)
        try:  # two passes through the body must not share text either
            self.run(body + body if high > 1 else body, [], True)
        except _Refused as refused:
            if "in a row" not in str(refused):
                raise
            raise _Refused("has a repeated group whose passes can share text (such as (\\w+\\s?)* or (a+)+)") from None
        first = self.first_chars(body)  # the first required character: any, when unknown
        first = frozenset(_SAMPLE) if first is None else first
        if any(first & o for o in open_loops) and not terminal:
            raise _Refused("has two repeats in a row that can match the same text "
                           "(such as \\w+\\w+ or .*a.*b)")
        if low:
            open_loops = [o for o in open_loops if o & first]
        return open_loops + [self.body_chars(body)]


def _union(a: list, b: list) -> list:
    return a + [x for x in b if x not in a]
