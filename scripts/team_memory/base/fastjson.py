"""``loads``/``dumps``: JSON for the hot path, without importing the ``json`` package (it pulls in ``re``).

``loads`` drives the C scanner behind ``json.loads`` (``_json.make_scanner``) directly: same parser,
same values, malformed text refused as ``ValueError``; without ``_json`` it is ``json.loads``.
"""
from __future__ import annotations

# Kept for the tool hooks' budget (<= 2.0x ``python3 -S -c pass``): ``import json`` costs them about 10 ms (1.2x).
import sys

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
    except ValueError:
        raise
    except Exception:  # noqa: BLE001 - without ``json`` loaded, the C scanner cannot build its error
        raise ValueError("not valid JSON") from None
    if text[end:].strip(_WS):
        raise ValueError("extra data after the JSON document")
    return value


_encoder = None


def dumps(value) -> str:
    """Compact JSON, ASCII-only (a lone surrogate read from a memory stays encodable): the C encoder when
    ``json`` is loaded anyway (the CLI), a small one otherwise."""
    global _encoder
    if _encoder is None and "json" in sys.modules:
        _encoder = sys.modules["json"].JSONEncoder(separators=(",", ":"))
    if _encoder is not None:
        return _encoder.encode(value)
    return "".join(encode(value))


try:  # the C string escaper ``json`` itself uses (ASCII output)
    from _json import encode_basestring_ascii as _escape_c
except ImportError:  # pragma: no cover
    _escape_c = None


def encode(value):
    if isinstance(value, str):
        if value.isascii() and value.isprintable() and '"' not in value and "\\" not in value:
            yield '"' + value + '"'
        elif _escape_c is not None:
            yield _escape_c(value)
        else:  # pragma: no cover
            import json
            yield json.dumps(value)
    elif isinstance(value, list) and all(type(item) is int for item in value):
        yield "[" + ",".join(map(str, value)) + "]"
    elif isinstance(value, list):
        yield "["
        for i, item in enumerate(value):
            if i:
                yield ","
            yield from encode(item)
        yield "]"
    elif isinstance(value, dict) and all(isinstance(k, str) for k in value):
        yield "{"
        for i, (key, item) in enumerate(value.items()):
            if i:
                yield ","
            yield from encode(key)
            yield ":"
            yield from encode(item)
        yield "}"
    elif value is None:
        yield "null"
    elif value is True or value is False:
        yield "true" if value else "false"
    elif isinstance(value, int):
        yield str(int(value))
    elif isinstance(value, float):  # json.dumps spells floats as repr does, and the three specials so
        if value != value:
            yield "NaN"
        elif value in (float("inf"), float("-inf")):
            yield "Infinity" if value > 0 else "-Infinity"
        else:
            yield float.__repr__(value)
    else:
        import json
        yield json.dumps(value, separators=(",", ":"))

