"""What recall and the CLI may show of a memory file, whoever wrote it: secrets and private text hidden.

The write path scrubs records before they are stored (``privacy.scrub_record``), but a
file edited by hand or pulled from a teammate was never scrubbed. ``hide(text)`` is
applied to what is shown of such files (titles and tags when the index and cache are
built, the recalled excerpt, ``show``): private sections in any of the three formats
become ``[PRIVATE]`` (an unclosed one hides everything after its opening tag) and
secret-shaped values become ``[REDACTED]``. Both are looked for in the normalised form
(NFKC, invisible characters removed), so ``AKIA\\u200b...``, full-width ``ＡＫＩＡ...``
and ``<pri\\u200bvate>`` are caught; when something is hidden the normalised text is what
is shown.

``might_hide`` is a substring check that runs first, so recall pays for the secret patterns
only when a text holds something one of them needs (a hint below); it must list a piece of
every pattern in ``redact`` and ``privacy``.
"""
from __future__ import annotations

from ..base.config import category_descriptions
from ..base.sanitize import clean_line, folded, sanitize_title

# Lower-case pieces every secret or private-tag pattern contains (see redact.py, privacy.py).
HINTS = ("private", "://", "sk-", "sk_", "rk_", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "glpat-",
         "xox", "akia", "asia", "aiza", "npm_", "eyj", "bearer", "pass", "secret", "token", "key", "credential")


def might_hide(text: str) -> bool:
    """False when ``text`` surely holds no secret or private tag.

    Plain substring tests (no ``re``: the hook's fast path imports none); a loop, not ``any()``
    over a generator, which costs twice as much per title when the index is built.
    """
    low = text.lower()
    for hint in HINTS:
        if hint in low:
            return True
    return False


def hide(text: str) -> str:
    """``text`` with private sections and secrets hidden (see the module docstring)."""
    if not isinstance(text, str) or not text:
        return text
    probe = text if text.isascii() and text.isprintable() else folded(text)
    if not might_hide(probe):
        return text
    from .privacy import FORMATS, PrivateTagError, strip_sections
    from .redact import redact_secrets
    try:
        shown, private = strip_sections(probe, FORMATS, "[PRIVATE]")
    except PrivateTagError:
        shown, private = _cut_at_first_tag(probe), 1
    shown, secrets = redact_secrets(shown)
    return shown if private or secrets else text


def hide_secrets(text: str) -> str:
    """``text`` with secret-shaped values hidden (in the normalised form), private tags left as they are.

    For the tool's own messages, which may name a private tag but never quote private text.
    """
    probe = text if text.isascii() and text.isprintable() else folded(text)
    if not might_hide(probe):
        return text
    from .redact import redact_secrets
    shown, secrets = redact_secrets(probe)
    return shown if secrets else text


def _cut_at_first_tag(text: str) -> str:
    from .privacy import FORMATS, first_tag
    start = first_tag(text, FORMATS)
    return (text[:start] if start is not None else "") + "[PRIVATE]"


def recall_title(title: str, limit: int) -> str:
    """A record's title as the index and cache keep it: one clean line, hidden parts hidden, cut."""
    title = clean_line(title)
    shown = hide(title)
    return (title if shown is title else clean_line(shown))[:limit].strip()


def recall_tag(clean: str) -> str:
    """A cleaned tag as the index keeps it; "" when it would show a secret or private text."""
    return clean if hide(clean) == clean else ""


def descriptions_attr(config: dict) -> str:
    """The ``descriptions`` attribute of the ``<memory-context>`` tag ("" without descriptions).

    Recall puts it in the block; the cache records it, so a cached block is rebuilt when it changes.
    """
    descs = sorted(category_descriptions(config).items())
    if not descs:
        return ""
    return ' descriptions="' + "; ".join(f"{cat}={sanitize_title(hide(d), 500)}" for cat, d in descs) + '"'
