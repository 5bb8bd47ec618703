"""What the CLI writes to a terminal: ``sanitize.clean_text`` on everything, but for the CLI's own colours
(``colored``: a marker made fresh per process, which no file can know).
"""
from __future__ import annotations

import contextlib
import os
import sys

from .sanitize import clean_text

MARK = "\x00" + os.urandom(8).hex() + "\x00"  # NUL is dropped by the policy, so a file cannot end a mark early


def colored(text: str, code: str) -> str:
    """``text`` in the SGR colour ``code`` (digits and ``;``), once it has gone through a ``SafeStream``."""
    return f"{MARK}{code}{MARK}{clean_text(text)}{MARK}0{MARK}"


class SafeStream:
    """A text stream wrapper that writes ``clean_text`` of everything, and real escapes only for ``colored``."""

    def __init__(self, stream):
        self._stream = stream

    def write(self, text: str) -> int:
        parts = text.split(MARK)  # odd parts: a colour code
        return self._stream.write("".join(f"\033[{p}m" if i % 2 and p.replace(";", "").isdigit() else clean_text(p)
                                          for i, p in enumerate(parts)))

    def __getattr__(self, name):
        return getattr(self._stream, name)


@contextlib.contextmanager
def safe_output():
    """``with safe_output():`` routes ``sys.stdout`` and ``sys.stderr`` through ``SafeStream``."""
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeStream(sys.stdout), SafeStream(sys.stderr)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
