"""Triage text: what the scorer reads (``clean_text``: no code, private, recalled or harness blocks), cut into
``Line``s; ``cue_keys``: each cue's literal keywords, so only cues that can match are compiled. ``re`` costs
the Stop hook several ms a turn: the plain string code here does what the patterns its docstrings quote do.
"""
from __future__ import annotations

import os

MAX_LINE_CHARS = 1000  # a pattern never runs over a pasted megabyte
MAX_LINES = 4000
_BLOCK_TAGS = ("<private", "<memory-context", "<system-reminder", "<local-command-stdout", "<local-command-stderr",
               "<command-message", "<command-name", "<command-args", "<user-prompt-submit-hook")
_patterns = None


def _regexes():
    """The cleaning and sentence patterns, compiled on first use."""
    global _patterns
    if _patterns is None:
        _patterns = {
            # Linear: the fence's line is known to end before its backticks are counted, and a tag's opening
            # cannot fail once found (``(?:>|\Z)``: an unclosed one hides the rest).
            "fence": compiled(r"(?ms)^(?=[^\n]*\n)[ \t]*(`{3,}|~{3,})[^\n]*\n.*?(?:^[ \t]*\1[ \t]*$|\Z)"),
            "private": compiled(r"(?is)<private\b[^>]*(?:>|\Z).*?(?:</private\s*>|\Z)"),
            "recalled": compiled(r"(?is)<memory-context\b[^>]*(?:>|\Z).*?(?:</memory-context\s*>|\Z)"),
            "harness": compiled(r"(?is)<(system-reminder|local-command-stdout|local-command-stderr|"
                                  r"command-message|command-name|command-args|user-prompt-submit-hook)\b[^>]*(?:>|\Z)"
                                  r".*?(?:</\1\s*>|\Z)"),
            "sentence_end": compiled(r"(?<=[.!?])\s+(?=\S)|(?<=[\u3002\uff01\uff1f])(?=\S)"),  # also 。！？
        }
    return _patterns


def _without_inline_code(text: str) -> str:
    """``re.sub(r"`[^`\n]*`", " ", text)``: on each line, the text between pairs of backticks."""
    if "`" not in text:
        return text
    lines = []
    for line in text.split("\n"):
        parts = line.split("`")
        tail = "`" + parts[-1] if len(parts) % 2 == 0 else ""  # an odd backtick opens no span
        lines.append(" ".join(parts[::2]) + tail)
    return "\n".join(lines)


def clean_text(text: str) -> str:
    """``text`` without fenced code, private sections, recalled memories and harness blocks."""
    if not isinstance(text, str):
        return ""
    lowered = text.lower() if "<" in text else ""
    if any(tag in lowered for tag in _BLOCK_TAGS):
        for name in ("private", "recalled", "harness"):
            text = _regexes()[name].sub(" ", text)
    if "```" in text or "~~~" in text:
        text = _regexes()["fence"].sub("\n", text)
    return _without_inline_code(text)


class Line(str):
    """A scoring line with its message (``msg``: a speaker's consecutive turns), ``role`` and paragraph (``para``)."""

    def __new__(cls, text: str, msg: int, role: str, para: tuple):
        line = super().__new__(cls, text)
        line.msg, line.role, line.para = msg, role, para
        return line


def _without_list_mark(line: str) -> str:
    """``re.sub(r"^\\s*(?:[-*+>]|\\d+[.)])\\s+", "", line)``."""
    rest, digits = line.lstrip(), 0
    while digits < len(rest) and rest[digits].isdecimal():  # any decimal digit, as ``\d`` reads it
        digits += 1
    if rest[:1] in ("-", "*", "+", ">"):
        body = rest[1:]
    elif digits and rest[digits:digits + 1] in (".", ")"):
        body = rest[digits + 1:]
    else:
        return line
    kept = body.lstrip()
    return kept if len(kept) < len(body) else line


def paragraphs(text: str) -> list:
    """``re.split(r"\\n[ \\t]*\\n", text)``: ``text`` cut at blank lines."""
    lines, parts, start, j = text.split("\n"), [], 0, 1
    while j < len(lines) - 1:
        if lines[j].strip(" \t"):
            j += 1
        else:  # a blank line and both its newlines: the next line cannot be a cut
            parts.append("\n".join(lines[start:j]))
            start, j = j + 1, j + 2
    parts.append("\n".join(lines[start:]))
    return parts


def split_lines(text: str) -> list:
    """Cleaned text as scoring lines: list markers dropped, empties left out, each cut to ``MAX_LINE_CHARS``."""
    lines = []
    for raw in text.splitlines():
        raw = _without_list_mark(raw).strip()
        if raw:
            lines.append(raw[:MAX_LINE_CHARS])
    return lines


def message_lines(text: str, msg: int, role: str, turn: int = 0) -> list:
    """``split_lines`` of one turn's text as ``Line`` objects, paragraphs numbered ``(turn, n)``."""
    return [Line(line, msg, role, (turn, para))
            for para, block in enumerate(paragraphs(text)) for line in split_lines(block)]


def sentences(line: str) -> list:
    return [s for s in _regexes()["sentence_end"].split(line) if s.strip()]


def conversation_lines(turns: list) -> list:
    """The scoring lines of the user and assistant text in ``turns`` (tool output is not conversation)."""
    lines, msg, speaker = [], -1, None
    for turn, t in enumerate(turns):
        if t.role in ("user", "assistant") and t.text:
            cleaned = clean_text(t.text)
            if not split_lines(cleaned):
                continue
            if t.role != speaker:  # a new message starts when the speaker changes
                msg, speaker = msg + 1, t.role
            lines.extend(message_lines(cleaned, msg, t.role, turn))
            if len(lines) >= MAX_LINES:
                return lines[-MAX_LINES:]
    return lines


# Characters that a case-insensitive expression matches in ways ``str.lower`` does not show (``re``'s
# extra case pairs, such as the long s for ``s``, and the dotted capital I): text holding one is
# checked against every cue (``tests/test_triage.py`` keeps this list equal to ``re``'s table).
CASE_SPECIAL = frozenset("\xb5\u0130\u0131\u017f\u0345\u0390\u03b0\u03b2\u03b5\u03b8\u03b9\u03ba\u03bc"
                         "\u03c0\u03c1\u03c2\u03c3\u03c6\u03d0\u03d1\u03d5\u03d6\u03f0\u03f1\u03f5\u0432"
                         "\u0434\u043e\u0441\u0442\u044a\u0463\u1c80\u1c81\u1c82\u1c83\u1c84\u1c85\u1c86"
                         "\u1c87\u1c88\u1e61\u1e9b\u1fbe\u1fd3\u1fe3\ua64b\ufb05\ufb06")
KEYS_FILE = "triage-cue-keys.marshal"
RISKS_FILE = "triage-cue-risks.marshal"
IGNORECASE = 2  # ``re.IGNORECASE``, without importing ``re``
_key_cache: dict = {}
_risk_cache: dict = {}


def compiled(pattern: str, flags: int = 0):
    """``re.compile(pattern, flags)``, ``re`` imported on first use (ordinary text never needs it)."""
    import re
    return re.compile(pattern, flags)


def may_match(keys: tuple, lowered: str) -> bool:
    """Whether a cue with these keywords may match somewhere in ``lowered`` (lower-cased text)."""
    if not lowered.isascii() and not CASE_SPECIAL.isdisjoint(lowered):
        return True
    return any(key in lowered for key in keys)


def cue_keys(patterns: list) -> dict:
    """pattern -> its keywords (lower-cased, one of which every match contains), for those of ``patterns``
    that have some. Worked out with ``re``'s parser once and kept in the user's cache folder (``bytecache``);
    with no folder to keep them in, none (every cue is compiled)."""
    patterns = [p for p in patterns if isinstance(p, str) and p]
    _cached(KEYS_FILE, _key_cache, patterns, _keys_of, lambda v: v is None or (
        isinstance(v, tuple) and all(isinstance(x, str) and x for x in v)), always=False)
    return {p: _key_cache[p] for p in patterns if _key_cache.get(p) is not None}


def cue_risks(patterns: list) -> dict:
    """pattern -> why ``base.patternrisk`` refuses it, for the refused ones among ``patterns`` (verdicts kept
    in the cache folder beside the cue keywords)."""
    from ..base.patternrisk import backtrack_risk
    patterns = [p for p in patterns if isinstance(p, str)]
    _cached(RISKS_FILE, _risk_cache, patterns, lambda p: backtrack_risk(p, IGNORECASE) or "",
            lambda v: isinstance(v, str), always=True)
    return {p: _risk_cache[p] for p in patterns if _risk_cache[p]}


def _cached(name: str, cache: dict, patterns: list, work, valid, always: bool) -> None:
    """Fill ``cache`` (pattern -> ``work(pattern)``) from the cache file ``name`` (values ``valid``), then work
    out the missing patterns (only when the file can be rewritten with them, unless ``always``)."""
    if not cache:
        data = _read_marshal(name)
        if isinstance(data, dict) and all(isinstance(k, str) and valid(v) for k, v in data.items()):
            cache.update(data)
    missing = [p for p in dict.fromkeys(patterns) if p not in cache]
    writable = bool(missing) and _cache_writable()
    if writable or (missing and always):
        for pattern in missing:
            cache[pattern] = work(pattern)
        if writable:
            _write_marshal(name, dict(cache))


def _cache_path(name: str) -> str:
    from ..base.bytecache import cache_home
    return os.path.join(cache_home(), name)


def _cache_writable() -> bool:
    from ..base.bytecache import private_folder
    folder = private_folder()
    return folder is not None and os.access(folder, os.W_OK)


def _read_marshal(name: str):
    """What the cache file ``name`` holds: only from a folder and file private to this user (``bytecache``)."""
    import marshal

    from ..base.bytecache import private_folder, read_private
    data = read_private(_cache_path(name)) if private_folder() else None
    try:
        return marshal.loads(data) if data else {}
    except (ValueError, EOFError, TypeError):
        return {}


def _write_marshal(name: str, value) -> None:
    """``value`` written atomically into the cache folder; a cache that cannot be written is no error."""
    import marshal

    from ..base.bytecache import private_folder, write_private
    if private_folder() is not None:
        write_private(_cache_path(name), marshal.dumps(value))


def _keys_of(pattern: str):
    """The keywords of one cue (a tuple), or None: not a valid expression, or none found."""
    import re
    try:
        re.compile(pattern, re.IGNORECASE)  # a valid expression
        parser = getattr(re, "_parser", None)
        if parser is None:  # Python before 3.11
            import sre_parse as parser
        found = _required(list(parser.parse(pattern, re.IGNORECASE)), parser)
    except Exception:  # noqa: BLE001 - any surprise: no keywords, the cue is checked against every text
        return None
    return tuple(sorted(found)) if found else None


def _literal(code: int):
    ch = chr(code).lower()
    return ch if len(ch) == 1 and ch not in CASE_SPECIAL else None


def _required(items: list, parser):
    """A set of strings one of which every match of the parsed sequence ``items`` contains, or None."""
    c = parser  # the opcodes live in the parser's namespace (``re._constants``)
    choices, run = [], ""
    for op, av in items:
        ch = _literal(av) if op is c.LITERAL else None
        if ch is not None:
            run += ch
            continue
        if run:
            choices.append({run})
            run = ""
        found = None
        if op is c.SUBPATTERN:
            found = _required(list(av[-1]), parser)
        elif op is c.BRANCH:
            alternatives = [_required(list(a), parser) for a in av[1]]
            if all(alternatives):
                found = set().union(*alternatives)
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT) and av[0] >= 1:
            found = _required(list(av[2]), parser)
        elif op is c.IN and all(o is c.LITERAL for o, _ in av):
            chars = [_literal(a) for _, a in av]
            if all(chars):
                found = set(chars)
        if found:
            choices.append(found)
    if run:
        choices.append({run})
    return max(choices, key=lambda keys: min(len(k) for k in keys), default=None)
