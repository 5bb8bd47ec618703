"""Triage: does this stretch of conversation hold something worth saving, and what?

Scored as the prior plugin did (seed report 9.1): each distinct *primary* cue phrase in a line is a hit, boosted when
a *booster* matches in the 4-line window around it or in its paragraph; score = (0.3 * min(primary, 3) + 0.5 *
min(boosted, 2)) / 1.9. *Dampers* ("maybe", a question) void their sentence; a user's reply accepting a *proposal*
is a hit of its own, and only there *confirmations* ("ok, do that") count; *alternatives* ("instead of") add a hit.
Cues never backtrack and run on lines of at most 1,000 characters until ``SCORING_SECONDS``; ``session_summary``
scores activity. Code, private, recalled and harness blocks are not read (``clean_text``).
"""
from __future__ import annotations

import re
from collections import namedtuple
from time import monotonic

from ..base.config import category_enabled, section, warn
from ..base.sanitize import clean_line, cut

MAX_LINE_CHARS = 1000  # a pattern never runs over a pasted megabyte
MAX_LINES = 4000
_HARNESS = ("system-reminder", "local-command-stdout", "local-command-stderr", "command-message", "command-name",
            "command-args", "user-prompt-submit-hook")
_BLOCK_TAGS = tuple("<" + tag for tag in ("private", "memory-context") + _HARNESS)
# Linear: the fence's line is known to end before its backticks are counted, and a tag's opening cannot fail
# once found (``(?:>|\Z)``: an unclosed one hides the rest). The blocks go in this order: private, recalled, harness.
_FENCE = re.compile(r"(?ms)^(?=[^\n]*\n)[ \t]*(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)")
_BLOCKS = (re.compile(r"(?is)<private\b[^>]*(?:>|\Z).*?(?:</private\s*>|\Z)"),
           re.compile(r"(?is)<memory-context\b[^>]*(?:>|\Z).*?(?:</memory-context\s*>|\Z)"),
           re.compile(r"(?is)<(%s)\b[^>]*(?:>|\Z).*?(?:</\1\s*>|\Z)" % "|".join(_HARNESS)))
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=\S)|(?<=[\u3002\uff01\uff1f])(?=\S)")  # also 。！？
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_LIST_MARK = re.compile(r"^\s*(?:[-*+>]|\d+[.)])\s+")
_BLANK_LINE = re.compile(r"\n[ \t]*\n")


def clean_text(text: str) -> str:
    """``text`` without fenced code, private sections, recalled memories and harness blocks."""
    if not isinstance(text, str):
        return ""
    lowered = text.lower() if "<" in text else ""
    if any(tag in lowered for tag in _BLOCK_TAGS):
        for block in _BLOCKS:
            text = block.sub(" ", text)
    if "```" in text or "~~~" in text:
        text = _FENCE.sub("\n", text)
    return _INLINE_CODE.sub(" ", text)


class Line(str):
    """A scoring line with its message (``msg``: a speaker's consecutive turns), ``role`` and paragraph (``para``)."""

    def __new__(cls, text: str, msg: int, role: str, para: tuple):
        line = super().__new__(cls, text)
        line.msg, line.role, line.para = msg, role, para
        return line


def paragraphs(text: str) -> list:
    return _BLANK_LINE.split(text)


def split_lines(text: str) -> list:
    """Cleaned text as scoring lines: list markers dropped, empties left out, each cut to ``MAX_LINE_CHARS``."""
    stripped = (_LIST_MARK.sub("", raw).strip() for raw in text.splitlines())
    return [line[:MAX_LINE_CHARS] for line in stripped if line]


def sentences(line: str) -> list:
    return [s for s in _SENTENCE_END.split(line) if s.strip()]


def conversation_lines(turns: list) -> list:
    """The scoring lines of the user and assistant text in ``turns`` (tool output is not conversation)."""
    lines, msg, speaker = [], -1, None
    for turn, t in enumerate(turns):
        if t.role in ("user", "assistant") and t.text:
            cleaned = clean_text(t.text)
            if not split_lines(cleaned):
                continue
            if t.role != speaker:
                msg, speaker = msg + 1, t.role
            lines.extend(Line(line, msg, t.role, (turn, para))
                         for para, block in enumerate(paragraphs(cleaned)) for line in split_lines(block))
            if len(lines) >= MAX_LINES:
                return lines[-MAX_LINES:]
    return lines


CUE_CATEGORIES = ("decision", "runbook", "constraint", "tech_debt", "preference")
THRESHOLD_DEFAULTS = dict(dict.fromkeys(CUE_CATEGORIES, 0.4), session_summary=0.6)
ACTIVITY_DEFAULTS = {"tool_uses": 20, "distinct_tools": 6, "exchanges": 5}

PRIMARY_WEIGHT, BOOSTED_WEIGHT = 0.3, 0.5
MAX_PRIMARY, MAX_BOOSTED = 3, 2
DENOMINATOR = PRIMARY_WEIGHT * MAX_PRIMARY + BOOSTED_WEIGHT * MAX_BOOSTED  # 1.9
WINDOW_BEFORE, WINDOW_AFTER = 2, 1  # a 4-line window: two lines before, the line, one after

EVIDENCE_CHARS = 140

CUE_KINDS = ("primary", "boosters", "dampers", "confirmations", "proposals", "alternatives")


Finding = namedtuple("Finding", "category score evidence")  # a category that fired: its score, 1-2 evidence lines


_compiled: dict = {}  # pattern -> its regex, or None when it is not a valid expression (warned of once)


def compile_cues(config: dict) -> dict:
    """category -> a list of compiled cues per ``CUE_KINDS``, from ``triage.cues`` plus ``triage.extra_cues``."""
    triage = section(config, "triage")
    refused = _refused_extra_cues(triage.get("extra_cues", {}))
    found = [(key, category, kind, pattern) for key in ("cues", "extra_cues")
             for category, kind, pattern in _cue_entries(triage.get(key, {}))
             if not (key == "extra_cues" and pattern in refused)]
    found.sort(key=lambda entry: CUE_CATEGORIES.index(entry[1]))  # stable: warnings in category order
    lists = {category: tuple([] for _ in CUE_KINDS) for category in CUE_CATEGORIES}
    for key, category, kind, pattern in found:
        if pattern not in _compiled:
            try:
                _compiled[pattern] = re.compile(pattern, re.IGNORECASE)
            except re.error as exc:
                warn(f"ignored triage cue {pattern!r} in triage.{key}.{category}.{kind}: {exc}")
                _compiled[pattern] = None
        if _compiled[pattern] is not None:
            lists[category][CUE_KINDS.index(kind)].append(_compiled[pattern])
    return lists


def _cue_entries(group) -> list:
    """``[(category, kind, pattern)]`` of a ``triage.cues``-shaped ``group``, as the scorer reads them."""
    out = []
    for category, cues in group.items() if isinstance(group, dict) else ():
        for kind in CUE_KINDS if category in CUE_CATEGORIES and isinstance(cues, dict) else ():
            patterns = cues.get(kind)
            for pattern in patterns if isinstance(patterns, list) else ():
                if isinstance(pattern, str) and pattern:
                    out.append((category, kind, pattern))
    return out


# The team's cues each run on every scoring line: their number bounds the work (cues x text) with the deadline.
MAX_EXTRA_CUES = 40


def extra_cues(extra) -> tuple:
    """``(cues, risks, surplus)`` of ``triage.extra_cues``: every ``(where, pattern)`` as the scorer reads it,
    ``{pattern: why it could backtrack}``, and the others past the first ``MAX_EXTRA_CUES`` distinct ones."""
    cues = [(f"triage.extra_cues.{category}.{kind}", pattern) for category, kind, pattern in _cue_entries(extra)]
    if not cues:
        return cues, {}, []
    from ..base.patternrisk import backtrack_risk
    verdicts = {p: backtrack_risk(p) for p in dict.fromkeys(p for _, p in cues)}
    risks = {p: why for p, why in verdicts.items() if why}
    seen: dict = {}
    for where, pattern in cues:
        if pattern not in risks:
            seen.setdefault(pattern, where)
    return cues, risks, list((w, p) for p, w in seen.items())[MAX_EXTRA_CUES:]


def _refused_extra_cues(extra: dict) -> set:
    """The team's cues that could backtrack (or are too long) and those past ``MAX_EXTRA_CUES``, each warned of."""
    cues, risks, surplus = extra_cues(extra)
    if risks:
        where, pattern = next((w, p) for w, p in cues if p in risks)
        more = f" (and {len(risks) - 1} more)" if len(risks) > 1 else ""
        warn(f"ignored triage cue {pattern[:60]!r} in {where}{more}: it {risks[pattern]}; "
             "rewrite it (doctor explains) or remove it")
    if surplus:
        warn(f"ignored {len(surplus)} triage cues from {surplus[0][0]} on: at most {MAX_EXTRA_CUES} "
             "triage.extra_cues are used; merge or remove some (doctor explains)")
    return set(risks) | {p for _, p in surplus}


# Checked before each pattern: a 2 MB stretch times many cues could still outlast the hook.
SCORING_SECONDS = 3.0
_deadline = [None]


def _out_of_time() -> bool:
    return _deadline[0] is not None and monotonic() > _deadline[0]


def _matches(regexes, line: str) -> bool:
    return any(not _out_of_time() and r.search(line) for r in regexes)  # the deadline between patterns


def cue_hits(regexes, line: str) -> int:
    """How many distinct cue phrases ``line`` holds (overlapping matches of several cues count once)."""
    spans = sorted(m.span() for r in regexes if not _out_of_time() for m in r.finditer(line) if m.end() > m.start())
    hits, end = 0, -1
    for start, stop in spans:
        if start >= end:
            hits += 1
        end = max(end, stop)
    return hits


def _undamped_hits(line: str, regexes, dampers, alternatives) -> int:
    """Cue phrases in ``line`` outside sentences a damper matches; one more for a hit naming an alternative."""
    if not dampers and not alternatives:
        return cue_hits(regexes, line)
    hits = 0
    for sentence in sentences(line):
        if not _matches(dampers, sentence):
            found = cue_hits(regexes, sentence)
            hits += found + (1 if found and _matches(alternatives, sentence) else 0)
    return hits


def score_lines(lines: list, primary: list, boosters: list, dampers=(), confirmations=(), proposals=(),
                alternatives=()):
    """``(score 0..1, evidence lines best first)`` of one category (plain strings get the window rule only)."""
    counts, evidence = [0, 0], ([], [])  # hits and evidence lines: [0] primary, [1] boosted
    accepted, accepted_lines, found = set(), [], []
    shown = list(primary) + list(confirmations)  # what a reply to a proposal may hit, and evidence is cut around
    said = [line for line in lines if getattr(line, "msg", None) is not None]
    role = {}  # message -> its speaker
    for line in said:
        role.setdefault(line.msg, line.role)

    def scan() -> tuple:
        """On first need: ``(a booster in each line, messages with a booster or a proposal, with a proposal,
        (message, paragraph)s with a booster)``."""
        if not found:
            hit = [_matches(boosters, ln) for ln in lines]
            boosted = [ln for ln, h in zip(lines, hit) if h and getattr(ln, "msg", None) is not None]
            proposed = {ln.msg for ln in said if proposals and _matches(proposals, ln)}
            found.extend((hit, {ln.msg for ln in boosted} | proposed, proposed, {(ln.msg, ln.para) for ln in boosted}))
        return found

    for i, line in enumerate(lines):
        msg = getattr(line, "msg", None)
        answered = None  # the assistant message a user reply accepts: it proposed, or answered a request for one
        if proposals and msg is not None and role.get(msg) == "user" and role.get(msg - 1) == "assistant":
            answered = msg - 1 if {msg - 1, msg - 2} & scan()[2] else None
        hits = _undamped_hits(line, primary if answered is None else shown, dampers, alternatives)
        if not hits:
            continue
        # boosted: a booster in the window, in the line's paragraph, or (a reply) in the message it answers or
        # the one before that (its question)
        hit, either, _, paragraphs = scan()
        boosted = bool(any(hit[max(0, i - WINDOW_BEFORE): i + WINDOW_AFTER + 1]) or msg is not None and (
            (msg, line.para) in paragraphs or proposals and msg - 1 in role and {msg - 1, msg - 2} & either))
        counts[boosted] += hits
        evidence[boosted].append(next((s for s in sentences(line) if _matches(shown, s)), line))  # where a cue is
        if answered is not None and answered not in accepted:  # the accepted proposal is a hit of its own
            accepted.add(answered)
            counts[0] += 1
            offered = [ln for ln in lines if getattr(ln, "msg", None) == answered]
            accepted_lines += ([ln for ln in offered if _matches(proposals, ln)] or offered)[:1]
    score = (PRIMARY_WEIGHT * min(counts[0], MAX_PRIMARY) + BOOSTED_WEIGHT * min(counts[1], MAX_BOOSTED)) / DENOMINATOR
    return min(1.0, score), evidence[1] + evidence[0] + accepted_lines


def activity(turns: list) -> dict:
    """Tool uses, distinct tools and exchanges (user prompts answered by the assistant) in ``turns``."""
    tools = [name for t in turns if t.role == "assistant" for name in t.tools]
    exchanges, waiting = 0, False
    for t in turns:
        if t.role == "user" and t.text.strip():
            waiting = True
        elif t.role == "assistant" and waiting:
            exchanges, waiting = exchanges + 1, False
    return {"tool_uses": len(tools), "tools": sorted(set(tools)), "exchanges": exchanges}


def activity_score(act: dict, config: dict) -> float:
    """0..1: the mean of tool uses, distinct tools and exchanges, each against its target (capped at 1)."""
    targets = dict(ACTIVITY_DEFAULTS)
    raw = section(config, "triage").get("activity", {})
    for key, value in (raw.items() if isinstance(raw, dict) else ()):
        if key in targets and isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            targets[key] = value
    parts = (act.get("tool_uses", 0) / targets["tool_uses"],
             len(act.get("tools", ())) / targets["distinct_tools"],
             act.get("exchanges", 0) / targets["exchanges"])
    return sum(min(1.0, p) for p in parts) / 3


def threshold(config: dict, category: str) -> float:
    raw = section(config, "triage").get("thresholds", {})
    value = raw.get(category) if isinstance(raw, dict) else None
    usable = isinstance(value, (int, float)) and not isinstance(value, bool) and 0 <= value <= 1
    return float(value) if usable else THRESHOLD_DEFAULTS[category]


def score_categories(turns: list, config: dict) -> dict:
    """category -> (score, evidence lines) for every cue category."""
    lines = conversation_lines(turns)
    cues = compile_cues(config)
    _deadline[0] = monotonic() + SCORING_SECONDS
    try:
        return {cat: score_lines(lines, *cues[cat]) for cat in CUE_CATEGORIES}
    finally:
        _deadline[0] = None


def triage(turns: list, config: dict, act: dict | None = None) -> list:
    """The ``Finding``s of ``turns`` in a fixed order; ``act``: the activity a summary is judged on (``turns``')."""
    findings = [Finding(cat, score, [cut(clean_line(ln), EVIDENCE_CHARS) for ln in lines[:2]])
                for cat, (score, lines) in score_categories(turns, config).items()
                if category_enabled(config, cat) and score >= threshold(config, cat)]
    if category_enabled(config, "session_summary"):
        act = act if act is not None else activity(turns)
        score = activity_score(act, config)
        if score >= threshold(config, "session_summary"):
            line = f"{act.get('tool_uses', 0)} tool uses ({', '.join(act.get('tools', [])[:6])}), " \
                   f"{act.get('exchanges', 0)} exchanges"
            findings.append(Finding("session_summary", score, [cut(clean_line(line), EVIDENCE_CHARS)]))
    return findings
