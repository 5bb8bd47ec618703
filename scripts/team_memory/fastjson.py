"""``loads``: ``json.loads`` for the hot path, without importing the ``json`` package.

``import json`` pulls in ``re`` and friends, several milliseconds for an interpreter
started without ``site``. The C scanner behind ``json.loads`` (``_json.make_scanner``)
needs none of that, so this module drives it directly: same parser, same values, same
rejection of malformed text (as ``ValueError``). Where ``_json`` is missing (another
Python implementation) it falls back to ``json.loads``.
"""
from __future__ import annotations

_WS = " \t\n\r"

try:
    import _json

    class _Context:
        strict = True
        object_hook = None
        object_pairs_hook = None
        parse_float = float
        parse_int = int
        memo: dict = {}

        @staticmethod
        def parse_constant(name):
            return {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}[name]

    _scan = _json.make_scanner(_Context())
except (ImportError, AttributeError, TypeError):  # pragma: no cover - no C accelerator
    _scan = None


def loads(text):
    """Parse one JSON document from ``str`` (or UTF-8 ``bytes``); ``ValueError`` if it is not one."""
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8")
    if _scan is None:  # pragma: no cover
        import json
        return json.loads(text)
    start = len(text) - len(text.lstrip(_WS))
    try:
        value, end = _scan(text, start)
    except StopIteration:
        raise ValueError("not a JSON document") from None
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    if text[end:].strip(_WS):
        raise ValueError("extra data after the JSON document")
    return value
