"""Secret redaction: value-shaped secrets become ``[REDACTED]`` (never bare words: ``the password policy`` stays;
``$VAR``, placeholders and plain words after ``:`` are kept). Idempotent: a second pass finds nothing.
"""
from __future__ import annotations

import re

REDACTED = "[REDACTED]"
TOKEN = "password or token"  # the kind of a bearer token, an assigned secret or a flag's value

_PEM = re.compile(r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?"
                  r"(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)", re.S)

# Only where a run of scheme characters starts (each run scanned once: linear); the scheme starts at a letter
# after a word boundary in the run (``_scheme_ok``). One slash is enough: ``related_files`` folds ``//`` to ``/``.
_URL_CREDENTIALS = re.compile(r"(?<![a-z0-9+.\-])(?P<scheme>[a-z0-9+.\-]*)(:/{1,2}[^\s/:@]+:)([^\s/@]+)(@)", re.I)
_LETTER = re.compile(r"[a-z]", re.I)

# Not after a letter or digit (``desk-...`` is a word); after ``-`` or ``_`` still a key (``key-AKIA...``).
_PREFIXED = re.compile(r"""(?<![A-Za-z0-9])(?:
      sk-(?:proj-|ant-|live-|svcacct-)?[A-Za-z0-9_\-]{20,}
    | (?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}
    | github_pat_[A-Za-z0-9_]{30,}
    | glpat-[A-Za-z0-9_\-]{20,}
    | xox[abposr]-[A-Za-z0-9\-]{10,}
    | (?:AKIA|ASIA)[0-9A-Z]{16}
    | AIza[0-9A-Za-z_\-]{35}
    | (?:sk|rk)_(?:live|test)_[0-9A-Za-z]{16,}
    | npm_[A-Za-z0-9]{36}
    | eyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}
    )(?![A-Za-z0-9])""", re.X)

_BEARER = re.compile(r"\b(bearer\s+)([A-Za-z0-9\-._~+/]{8,}=*)", re.I)

_KEYWORDS = (r"password|passwd|passphrase|secret|token|api[_\-]?key|access[_\-]?key|private[_\-]?key"
             r"|client[_\-]?secret|credentials?")
# ``name = value``: a whole run of name characters (where a run starts: linear), then separator and value; the
# keyword is looked for in code (``_key_ok``): one expression doing both was cubic (``"api_key-" * 800``: 93 s).
_ASSIGNMENT = re.compile(r"(?<![A-Za-z0-9_.\-])(?P<key>[A-Za-z0-9_.\-]+)(?=[\"']?\s*[:=])", re.I)
# The value is on the same line or an indented next one (YAML's ``key:\n  value``); a next line's fence or bullet
# at the margin is no value: hiding it would change the text's shape, and hiding again would hide more.
_ASSIGNED = re.compile(r"(?<=[A-Za-z0-9_.\-])"  # only right after a name: a run of spaces is scanned once
                       r"(?P<q1>[\"']?)(?P<sep>\s*(?:=>|:=|[:=])[^\S\n]*(?:\n[^\S\n]+)?)(?P<q2>[\"']?)"
                       r"(?P<value>[^\s\"',;]+)", re.I)
_KEYWORD_END = re.compile(r"(?:" + _KEYWORDS + r")\Z", re.I)
_NAME_PART = re.compile(r"[A-Za-z0-9]", re.I)  # ``re.I``: also the long s and the Kelvin sign, as before
_KEYWORD_CHARS = 13  # the longest keyword (``client_secret``)
_FLAG = re.compile(r"(?P<key>--(?:" + _KEYWORDS + r")\s+)(?P<value>[^\s\"'\-][^\s\"']*)", re.I)

_PLACEHOLDERS = {"none", "null", "nil", "true", "false", "undefined", "required", "optional", "empty", "redacted"}


def _looks_secret(value: str, loose_separator: bool) -> bool:
    """Is this assignment value a real secret rather than a reference, placeholder or word?"""
    if value.startswith(REDACTED[:-1]) or value[0] in "$<{%*[(`~" or value.lower().strip(".") in _PLACEHOLDERS:
        return False
    if value.isdigit() and len(value) < 6:  # max_tokens=4096, timeout values
        return False
    if loose_separator:  # "Secret: rotate it monthly" is prose; "secret: s3cr3t" is not
        return bool(re.search(r"[^A-Za-z]", value)) or len(value) >= 20
    return True


def _assignment(key: str, m, kinds: list) -> str:
    """``key`` and what ``_ASSIGNED`` matched after it, the value hidden when it looks like a secret."""
    value = m.group("value")
    loose = ":" in m.group("sep") and "=" not in m.group("sep") and not m.group("q2")
    if not _looks_secret(value, loose):
        return key + m.group(0)
    kinds.append(TOKEN)
    return key + m.group(0)[: m.start("value") - m.start()] + REDACTED


def _boundary(text: str, i: int) -> bool:
    """``\\b`` at ``i``."""
    before, after = text[i - 1:i], text[i:i + 1]
    return (before.isalnum() or before == "_") != (after.isalnum() or after == "_")


def _key_ok(text: str, m) -> bool:
    """Does the name end in a keyword and ``_part``/``-part`` pieces (``DB_PASSWORD``, ``app.api-key_id``)?"""
    key, start = m.group("key"), m.start("key")
    first_boundary = None
    end = len(key)
    while True:  # ``end``: where ``key[end:]`` is nothing but ``_part``/``-part`` pieces
        found = _KEYWORD_END.search(key[max(0, end - _KEYWORD_CHARS):end])
        if found is not None:
            keyword_start = end - len(found.string) + found.start()
            if first_boundary is None:
                first_boundary = next((i for i in range(len(key)) if _boundary(text, start + i)), len(key))
            if first_boundary <= keyword_start:
                return True
        j = end
        while j > 0 and _NAME_PART.match(key[j - 1]):
            j -= 1
        if j == end or j == 0 or key[j - 1] not in "_-":
            return False
        end = j - 1


def _assignments(text: str, kinds: list) -> str:
    """Every ``name = value`` whose name holds a keyword, its value hidden when it looks like a secret."""
    out, last, pos = [], 0, 0
    while (m := _ASSIGNMENT.search(text, pos)) is not None:
        pos = m.end()
        assigned = _ASSIGNED.match(text, pos) if _key_ok(text, m) else None
        if assigned is not None:
            out += (text[last:m.start()], _assignment(m.group("key"), assigned, kinds))
            last = pos = assigned.end()
    out.append(text[last:])
    return "".join(out)


def _scheme_ok(text: str, m) -> bool:
    """A letter after a word boundary somewhere in the scheme run (where ``\\b[a-z]`` would start)."""
    start = m.start("scheme")
    return any(_LETTER.match(ch) and _boundary(text, start + i) for i, ch in enumerate(m.group("scheme")))


def _bearer(m, kinds: list) -> str:
    token = m.group(2)
    if not (re.search(r"\d", token) or len(token) >= 24):  # "Bearer authentication" is a phrase
        return m.group(0)
    kinds.append(TOKEN)
    return m.group(1) + REDACTED


def _flag(m, kinds: list) -> str:
    if not _looks_secret(m.group("value"), False):
        return m.group(0)
    kinds.append(TOKEN)
    return m.group("key") + REDACTED


# What a prefixed key is, by its first characters (for messages that name the kind, never the value).
_PREFIX_KINDS = {"AWS access key": ("AKIA", "ASIA"), "GitLab token": ("glpat-",), "Slack token": ("xox",),
                 "GitHub token": ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"), "Google API key": ("AIza",),
                 "Stripe key": ("sk_", "rk_"), "npm token": ("npm_",), "JSON web token": ("eyJ",), "API key": ("sk-",)}


def secret_kinds(text: str) -> list:
    """The kinds of secret in ``text`` (``["AWS access key"]``), each once, in the order found; never the values."""
    kinds: list = []
    redact_secrets(text, kinds)
    return list(dict.fromkeys(kinds))


def redact_secrets(text: str, kinds: list | None = None) -> tuple:
    """``(text with every secret replaced by [REDACTED], how many)``; ``kinds`` gets the kind of each."""
    if not isinstance(text, str) or not text:
        return text, 0
    kinds = [] if kinds is None else kinds
    start = len(kinds)

    def plain(m):
        value = m.group(0)
        kinds.append("private key" if value.startswith("-----") else
                     next((kind for kind, prefixes in _PREFIX_KINDS.items() if value.startswith(prefixes)), "API key"))
        return REDACTED

    def url(m):
        if m.group(3) == REDACTED or not _scheme_ok(text, m):
            return m.group(0)
        kinds.append("password in a URL")
        return m.group("scheme") + m.group(2) + REDACTED + m.group(4)

    text = _PEM.sub(plain, text)
    text = _URL_CREDENTIALS.sub(url, text)
    text = _PREFIXED.sub(plain, text)
    text = _BEARER.sub(lambda m: _bearer(m, kinds), text)
    text = _assignments(text, kinds)
    text = _FLAG.sub(lambda m: _flag(m, kinds), text)
    return text, len(kinds) - start
