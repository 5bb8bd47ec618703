"""Secret redaction: value-shaped secrets become ``[REDACTED]`` before anything is stored.

``redact_secrets(text) -> (text, count)``. Patterns look for the *shape* of a
secret, never for bare words (``the password policy`` stays as it is):

- PEM private-key blocks (``-----BEGIN ... PRIVATE KEY-----`` to its END line,
  or to the end of the text when the END line is missing);
- credentials inside URLs (``scheme://user:secret@host`` keeps the user name);
- API keys with known prefixes (``sk-``, ``ghp_``/``github_pat_``, ``glpat-``,
  ``xox?-``, ``AKIA``/``ASIA``, ``AIza``, ``sk_live_``, ``npm_``) and JWTs;
- ``Bearer <token>``;
- ``password=``/``secret:``/``token=``/``api_key:``... assignments that carry a
  value (``$VAR`` references, placeholders and plain words after ``:`` are kept),
  and ``--password VALUE``-style flags.

Redaction is idempotent: a second pass finds nothing.
"""
from __future__ import annotations

import re

REDACTED = "[REDACTED]"

_PEM = re.compile(r"-----BEGIN[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----.*?"
                  r"(?:-----END[A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|\Z)", re.S)

_URL_CREDENTIALS = re.compile(r"\b([a-z][a-z0-9+.\-]*://[^\s/:@]+:)([^\s/@]+)(@)", re.I)

_PREFIXED = re.compile(r"""(?<![A-Za-z0-9_\-])(?:
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
_ASSIGNMENT = re.compile(
    r"(?P<key>\b[A-Za-z0-9_.\-]*?(?:" + _KEYWORDS + r")(?:[_\-][A-Za-z0-9]+)*)"
    r"(?P<q1>[\"']?)(?P<sep>\s*(?:=>|:=|[:=])\s*)(?P<q2>[\"']?)(?P<value>[^\s\"',;]+)",
    re.I)
_FLAG = re.compile(r"(?P<key>--(?:" + _KEYWORDS + r")\s+)(?P<value>[^\s\"'\-][^\s\"']*)", re.I)

_PLACEHOLDERS = {"none", "null", "nil", "true", "false", "undefined", "required", "optional", "empty", "redacted"}


def _looks_secret(value: str, loose_separator: bool) -> bool:
    """Is this assignment value a real secret rather than a reference, placeholder or word?"""
    if value.startswith(REDACTED[:-1]) or value[0] in "$<{%*[(" or value.lower().strip(".") in _PLACEHOLDERS:
        return False
    if value.isdigit() and len(value) < 6:  # max_tokens=4096, timeout values
        return False
    if loose_separator:  # "Secret: rotate it monthly" is prose; "secret: s3cr3t" is not
        return bool(re.search(r"[^A-Za-z]", value)) or len(value) >= 20
    return True


def _assignment(m, counter) -> str:
    value = m.group("value")
    loose = ":" in m.group("sep") and "=" not in m.group("sep") and not m.group("q2")
    if not _looks_secret(value, loose):
        return m.group(0)
    counter[0] += 1
    return m.group(0)[: m.start("value") - m.start()] + REDACTED


def _bearer(m, counter) -> str:
    token = m.group(2)
    if not (re.search(r"\d", token) or len(token) >= 24):  # "Bearer authentication" is a phrase
        return m.group(0)
    counter[0] += 1
    return m.group(1) + REDACTED


def _flag(m, counter) -> str:
    if not _looks_secret(m.group("value"), False):
        return m.group(0)
    counter[0] += 1
    return m.group("key") + REDACTED


# What a prefixed key is, by its first characters (for messages that name the kind, never the value).
_PREFIX_KINDS = (("AKIA", "AWS access key"), ("ASIA", "AWS access key"), ("ghp_", "GitHub token"),
                 ("gho_", "GitHub token"), ("ghu_", "GitHub token"), ("ghs_", "GitHub token"),
                 ("ghr_", "GitHub token"), ("github_pat_", "GitHub token"), ("glpat-", "GitLab token"),
                 ("xox", "Slack token"), ("AIza", "Google API key"), ("sk_", "Stripe key"), ("rk_", "Stripe key"),
                 ("npm_", "npm token"), ("eyJ", "JSON web token"), ("sk-", "API key"))


def _prefix_kind(value: str) -> str:
    return next((kind for prefix, kind in _PREFIX_KINDS if value.startswith(prefix)), "API key")


def secret_kinds(text: str) -> list:
    """The kinds of secret in ``text`` (``["AWS access key"]``), each once, in the order found; never the values."""
    kinds: list = []
    redact_secrets(text, kinds)
    return list(dict.fromkeys(kinds))


def redact_secrets(text: str, kinds: list | None = None) -> tuple:
    """``(text with every secret replaced by [REDACTED], how many were replaced)``.

    ``kinds``: a list that gets the kind of each secret replaced (for messages).
    """
    if not isinstance(text, str) or not text:
        return text, 0
    counter = [0]
    kinds = [] if kinds is None else kinds
    start = len(kinds)

    def plain(m):
        counter[0] += 1
        value = m.group(0)
        kinds.append("private key" if value.startswith("-----") else _prefix_kind(value))
        return REDACTED

    def url(m):
        if m.group(2) == REDACTED:
            return m.group(0)
        counter[0] += 1
        kinds.append("password in a URL")
        return m.group(1) + REDACTED + m.group(3)

    text = _PEM.sub(plain, text)
    text = _URL_CREDENTIALS.sub(url, text)
    text = _PREFIXED.sub(plain, text)
    text = _BEARER.sub(lambda m: _bearer(m, counter), text)
    text = _ASSIGNMENT.sub(lambda m: _assignment(m, counter), text)
    text = _FLAG.sub(lambda m: _flag(m, counter), text)
    kinds.extend(["password or token"] * (counter[0] - (len(kinds) - start)))  # bearer, assignments, flags
    return text, counter[0]
